package optimal

import (
	"fmt"
	"strconv"
)

// maxDepth bounds the nesting of trees that Parse, Validate and Flatten
// accept, so that hostile input cannot exhaust the stack.
const maxDepth = 1000

// Parse reads a tree in the notation that (*Node).String prints, for example
// "struc(2, [0, 8], [leaf(double), vec(3, 4, leaf(int))])". Whitespace between
// tokens is free. Counts must agree with the lengths of the lists. sizes gives
// the byte size of the basic type of each contiguous leaf leaf(c, b) with
// c > 1; nil means DefaultSizes(). Errors name the byte offset (column) of the
// problem. The tree is validated as by (*Node).Validate.
func Parse(s string, sizes Sizer) (*Node, error) {
	if sizes == nil {
		sizes = DefaultSizes()
	}
	p := &parser{s: s, sizes: sizes}
	n, err := p.node(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos != len(p.s) {
		return nil, p.errf("unexpected %s after the tree", p.peekDesc())
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}

type parser struct {
	s     string
	pos   int
	sizes Sizer
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("optimal: parse: col %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) skip() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func (p *parser) peekDesc() string {
	if p.pos >= len(p.s) {
		return "end of input"
	}
	end := p.pos
	for end < len(p.s) && end-p.pos < 20 && isWordByte(p.s[end]) {
		end++
	}
	if end == p.pos {
		return strconv.Quote(p.s[p.pos : p.pos+1])
	}
	return strconv.Quote(p.s[p.pos:end])
}

// word reads a run of letters, digits, '_' and '-'.
func (p *parser) word() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.s) && isWordByte(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *parser) expect(c byte) error {
	p.skip()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return p.errf("expected %q, found %s", string(c), p.peekDesc())
	}
	p.pos++
	return nil
}

func (p *parser) int() (int64, error) {
	p.skip()
	start := p.pos
	w := p.word()
	if w == "" {
		return 0, p.errf("expected an integer, found %s", p.peekDesc())
	}
	v, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		p.pos = start
		return 0, p.errf("invalid integer %q", w)
	}
	return v, nil
}

func (p *parser) list() ([]int64, error) {
	if err := p.expect('['); err != nil {
		return nil, err
	}
	xs := []int64{}
	p.skip()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return xs, nil
	}
	for {
		v, err := p.int()
		if err != nil {
			return nil, err
		}
		xs = append(xs, v)
		p.skip()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			return xs, nil
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
}

func (p *parser) comma() error { return p.expect(',') }

// count reads a count and checks it against a list length later.
func (p *parser) countArg() (int64, int, error) {
	p.skip()
	at := p.pos
	c, err := p.int()
	if err != nil {
		return 0, at, err
	}
	if c < 0 {
		p.pos = at
		return 0, at, p.errf("negative count %d", c)
	}
	return c, at, nil
}

func (p *parser) checkLen(c int64, at int, what string, got int) error {
	if c != int64(got) {
		save := p.pos
		p.pos = at
		err := p.errf("count %d but %d %s", c, got, what)
		p.pos = save
		return err
	}
	return nil
}

func (p *parser) node(depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, p.errf("tree nested deeper than %d", maxDepth)
	}
	p.skip()
	start := p.pos
	name := p.word()
	var n *Node
	switch name {
	case "leaf":
		n = &Node{Kind: Leaf}
	case "vec":
		n = &Node{Kind: Vec}
	case "idx":
		n = &Node{Kind: Idx}
	case "idxbuc":
		n = &Node{Kind: IdxBuc}
	case "struc":
		n = &Node{Kind: Struc}
	case "sbuc":
		n = &Node{Kind: SBuc}
	default:
		p.pos = start
		if name == "" {
			return nil, p.errf("expected a constructor, found %s", p.peekDesc())
		}
		return nil, p.errf("unknown constructor %q (want leaf, vec, idx, idxbuc, struc or sbuc)", name)
	}
	if err := p.expect('('); err != nil {
		return nil, err
	}
	var err error
	switch n.Kind {
	case Leaf:
		p.skip()
		at := p.pos
		w := p.word()
		n.Count = 1
		if v, perr := strconv.ParseInt(w, 10, 64); perr == nil {
			if v < 1 {
				p.pos = at
				return nil, p.errf("leaf count %d < 1", v)
			}
			n.Count = v
			if err := p.comma(); err != nil {
				return nil, err
			}
			p.skip()
			at = p.pos
			w = p.word()
		}
		if !validTypeName(w) {
			p.pos = at
			return nil, p.errf("expected a basic type name, found %s", p.peekDesc())
		}
		n.Type = w
		if n.Count > 1 {
			sz, ok := p.sizes.Size(w)
			if !ok || sz <= 0 {
				p.pos = at
				return nil, p.errf("contiguous leaf of basic type %q of unknown size", w)
			}
			n.Size = sz
		}
	case Vec:
		if n.Count, _, err = p.countArg(); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Stride, err = p.int(); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Child, err = p.node(depth + 1); err != nil {
			return nil, err
		}
	case Idx:
		c, at, err := p.countArg()
		if err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Disps, err = p.list(); err != nil {
			return nil, err
		}
		if err = p.checkLen(c, at, "displacements", len(n.Disps)); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Child, err = p.node(depth + 1); err != nil {
			return nil, err
		}
	case IdxBuc:
		c, at, err := p.countArg()
		if err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Stride, err = p.int(); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Disps, err = p.list(); err != nil {
			return nil, err
		}
		if err = p.checkLen(c, at, "displacements", len(n.Disps)); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Sizes, err = p.list(); err != nil {
			return nil, err
		}
		if err = p.checkLen(c, at, "bucket sizes", len(n.Sizes)); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Child, err = p.node(depth + 1); err != nil {
			return nil, err
		}
	case SBuc:
		c, at, err := p.countArg()
		if err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Stride, err = p.int(); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Inner, err = p.int(); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Sizes, err = p.list(); err != nil {
			return nil, err
		}
		if err = p.checkLen(c, at, "bucket sizes", len(n.Sizes)); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Child, err = p.node(depth + 1); err != nil {
			return nil, err
		}
	case Struc:
		c, at, err := p.countArg()
		if err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if n.Disps, err = p.list(); err != nil {
			return nil, err
		}
		if err = p.checkLen(c, at, "displacements", len(n.Disps)); err != nil {
			return nil, err
		}
		if err = p.comma(); err != nil {
			return nil, err
		}
		if err = p.expect('['); err != nil {
			return nil, err
		}
		n.Children = []*Node{}
		p.skip()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
		} else {
			for {
				ch, err := p.node(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Children = append(n.Children, ch)
				p.skip()
				if p.pos < len(p.s) && p.s[p.pos] == ']' {
					p.pos++
					break
				}
				if err := p.comma(); err != nil {
					return nil, err
				}
			}
		}
		if err = p.checkLen(c, at, "subtrees", len(n.Children)); err != nil {
			return nil, err
		}
	}
	if err := p.expect(')'); err != nil {
		return nil, err
	}
	return n, nil
}
