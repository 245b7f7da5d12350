package dame

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// String returns the program in DAME text form, one primitive per line,
// indented by nesting depth; Parse reads it back. For example a vector of
// vectors of doubles:
//
//	EXIT(6144, 0)
//	VECTOR1(32, 1, 2048, 64, 512)
//	  VECTORFINAL(8, 1, 64, 8, 8)
//	    CONTIGFINAL(8)
//	BOTTOM
//
// EXIT carries the extent of the type and the displacement of the first
// primitive's origin. Each primitive carries its constructor's parameters
// (count, block length(s), stride or displacements in bytes) followed by the
// size and extent of its inner type, as in the paper; STRUCT carries lists of
// inner sizes and extents and is followed by one subprogram per block,
// RETURNTO(line of the STRUCT) ... BOTTOM. A Final name (VECTORFINAL,
// BLOCKINDEXFINAL, INDEXFINAL) marks a primitive whose inner type is a
// CONTIGFINAL, a Block1 name (VECTOR1, BLOCKINDEX1) a block length of 1;
// CONTIGCHILD follows non-final primitives whose block length can exceed 1.
func (p *Program) String() string {
	w := printer{at: map[*Node]int{}}
	w.line(0, "EXIT(%d, %d)", p.Extent, p.Off)
	if p.Root != nil {
		w.node(1, p.Root)
	}
	w.line(0, "BOTTOM")
	return w.b.String()
}

type printer struct {
	b     strings.Builder
	lines int
	// at is the line of each primitive printed: a program shares nodes
	// (a DAG), and a node met again is printed as SAME(line), so that the
	// text is as long as the program, not its expanded tree.
	at map[*Node]int
}

func (w *printer) line(depth int, format string, a ...any) int {
	w.lines++
	w.b.WriteString(strings.Repeat("  ", max(depth-1, 0)))
	fmt.Fprintf(&w.b, format, a...)
	w.b.WriteByte('\n')
	return w.lines
}

func list(xs []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// Name returns the primitive's name in the text form (VECTORFINAL, VECTOR1, ...).
func (n *Node) Name() string {
	switch n.Op {
	case ContigFinal, Struct:
		return n.Op.String()
	case Contig:
		return "CONTIG"
	}
	name := n.Op.String()
	if n.IsFinal() {
		return name + "FINAL"
	}
	if (n.Op == Vector || n.Op == BlockIndex) && n.Blocklen == 1 {
		return name + "1"
	}
	return name
}

func (w *printer) node(depth int, n *Node) {
	if l, ok := w.at[n]; ok {
		w.line(depth, "SAME(%d)", l)
		return
	}
	if n.Op != ContigFinal {
		w.at[n] = w.lines + 1
	}
	switch n.Op {
	case ContigFinal:
		w.line(depth, "CONTIGFINAL(%d)", n.Size)
		return
	case Contig:
		w.line(depth, "%s(%d, %d, %d)", n.Name(), n.Count, n.Child.Size, n.Child.Extent)
	case Vector:
		w.line(depth, "%s(%d, %d, %d, %d, %d)", n.Name(), n.Count, n.Blocklen, n.Stride, n.Child.Size, n.Child.Extent)
	case BlockIndex:
		w.line(depth, "%s(%d, %d, %s, %d, %d)", n.Name(), len(n.Disps), n.Blocklen, list(n.Disps), n.Child.Size, n.Child.Extent)
	case Index:
		w.line(depth, "%s(%d, %s, %s, %d, %d)", n.Name(), len(n.Disps), list(n.Blocklens), list(n.Disps), n.Child.Size, n.Child.Extent)
	case Struct:
		sizes := make([]int64, len(n.Children))
		exts := make([]int64, len(n.Children))
		for i, c := range n.Children {
			sizes[i], exts[i] = c.Size, c.Extent
		}
		at := w.line(depth, "STRUCT(%d, %s, %s, %s, %s)", len(n.Disps), list(n.Blocklens), list(n.Disps), list(sizes), list(exts))
		for _, c := range n.Children {
			w.line(depth+1, "RETURNTO(%d)", at)
			w.node(depth+2, c)
			w.line(depth+1, "BOTTOM")
		}
		return
	}
	if !n.IsFinal() && (n.Op == Index || n.Blocklen > 1) {
		w.line(depth+1, "CONTIGCHILD")
	}
	w.node(depth+1, n.Child)
}

// SyntaxError reports a malformed program text.
type SyntaxError struct {
	Line int // 1-based line number
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("dame: line %d: %s", e.Line, e.Msg) }

// Parse reads a program in the text form of Program.String. Blank lines,
// indentation and comments (from # to the end of a line) are ignored.
// Grammar (seed 003, Fig. 5):
//
//	Program   = EXIT(extent, off) [Type] BOTTOM
//	Type      = CONTIGFINAL(size) | Base Type | STRUCT(...) Subprogram...
//	Base      = (CONTIG | VECTOR | VECTOR1 | VECTORFINAL | BLOCKINDEX |
//	             BLOCKINDEX1 | BLOCKINDEXFINAL | INDEX | INDEXFINAL)(params) [CONTIGCHILD]
//	Subprogram= RETURNTO(line) Type BOTTOM
//	Type      = ... | SAME(line)
//
// SAME(line) is the primitive (and everything under it) that starts on
// that line, already complete: a program shares sub-programs (a DAG), and
// the text names each shared one once. Its uses must agree on its extent.
//
// The sizes in the parameters are checked against the inner primitives;
// counts and block lengths must be positive, every packed size must fit in
// an int64, and primitives nest at most MaxDepth deep.
func Parse(text string) (*Program, error) {
	ps := &parser{}
	for i, l := range strings.Split(text, "\n") {
		if k := strings.IndexByte(l, '#'); k >= 0 {
			l = l[:k]
		}
		l = strings.TrimSpace(l)
		if l != "" {
			ps.lines = append(ps.lines, pline{i + 1, l})
		}
	}
	name, args, err := ps.next()
	if err != nil {
		return nil, err
	}
	if name != "EXIT" || len(args) != 2 || args[0].list != nil || args[1].list != nil {
		return nil, ps.errf("program must start with EXIT(extent, off)")
	}
	p := &Program{Extent: args[0].n, Off: args[1].n, Align: 16}
	if n, _, err := ps.peek(); err == nil && n != "BOTTOM" {
		root, err := ps.node(1)
		if err != nil {
			return nil, err
		}
		p.Root, p.Size, p.Depth = root, root.Size, root.Depth
		root.Extent = p.Extent
		p.Align = min(root.align(), gcdPow2(p.Off), gcdPow2(p.Extent))
	}
	if name, _, err := ps.next(); err != nil || name != "BOTTOM" {
		return nil, ps.errf("program must end with BOTTOM")
	}
	if ps.pos < len(ps.lines) {
		return nil, ps.errf("text after the final BOTTOM")
	}
	if err := Validate(p); err != nil {
		return nil, &SyntaxError{Line: ps.lines[len(ps.lines)-1].no, Msg: err.Error()}
	}
	return p, nil
}

type pline struct {
	no   int
	text string
}

type arg struct {
	n    int64
	list []int64
}

type parser struct {
	lines []pline
	pos   int
	// defs are the complete primitives by the line they start on (for
	// SAME), placed the nodes whose extent a parent has set.
	defs   map[int]*Node
	placed map[*Node]bool
}

// setExtent sets the extent of child ch as its parent's parameters say:
// once, or again to the same value for a shared primitive.
func (ps *parser) setExtent(ch *Node, ext int64) error {
	if ps.placed[ch] && ch.Extent != ext {
		return ps.errf("a shared primitive has extent %d here and %d elsewhere", ext, ch.Extent)
	}
	if ps.placed == nil {
		ps.placed = map[*Node]bool{}
	}
	ch.Extent, ps.placed[ch] = ext, true
	return nil
}

func (ps *parser) errf(format string, a ...any) error {
	no := 0
	if ps.pos > 0 && ps.pos <= len(ps.lines) {
		no = ps.lines[ps.pos-1].no
	} else if len(ps.lines) > 0 {
		no = ps.lines[len(ps.lines)-1].no
	}
	return &SyntaxError{no, fmt.Sprintf(format, a...)}
}

func (ps *parser) peek() (string, []arg, error) {
	save := ps.pos
	n, a, err := ps.next()
	ps.pos = save
	return n, a, err
}

func (ps *parser) next() (string, []arg, error) {
	if ps.pos >= len(ps.lines) {
		ps.pos++
		return "", nil, ps.errf("unexpected end of program")
	}
	l := ps.lines[ps.pos].text
	ps.pos++
	k := strings.IndexByte(l, '(')
	if k < 0 {
		return l, nil, nil
	}
	if !strings.HasSuffix(l, ")") {
		return "", nil, ps.errf("missing ')'")
	}
	name := strings.TrimSpace(l[:k])
	body := l[k+1 : len(l)-1]
	var args []arg
	for body = strings.TrimSpace(body); body != ""; body = strings.TrimSpace(body) {
		var a arg
		if body[0] == '[' {
			e := strings.IndexByte(body, ']')
			if e < 0 {
				return "", nil, ps.errf("missing ']'")
			}
			a.list = []int64{}
			for _, f := range strings.Split(body[1:e], ",") {
				if f = strings.TrimSpace(f); f == "" {
					continue
				}
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return "", nil, ps.errf("bad integer %q", f)
				}
				a.list = append(a.list, v)
			}
			body = body[e+1:]
		} else {
			e := strings.IndexByte(body, ',')
			if e < 0 {
				e = len(body)
			}
			v, err := strconv.ParseInt(strings.TrimSpace(body[:e]), 10, 64)
			if err != nil {
				return "", nil, ps.errf("bad integer %q", strings.TrimSpace(body[:e]))
			}
			a.n = v
			body = body[e:]
		}
		args = append(args, a)
		body = strings.TrimSpace(body)
		if body != "" {
			if body[0] != ',' {
				return "", nil, ps.errf("expected ','")
			}
			body = body[1:]
		}
	}
	return name, args, nil
}

// shape checks that args are scalars (s) and lists (l) as in pattern.
func shape(args []arg, pattern string) bool {
	if len(args) != len(pattern) {
		return false
	}
	for i, c := range pattern {
		if (c == 'l') != (args[i].list != nil) {
			return false
		}
	}
	return true
}

// MaxDepth is the deepest program Parse accepts: one primitive per level
// of the deepest type tree package datatype builds.
const MaxDepth = datatype.MaxDepth + 1

func (ps *parser) node(depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, ps.errf("primitives nest deeper than %d", MaxDepth)
	}
	name, a, err := ps.peek()
	if err != nil {
		return nil, err
	}
	line := ps.lines[ps.pos].no
	if name == "SAME" {
		ps.pos++
		if !shape(a, "s") {
			return nil, ps.errf("want SAME(line)")
		}
		n := ps.defs[int(min(max(a[0].n, -1), 1<<31))]
		if n == nil {
			return nil, ps.errf("no complete primitive starts on line %d", a[0].n)
		}
		if depth+n.Depth > MaxDepth {
			return nil, ps.errf("primitives nest deeper than %d", MaxDepth)
		}
		return n, nil
	}
	n, err := ps.node1(depth)
	if err != nil {
		return nil, err
	}
	if n.Op != ContigFinal {
		if ps.defs == nil {
			ps.defs = map[int]*Node{}
		}
		ps.defs[line] = n
	}
	return n, nil
}

func (ps *parser) node1(depth int) (*Node, error) {
	name, a, err := ps.next()
	if err != nil {
		return nil, err
	}
	line := ps.lines[ps.pos-1].no
	var n *Node
	var innerSize, innerExt int64
	switch name {
	case "CONTIGFINAL":
		if !shape(a, "s") || a[0].n <= 0 {
			return nil, ps.errf("CONTIGFINAL(size) needs a positive size")
		}
		return leaf(a[0].n), nil
	case "CONTIG":
		if !shape(a, "sss") || a[0].n <= 0 {
			return nil, ps.errf("want CONTIG(count, size, extent)")
		}
		n = &Node{Op: Contig, Count: a[0].n}
		innerSize, innerExt = a[1].n, a[2].n
	case "VECTOR", "VECTOR1", "VECTORFINAL":
		if !shape(a, "sssss") || a[0].n <= 0 || a[1].n <= 0 {
			return nil, ps.errf("want %s(count, blocklen, stride, size, extent) with positive count and blocklen", name)
		}
		n = &Node{Op: Vector, Count: a[0].n, Blocklen: a[1].n, Stride: a[2].n}
		innerSize, innerExt = a[3].n, a[4].n
	case "BLOCKINDEX", "BLOCKINDEX1", "BLOCKINDEXFINAL":
		if !shape(a, "sslss") || a[1].n <= 0 || int64(len(a[2].list)) != a[0].n || a[0].n == 0 {
			return nil, ps.errf("want %s(count, blocklen, [disps], size, extent)", name)
		}
		n = &Node{Op: BlockIndex, Blocklen: a[1].n, Disps: a[2].list}
		innerSize, innerExt = a[3].n, a[4].n
	case "INDEX", "INDEXFINAL":
		if !shape(a, "sllss") || int64(len(a[1].list)) != a[0].n || len(a[2].list) != len(a[1].list) || a[0].n == 0 {
			return nil, ps.errf("want %s(count, [blocklens], [disps], size, extent)", name)
		}
		for _, b := range a[1].list {
			if b <= 0 {
				return nil, ps.errf("block lengths must be positive")
			}
		}
		n = &Node{Op: Index, Blocklens: a[1].list, Disps: a[2].list}
		innerSize, innerExt = a[3].n, a[4].n
	case "STRUCT":
		if !shape(a, "sllll") || a[0].n == 0 {
			return nil, ps.errf("want STRUCT(count, [blocklens], [disps], [sizes], [extents])")
		}
		c := a[0].n
		for _, l := range a[1:] {
			if int64(len(l.list)) != c {
				return nil, ps.errf("STRUCT lists must have count entries")
			}
		}
		for _, b := range a[1].list {
			if b <= 0 {
				return nil, ps.errf("block lengths must be positive")
			}
		}
		n = &Node{Op: Struct, Blocklens: a[1].list, Disps: a[2].list}
		for i := range c {
			rn, ra, err := ps.next()
			if err != nil {
				return nil, err
			}
			if rn != "RETURNTO" || !shape(ra, "s") || ra[0].n != int64(line) {
				return nil, ps.errf("want RETURNTO(%d)", line)
			}
			ch, err := ps.node(depth + 1)
			if err != nil {
				return nil, err
			}
			if ch.Size != a[3].list[i] {
				return nil, ps.errf("inner size %d of block %d differs from the subprogram's %d", a[3].list[i], i, ch.Size)
			}
			if err := ps.setExtent(ch, a[4].list[i]); err != nil {
				return nil, err
			}
			if bn, _, err := ps.next(); err != nil || bn != "BOTTOM" {
				return nil, ps.errf("subprogram must end with BOTTOM")
			}
			n.Children = append(n.Children, ch)
		}
		if err := sizeFits(n); err != nil {
			return nil, ps.errf("STRUCT: %v", err)
		}
		return n.Finish(), nil
	default:
		return nil, ps.errf("unknown primitive %q", name)
	}
	if nn, _, err := ps.peek(); err == nil && nn == "CONTIGCHILD" {
		ps.pos++
	}
	ch, err := ps.node(depth + 1)
	if err != nil {
		return nil, err
	}
	if ch.Size != innerSize {
		return nil, ps.errf("%s: inner size %d differs from the inner primitive's %d", name, innerSize, ch.Size)
	}
	if err := ps.setExtent(ch, innerExt); err != nil {
		return nil, err
	}
	n.Child = ch
	if err := sizeFits(n); err != nil {
		return nil, ps.errf("%s: %v", name, err)
	}
	n.Finish()
	if want := n.Name(); want != name && !(name == "VECTOR" && n.Op == Vector) && !(name == "BLOCKINDEX" && n.Op == BlockIndex) && !(name == "INDEX" && n.Op == Index) {
		return nil, ps.errf("%s should be %s", name, want)
	}
	return n, nil
}

// sizeFits checks that the packed size of n, whose children are parsed,
// fits in an int64 (finish computes it unchecked).
func sizeFits(n *Node) error {
	var s int64
	ok := true
	add := func(bl, size int64) {
		p, ok1 := mulOK(bl, size)
		s, ok = s+p, ok && ok1 && s <= math.MaxInt64-p
	}
	switch n.Op {
	case Contig:
		add(n.Count, n.Child.Size)
	case Vector:
		b, ok1 := mulOK(n.Count, n.Blocklen)
		ok = ok1
		add(b, n.Child.Size)
	case BlockIndex:
		b, ok1 := mulOK(int64(len(n.Disps)), n.Blocklen)
		ok = ok1
		add(b, n.Child.Size)
	case Index:
		for _, b := range n.Blocklens {
			add(b, n.Child.Size)
		}
	case Struct:
		for i, b := range n.Blocklens {
			add(b, n.Children[i].Size)
		}
	}
	if !ok {
		return fmt.Errorf("packed size overflows int64")
	}
	return nil
}

// mulOK is a*b for a, b >= 0 and whether it fits in an int64.
func mulOK(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}

func leaf(size int64) *Node { return &Node{Op: ContigFinal, Size: size, Extent: size} }
