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
	n := p.node(0)
	if p.err != nil {
		return nil, p.err
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

// parser reads the tree notation. Its error is sticky: the first failure is
// recorded in err together with its column, and from then on every method
// does nothing and returns zero values, so that callers can read a sequence
// of arguments and check err once.
type parser struct {
	s     string
	pos   int
	sizes Sizer
	err   error // the first error, if any
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("optimal: parse: col %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

// fail records an error at the current column unless one is recorded.
func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = p.errf(format, args...)
	}
}

// failAt records an error at column at+1, leaving the position unchanged.
func (p *parser) failAt(at int, format string, args ...any) {
	save := p.pos
	p.pos = at
	p.fail(format, args...)
	p.pos = save
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

// expect consumes c, after optional whitespace.
func (p *parser) expect(c byte) {
	if p.err != nil {
		return
	}
	p.skip()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		p.fail("expected %q, found %s", string(c), p.peekDesc())
		return
	}
	p.pos++
}

// closes consumes c and reports true if it is the next byte after optional
// whitespace.
func (p *parser) closes(c byte) bool {
	if p.err != nil {
		return false
	}
	p.skip()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) comma() { p.expect(',') }

func (p *parser) int() int64 {
	if p.err != nil {
		return 0
	}
	p.skip()
	start := p.pos
	w := p.word()
	if w == "" {
		p.fail("expected an integer, found %s", p.peekDesc())
		return 0
	}
	v, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		p.failAt(start, "invalid integer %s", clipQ(w))
		return 0
	}
	return v
}

// items reads a bracketed, comma-separated list, calling item to read each
// element.
func (p *parser) items(item func()) {
	p.expect('[')
	if p.closes(']') {
		return
	}
	for p.err == nil {
		item()
		if p.closes(']') {
			return
		}
		p.comma()
	}
}

func (p *parser) list() []int64 {
	xs := []int64{}
	p.items(func() { xs = append(xs, p.int()) })
	return xs
}

// countAt is a constructor's count argument and its position: the lists
// that follow must have count elements.
type countAt struct {
	count int64
	at    int
}

// countArg reads a count.
func (p *parser) countArg() countAt {
	p.skip()
	at := p.pos
	c := p.int()
	if c < 0 {
		p.failAt(at, "negative count %d", c)
	}
	return countAt{c, at}
}

// intArg reads ", x".
func (p *parser) intArg() int64 {
	p.comma()
	return p.int()
}

// listArg reads ", [x0, ...]", a list of what that must have c.count
// elements.
func (p *parser) listArg(c countAt, what string) []int64 {
	p.comma()
	xs := p.list()
	p.checkLen(c, what, len(xs))
	return xs
}

// childArg reads ", L", a subtree nested depth deep.
func (p *parser) childArg(depth int) *Node {
	p.comma()
	return p.node(depth)
}

func (p *parser) checkLen(c countAt, what string, got int) {
	if p.err == nil && c.count != int64(got) {
		p.failAt(c.at, "count %d but %d %s", c.count, got, what)
	}
}

// node reads a tree nested depth deep.
func (p *parser) node(depth int) *Node {
	if p.err != nil {
		return nil
	}
	if depth > maxDepth {
		p.fail("tree nested deeper than %d", maxDepth)
		return nil
	}
	p.skip()
	start := p.pos
	name := p.word()
	kind := kindByName(name)
	if kind == 0 {
		if name == "" {
			p.fail("expected a constructor, found %s", p.peekDesc())
		} else {
			p.failAt(start, "unknown constructor %s (want leaf, vec, idx, idxbuc, struc or sbuc)", clipQ(name))
		}
		return nil
	}
	n := &Node{Kind: kind}
	p.expect('(')
	switch kind {
	case Leaf:
		p.leaf(n)
	case Vec:
		n.Count = p.countArg().count
		n.Stride = p.intArg()
		n.Child = p.childArg(depth + 1)
	case Idx:
		c := p.countArg()
		n.Disps = p.listArg(c, "displacements")
		n.Child = p.childArg(depth + 1)
	case IdxBuc:
		c := p.countArg()
		n.Stride = p.intArg()
		n.Disps = p.listArg(c, "displacements")
		n.Sizes = p.listArg(c, "bucket sizes")
		n.Child = p.childArg(depth + 1)
	case SBuc:
		c := p.countArg()
		n.Stride = p.intArg()
		n.Inner = p.intArg()
		n.Sizes = p.listArg(c, "bucket sizes")
		n.Child = p.childArg(depth + 1)
	case Struc:
		c := p.countArg()
		n.Disps = p.listArg(c, "displacements")
		p.comma()
		n.Children = []*Node{}
		p.items(func() { n.Children = append(n.Children, p.node(depth+1)) })
		p.checkLen(c, "subtrees", len(n.Children))
	}
	p.expect(')')
	if p.err != nil {
		return nil
	}
	return n
}

// leaf reads the arguments of leaf(b) or leaf(c, b) into n.
func (p *parser) leaf(n *Node) {
	if p.err != nil {
		return
	}
	p.skip()
	at := p.pos
	w := p.word()
	n.Count = 1
	if v, err := strconv.ParseInt(w, 10, 64); err == nil {
		if v < 1 {
			p.failAt(at, "leaf count %d < 1", v)
			return
		}
		n.Count = v
		p.comma()
		if p.err != nil {
			return
		}
		p.skip()
		at = p.pos
		w = p.word()
	}
	if !validTypeName(w) {
		p.pos = at
		p.fail("expected a basic type name, found %s", p.peekDesc())
		return
	}
	n.Type = w
	if n.Count > 1 {
		sz, ok := p.sizes.Size(w)
		if !ok || sz <= 0 {
			p.failAt(at, "contiguous leaf of basic type %q of unknown size", w)
			return
		}
		n.Size = sz
	}
}

// kindByName returns the constructor named name in the tree notation, or 0.
func kindByName(name string) Kind {
	for k := Leaf; k <= SBuc; k++ {
		if kindNames[k] == name {
			return k
		}
	}
	return 0
}
