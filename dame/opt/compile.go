// Package opt is the optimizer of DAME programs (package dame): Compile
// lowers a datatype into a program, applying the local rewrites as it
// builds each node, and Simplify rewrites a program within a Budget —
// further local rewrites and optimal reconstruction (seed 000/001,
// internal/recon) of its explicit lists — into a cheaper one that moves the
// same bytes in the same order.
//
// Every rule lives here once, in the rule table of rules.go; the cost model
// is internal/recon's DefaultCost and the budgets are the Budget values of
// this package. Built with the invariants tag (go test -tags invariants),
// every program is checked with dame.Validate after every rewrite.
package opt

import (
	"slices"
	"sync/atomic"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/smallmap"
)

// Compile lowers t into an optimized dame.Program. It never fails: every
// datatype has a program. Its cost is linear in the size of t's contents;
// the first two nodes of a program live in the dame.Program's allocation.
func Compile(t *datatype.Type) *dame.Program {
	pn := new(struct {
		p dame.Program
		n [2]dame.Node
	})
	CompileInto(&pn.p, pn.n[:0:len(pn.n)], nil, t)
	return &pn.p
}

// CompileInto is Compile into *p (which it overwrites), for callers that
// allocate the dame.Program together with their own data: the program's
// first nodes go into slab's spare capacity (slab must be empty and used
// for nothing else while p lives), further ones into new allocations;
// room, if not nil, takes the first short block list (it too must be used
// for nothing else while p lives).
func CompileInto(p *dame.Program, slab []dame.Node, room *ListRoom, t *datatype.Type) {
	p.Reset(t.Size(), t.Extent())
	if t.Size() == 0 {
		return
	}
	z := builder{slab: slab, room: room}
	n, off, ok := z.simple(t)
	if !ok {
		n, off, ok = z.basicStruct(t)
	}
	if !ok {
		// the memo lives on this frame, zeroed only for the types that
		// take the general path
		var m builtMemo
		n, off = z.build(t, &m)
	}
	p.SetRoot(n, off)
	checkProgram("Compile", p)
}

// simple builds, as build does, a type that is a vector, hvector or
// resized type of a predefined type of contiguous bytes (the commonest
// derived types; anchors L1, L2, L8), without build's dispatch and
// recursion: the node of old is its shared leaf, placed at old's data
// offset, which the rules then apply to as build would. ok is false for
// any other type. TestCommitGolden holds its programs to build's.
func (z *builder) simple(t *datatype.Type) (n *dame.Node, off int64, ok bool) {
	old := t.Old()
	if old == nil || old.Depth() != 0 || !old.IsContiguous() || old.Size() != old.Extent() || t.IsContiguous() {
		return nil, 0, false
	}
	off, _ = old.DataBounds()
	switch t.Combiner().Shape() {
	case datatype.ShapeStrided:
		count, bl, sb, _ := t.Strided()
		n = z.vector(count, bl, sb, z.leaf(old.Size()))
	case datatype.ShapeResized:
		n = z.leaf(old.Size())
	default:
		return nil, 0, false
	}
	return z.withExtent(n, t.Extent(), nil), off, true
}

// basicStruct builds, as build does, a struct whose blocks are of
// predefined types of contiguous bytes, or a resized type of one (a C
// struct as MPI describes it; anchor L7), without build's dispatch, memo
// and recursion: each block is its bytes, at its displacement plus the
// type's data offset, and the list of them is normalized as build's block
// list is (touching runs merge, then byteRuns). ok is false, before
// anything is built, for any other type. A struct of one block of one
// instance, which build returns as its member placed, comes out the same:
// the leaf of the member's bytes at that place. TestCommitGolden and
// TestDirectPathsMatchBuild hold its programs to build's.
func (z *builder) basicStruct(t *datatype.Type) (n *dame.Node, off int64, ok bool) {
	s := t
	if s.Combiner() == datatype.CombinerResized {
		s = s.Old()
	}
	if s.Combiner() != datatype.CombinerStruct {
		return nil, 0, false
	}
	bls, ds, types := s.Lists()
	for i, m := range types {
		if bls[i] != 0 && m.Size() != 0 && !basicBytes(m) {
			return nil, 0, false
		}
	}
	var bs blockList
	bs.init(len(ds), z.room)
	for i, m := range types {
		if bls[i] == 0 || m.Size() == 0 {
			continue
		}
		lo, _ := m.DataBounds()
		bs.add(ds[i], bls[i], z.leaf(m.Size()), lo)
	}
	n, off = bs.node(z)
	n = z.withExtent(n, t.Extent(), nil)
	if invariants {
		checkNode("Compile (struct of predefined types)", n, off)
	}
	return n, off, true
}

// basicBytes reports whether m is a predefined type whose instance is its
// bytes: build makes it one leaf of m.Size() bytes and extent, which a
// block of m lists as bytes.
func basicBytes(m *datatype.Type) bool {
	return m.Depth() == 0 && m.IsContiguous() && m.Size() == m.Extent()
}

// builder allocates the nodes of one program in slabs, the first one
// inside the dame.Program. Nodes never move: a full slab is left as it is and a
// new one started.
//
// A type used more than once (only a struct's list of types can name one
// twice, directly or below) is built once: from the first struct of
// several blocks on, the memo (builtMemo, which build passes down) keeps
// the node of every type built, and the program shares it (a DAG) instead
// of expanding it, so that compiling costs time and memory linear in the
// type's description, not in its expanded tree (t_i = struct of t_{i-1}
// twice doubles the tree per level). A shared node is never changed again
// (withExtent copies it).
type builder struct {
	slab []dame.Node
	room *ListRoom // room for the first short block list, or nil
	// big is the last leaf of len(sharedLeaves) bytes or more allocated:
	// leaves never change once built, so the next one of its size is it
	// (a struct's contiguous member, listed as bytes, is rebuilt as its
	// block's leaf: one node, not two).
	big *dame.Node
}

// builtMemo is the builder's memo: off until the first struct, then the
// node of every type built, and which nodes it holds (frozen: shared, so
// never changed in place).
type builtMemo struct {
	on     bool
	byType smallmap.Map[*datatype.Type, built]
	frozen smallmap.Map[*dame.Node, bool]
}

// get and holds take a nil memo as an empty one.
func (m *builtMemo) get(t *datatype.Type) (built, bool) {
	if m == nil {
		return built{}, false
	}
	return m.byType.Get(t)
}

func (m *builtMemo) holds(n *dame.Node) bool {
	if m == nil {
		return false
	}
	_, ok := m.frozen.Get(n)
	return ok
}

func (m *builtMemo) put(t *datatype.Type, b built) {
	m.byType.Put(t, b)
	if !m.holds(b.n) {
		m.frozen.Put(b.n, true)
	}
}

// built is the node of a type and the displacement of its origin.
type built struct {
	n   *dame.Node
	off int64
}

func (z *builder) alloc(n dame.Node) *dame.Node {
	if len(z.slab) == cap(z.slab) {
		z.slab = make([]dame.Node, 0, min(max(2*cap(z.slab), 4), 64))
	}
	z.slab = append(z.slab, n)
	return &z.slab[len(z.slab)-1]
}

func (z *builder) leaf(size int64) *dame.Node {
	if size > 0 && size < int64(len(sharedLeaves)) {
		return sharedLeaf(size)
	}
	if z.big != nil && z.big.Size == size {
		return z.big
	}
	z.big = z.alloc(dame.Node{Op: dame.ContigFinal, Size: size, Extent: size})
	return z.big
}

// byteLeaf is the one-byte leaf a block list lists blocks of bytes with.
var byteLeaf = sharedLeaf(1)

// sharedLeaves are the leaves of fewer than 4096 bytes (basic types,
// rows, blocks), made on first use and shared by all programs (nodes are
// immutable once built; build, which sets the Extent of the node it
// returns, copies a shared leaf first): at most 4095 of them ever exist,
// and a program's first nodes then fit inside it.
var sharedLeaves [4096]atomic.Pointer[dame.Node]

func sharedLeaf(size int64) *dame.Node {
	p := &sharedLeaves[size]
	if l := p.Load(); l != nil {
		return l
	}
	l := &dame.Node{Op: dame.ContigFinal, Size: size, Extent: size}
	if p.CompareAndSwap(nil, l) {
		return l
	}
	return p.Load()
}

// withExtent returns n with its Extent set to ext: n itself, or for a
// shared leaf of another extent, or a node memo holds, a copy (memo may be
// nil).
func (z *builder) withExtent(n *dame.Node, ext int64, memo *builtMemo) *dame.Node {
	if n.Extent == ext {
		return n
	}
	if n.Op == dame.ContigFinal {
		return z.alloc(dame.Node{Op: dame.ContigFinal, Size: n.Size, Extent: ext})
	}
	if memo.holds(n) {
		c := z.alloc(*n)
		c.Extent = ext
		return c
	}
	n.Extent = ext
	return n
}

func leaf(size int64) *dame.Node { return &dame.Node{Op: dame.ContigFinal, Size: size, Extent: size} }

// build returns the node of one instance of t, whose origin lies off bytes
// from t's origin, or nil if t has no data. The node's Extent is t's extent.
//
// memo is the compilation's memo (see builder); it is passed down rather
// than kept in the builder so that it stays on CompileInto's frame, which
// the direct paths (simple, basicStruct) leave unzeroed.
func (z *builder) build(t *datatype.Type, memo *builtMemo) (*dame.Node, int64) {
	if t.Size() == 0 {
		return nil, 0
	}
	if b, ok := memo.get(t); ok {
		return b.n, b.off
	}
	n, off := z.build1(t, memo)
	n = z.withExtent(n, t.Extent(), memo)
	if invariants {
		checkNode("Compile ("+t.Combiner().String()+")", n, off)
	}
	if memo.on {
		memo.put(t, built{n, off})
	}
	return n, off
}

func (z *builder) build1(t *datatype.Type, memo *builtMemo) (*dame.Node, int64) {
	if t.IsContiguous() {
		lo, _ := t.DataBounds()
		return z.leaf(t.Size()), lo
	}
	switch t.Combiner().Shape() {
	case datatype.ShapeBlocks:
		if n, off, ok := z.indexedRuns(t, memo); ok {
			return n, off
		}
	case datatype.ShapeResized:
		return z.build(t.Old(), memo)
	case datatype.ShapeStrided:
		count, bl, sb, _ := t.Strided()
		c, off := z.build(t.Old(), memo)
		return z.vector(count, bl, sb, c), off
	}
	var a datatype.Args // the lists and the block length, all the cases below use
	byteDisps := false  // a.Displacements are in bytes (datatype.Type.ByteLists)
	if bls, bds, ok := t.ByteLists(); ok {
		a.Blocklengths, a.Displacements, a.Types, byteDisps = bls, bds, []*datatype.Type{t.Old()}, true
	} else {
		a.Blocklengths, a.Displacements, a.Types = t.Lists()
	}
	_, a.Blocklength, _ = t.Scalars()
	switch t.Combiner().Shape() {
	case datatype.ShapeNamed:
		var bs blockList
		bs.init(2, z.room)
		t.Walk(1, func(b datatype.Basic, d int64) bool {
			bs.add(d, 1, z.leaf(b.Size()), 0)
			return true
		})
		return bs.node(z)
	case datatype.ShapeLowered:
		return z.build(t.Lower(), memo)
	case datatype.ShapeBlocks:
		old := a.Types[0]
		scale := t.BlockUnit()
		if byteDisps {
			scale = 1
		}
		c, off := z.build(old, memo)
		if c == nil {
			return nil, 0 // unreachable: t has data, so old has
		}
		if c.Op == dame.ContigFinal && (c.Extent == c.Size || maxBlocklen(a) <= 1) {
			st, ok := t.BlockStats()
			// the statistics count touching blocks in extents of old
			ok = ok && old.Extent() == c.Size
			return z.leafRuns(a, scale, off, c.Size, st, ok)
		}
		if len(a.Displacements) == 1 && (a.Blocklengths == nil && a.Blocklength == 1 || a.Blocklengths != nil && a.Blocklengths[0] == 1) {
			return c, a.Displacements[0]*scale + off // one instance of old, placed (subarray, darray)
		}
		var bs blockList
		bs.init(len(a.Displacements), z.room)
		for i, d := range a.Displacements {
			bl := a.Blocklength
			if a.Blocklengths != nil {
				bl = a.Blocklengths[i]
			}
			bs.add(d*scale, bl, c, off)
		}
		return bs.node(z)
	case datatype.ShapeStruct:
		if len(a.Displacements) == 1 && a.Blocklengths[0] == 1 {
			c, off := z.build(a.Types[0], memo)
			return c, a.Displacements[0] + off
		}
		memo.on = true
		var bs blockList
		bs.init(len(a.Displacements), z.room)
		for i, d := range a.Displacements {
			if a.Blocklengths[i] == 0 || a.Types[i].Size() == 0 {
				continue
			}
			c, off := z.build(a.Types[i], memo)
			bs.add(d, a.Blocklengths[i], c, off)
		}
		return bs.node(z)
	}
	panic("dame: unknown combiner " + t.Combiner().String())
}

// The rules of a vector node: count blocks of bl instances of c (c.Extent
// apart), stride bytes apart. vectorRule is the rule table: it names the
// first rule that rewrites such a node, and vector applies it; a VECTOR
// node of the program is final (vectorFinal) exactly when no rule fires.
const (
	vecFinal      = iota // no rule: a VECTOR of one instance per block
	vecIntoLeaf          // contiguous bytes merge into the block length; touching blocks into one leaf
	vecBlockInner        // a block of bl > 1 instances is an inner vector
	vecCountOne          // one block of one instance is the child itself
	vecCollapse          // nested vectors whose strides compose collapse
)

// vectorRule returns the first rule of the table that rewrites a vector
// of count blocks of bl instances of c, stride bytes apart, or vecFinal.
func vectorRule(count, bl, stride int64, c *dame.Node) int {
	switch {
	case isBytes(c) && (bl == 1 || c.Extent == c.Size) && (bl > 1 || count == 1 || stride == c.Size):
		return vecIntoLeaf
	case bl > 1:
		return vecBlockInner
	case count == 1:
		return vecCountOne
	case c.Op == dame.Vector && c.Blocklen == 1 && stride == c.Count*c.Stride:
		return vecCollapse
	}
	return vecFinal
}

// isBytes reports whether c is a leaf of plain bytes, which the rules
// merge with touching bytes; a symbol leaf (dame.Node.Sym) is opaque.
func isBytes(c *dame.Node) bool { return c.Op == dame.ContigFinal && c.Sym == 0 }

// vector returns the normalized node of count blocks of bl instances of c
// (c.Extent apart), stride bytes apart; c is not nil and count, bl > 0
// unless the type has no data (then the caller never gets here).
func (z *builder) vector(count, bl, stride int64, c *dame.Node) *dame.Node {
	switch vectorRule(count, bl, stride, c) {
	case vecIntoLeaf:
		L := bl * c.Size
		if count == 1 || stride == L {
			return z.leaf(count * L)
		}
		return z.alloc(dame.Node{Op: dame.Vector, Count: count, Blocklen: 1, Stride: stride, Child: z.leaf(L)}).Finish()
	case vecBlockInner:
		inner := z.withExtent(z.vector(bl, 1, c.Extent, c), c.Extent*bl, nil) // a new node or a leaf // not used for bl == 1 parents
		return z.vector(count, 1, stride, inner)
	case vecCountOne:
		return c
	case vecCollapse:
		return z.alloc(dame.Node{Op: dame.Vector, Count: count * c.Count, Blocklen: 1, Stride: c.Stride, Child: c.Child}).Finish()
	}
	if isBytes(c) && c.Extent != c.Size {
		c = z.leaf(c.Size) // a row under a column keeps c itself: no second node
	}
	return z.alloc(dame.Node{Op: dame.Vector, Count: count, Blocklen: 1, Stride: stride, Child: c}).Finish()
}

// blockList collects the blocks of an indexed or struct type before they
// are normalized into one node.
type blockList struct {
	disps, bls []int64
	// kids are the blocks' children; nil while every block has the child
	// one (indexed types), so that no list of n equal pointers is made.
	kids []*dame.Node
	one  *dame.Node
	// spare is the room for kids allocated with the lists (small lists).
	spare []*dame.Node
}

// smallBlocks is the most blocks whose list of children newBlockList
// allocates with the lists.
const smallBlocks = 4

// newBlockList returns a list with room for n blocks in one allocation
// (and for more than smallBlocks one more for the children once they
// differ).
func newBlockList(n int) blockList {
	var b blockList
	b.init(n, nil)
	return b
}

// ListRoom is room for a program's first short block list (up to four
// blocks: a small struct's), which a caller of CompileInto allocates
// with the program so that such a program costs no allocation of its own.
type ListRoom struct {
	ints [2 * smallBlocks]int64
	kids [smallBlocks]*dame.Node
	used bool
}

// init makes b (empty) a list of n blocks as newBlockList does, taking
// room r if n fits and r is unused (r may be nil). It sets b's fields in
// place: a blockList returned by value is copied 16 bytes at a time from
// the 8-byte stores that wrote it, a stalled store forward each.
func (b *blockList) init(n int, r *ListRoom) {
	if n <= smallBlocks && r != nil && !r.used {
		r.used = true
		b.disps, b.bls, b.spare = r.ints[:0:n], r.ints[n:n:2*n], r.kids[:0:n]
		return
	}
	if n <= smallBlocks {
		s := new(struct {
			ints [2 * smallBlocks]int64
			kids [smallBlocks]*dame.Node
		})
		b.disps, b.bls, b.spare = s.ints[:0:n], s.ints[n:n:2*n], s.kids[:0:n]
		return
	}
	buf := make([]int64, 2*n)
	b.disps, b.bls = buf[:0:n], buf[n:n:2*n]
}

// kid is the child of block i.
func (b *blockList) kid(i int) *dame.Node {
	if b.kids == nil {
		return b.one
	}
	return b.kids[i]
}

func (b *blockList) add(disp, bl int64, c *dame.Node, off int64) {
	if bl == 0 || c == nil {
		return
	}
	if isBytes(c) && (bl == 1 || c.Extent == c.Size) {
		// bytes: a block of bl*c.Size bytes, listed with the shared
		// one-byte leaf so that blocks of basic types of different sizes
		// (a struct) share one child and need no list of children
		bl, c = bl*c.Size, byteLeaf
	}
	switch {
	case b.one == nil:
		b.one = c
	case b.kids != nil:
		b.kids = append(b.kids, c)
	case c != b.one:
		// the first block of another child: list them all
		if cap(b.spare) >= cap(b.disps) {
			b.kids = b.spare[:0]
		} else {
			b.kids = make([]*dame.Node, 0, cap(b.disps))
		}
		for range b.disps {
			b.kids = append(b.kids, b.one)
		}
		b.kids = append(b.kids, c)
	}
	b.disps = append(b.disps, disp+off)
	b.bls = append(b.bls, bl)
}

// node normalizes the blocks: contiguous children become byte runs, touching
// runs merge, runs of equal length and constant stride become a vector, and
// blocks of equal children become an indexed (or blockindexed, or vector)
// node. It returns the node and the displacement of its origin.
func (b *blockList) node(z *builder) (*dame.Node, int64) { return b.normalize(z, false) }

// normalize is node; with mergeAll, touching blocks of equal children that
// are not bytes merge too (a rule of Simplify).
func (b *blockList) normalize(z *builder, mergeAll bool) (*dame.Node, int64) {
	n := len(b.disps)
	bytesOnly := true
	for i := range n {
		if c := b.kid(i); !isBytes(c) || (b.bls[i] > 1 && c.Extent != c.Size) {
			bytesOnly = false
			break
		}
	}
	if bytesOnly {
		// runs of bytes, written over the lists (run k <= block i)
		ds, ls := b.disps[:0], b.bls[:0]
		for i := range n {
			d, L := b.disps[i], b.bls[i]*b.kid(i).Size
			if k := len(ds) - 1; k >= 0 && ds[k]+ls[k] == d {
				ls[k] += L // merge touching blocks
				continue
			}
			ds, ls = append(ds, d), append(ls, L)
		}
		return z.byteRuns(ds, ls)
	}
	if mergeAll && b.kids != nil {
		b.mergeVectors(z)
		n = len(b.disps)
	}
	same := true
	for i := 1; i < n && b.kids != nil; i++ {
		if !dame.Equal(b.kids[i], b.kids[0]) && !(mergeAll && b.bls[0] == 1 && b.bls[i] == 1 && sameMoves(b.kids[i], b.kids[0])) {
			same = false
			break
		}
	}
	if !same {
		for i, c := range b.kids {
			if c == byteLeaf {
				b.kids[i], b.bls[i] = z.leaf(b.bls[i]), 1 // one leaf of the block's bytes
			}
		}
		return z.alloc(dame.Node{Op: dame.Struct, Blocklens: b.bls, Disps: b.disps, Children: b.kids}).Finish(), 0
	}
	if mergeAll {
		ds, bls, ext := b.disps[:1], b.bls[:1], b.kid(0).Extent
		for i := 1; i < n; i++ {
			k := len(ds) - 1
			if ds[k]+bls[k]*ext == b.disps[i] {
				bls[k] += b.bls[i] // block i continues block k
				continue
			}
			ds, bls = append(ds, b.disps[i]), append(bls, b.bls[i])
		}
		b.disps, b.bls = ds, bls
	}
	return z.indexed(b.disps, b.bls, b.kid(0))
}

// run is count copies of x, stride apart: a block of one instance as the
// rule "touching runs of one child at one stride merge" sees it.
type run struct {
	x             *dame.Node
	count, stride int64
}

// runOf is the run of a block of bl instances of c: count copies of the
// child of a vector of one instance per block, one copy of another node;
// false for blocks of several instances.
func runOf(c *dame.Node, bl int64) (run, bool) {
	switch {
	case bl != 1:
		return run{}, false
	case c.Op == dame.Vector && c.Blocklen == 1:
		return run{c.Child, c.Count, c.Stride}, true
	}
	return run{c, 1, 0}, true
}

// continues returns run a followed by run b, which starts d bytes after
// a, as one run, if b continues a's stride with copies of an equal child
// (two single copies never form a run here: reconstruction groups those).
func continues(a, b run, d int64) (run, bool) {
	if !dame.Equal(a.x, b.x) {
		return run{}, false
	}
	switch {
	case a.count >= 2 && d == a.count*a.stride && (b.count == 1 || b.stride == a.stride):
		return run{a.x, a.count + b.count, a.stride}, true
	case a.count == 1 && b.count >= 2 && d == b.stride:
		return run{a.x, b.count + 1, b.stride}, true
	}
	return run{}, false
}

// mergeVectors applies the rule that touching runs of one child at one
// stride merge (a rule of Simplify; see continues): consecutive blocks
// whose runs continue one another become one vector. Each merge saves a
// list entry, and a vector when two vectors merge. The lists are rewritten
// in place.
func (b *blockList) mergeVectors(z *builder) {
	unit := func(i int) (run, bool) {
		if c := b.kids[i]; c == byteLeaf && b.bls[i] != 1 {
			return run{z.leaf(b.bls[i]), 1, 0}, true
		}
		return runOf(b.kids[i], b.bls[i])
	}
	k := 0 // blocks kept: 0..k
	prev, ok := unit(0)
	merged := false
	for i := 1; i < len(b.disps); i++ {
		cur, ok2 := unit(i)
		if ok && ok2 {
			if r, yes := continues(prev, cur, b.disps[i]-b.disps[k]); yes {
				prev, merged = r, true
				continue
			}
		}
		if merged {
			b.kids[k], b.bls[k] = z.vector(prev.count, 1, prev.stride, prev.x), 1
		}
		k++
		b.disps[k], b.bls[k], b.kids[k] = b.disps[i], b.bls[i], b.kids[i]
		prev, ok, merged = cur, ok2, false
	}
	if merged {
		b.kids[k], b.bls[k] = z.vector(prev.count, 1, prev.stride, prev.x), 1
	}
	b.disps, b.bls, b.kids = b.disps[:k+1], b.bls[:k+1], b.kids[:k+1]
}

// sameMoves reports whether a and b move the same bytes, whatever their
// own extents (which matter only to blocks of several instances).
func sameMoves(a, b *dame.Node) bool { return dame.SameMoves(a, b) }

// maxBlocklen is the largest block length of an indexed type's arguments.
func maxBlocklen(a datatype.Args) int64 {
	if a.Blocklengths == nil {
		return a.Blocklength
	}
	var m int64
	for _, b := range a.Blocklengths {
		m = max(m, b)
	}
	return m
}

// indexed returns the node of blocks of bls[i] instances of c at ds[i].
func (z *builder) indexed(ds, bls []int64, c *dame.Node) (*dame.Node, int64) {
	if len(ds) == 1 {
		if bls[0] == 1 {
			return c, ds[0]
		}
		return z.vector(1, bls[0], 0, c), ds[0]
	}
	if constant(bls) {
		if s, ok := constStride(ds); ok {
			return z.vector(int64(len(ds)), bls[0], s, c), ds[0]
		}
		if bls[0] > 1 {
			// blocks of a vector of children
			inner := z.vector(bls[0], 1, c.Extent, c)
			return z.alloc(dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: ds, Child: inner}).Finish(), 0
		}
		return z.alloc(dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: ds, Child: c}).Finish(), 0
	}
	return z.alloc(dame.Node{Op: dame.Index, Blocklens: slices.Clone(bls), Disps: ds, Child: c}).Finish(), 0
}

func constant(xs []int64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func constStride(ds []int64) (int64, bool) {
	s := ds[1] - ds[0]
	for i := 2; i < len(ds); i++ {
		if ds[i]-ds[i-1] != s {
			return 0, false
		}
	}
	return s, true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// indexedRuns compiles an indexed type of a leaf whose lists the type keeps
// as runs (datatype.Type.Runs) without writing the lists out, when they
// form a few segments; ok is false otherwise (Args then has the lists).
func (z *builder) indexedRuns(t *datatype.Type, memo *builtMemo) (*dame.Node, int64, bool) {
	bls, ds, ok := t.Runs()
	if !ok {
		return nil, 0, false
	}
	old := t.Old()
	c, off := z.build(old, memo)
	if c == nil || c.Op != dame.ContigFinal {
		return nil, 0, false
	}
	_, bl, _ := t.Scalars()
	maxBL := bl
	if bls != nil {
		maxBL = 0
		for _, r := range bls {
			maxBL = max(maxBL, r.Start, r.Start+(r.Count-1)*r.Step)
		}
	}
	if c.Extent != c.Size && maxBL > 1 {
		return nil, 0, false
	}
	scale := t.BlockUnit()
	var n int64
	for _, r := range ds {
		n += r.Count
	}
	return z.runSegments(bls, ds, bl, n, scale, off, c.Size)
}
