package dame

import (
	"cmp"
	"math/bits"
	"slices"
)

// Budget bounds the work of Simplify and says when it runs. The zero
// Budget is CommitBudget.
type Budget struct {
	// Auto restricts Simplify to programs where it likely gains: programs
	// holding explicit lists of 16 to MaxBlocks blocks in all whose gaps
	// mostly repeat (hidden regular structure). Checking costs O(nodes +
	// blocks) and allocates nothing (but for structs of more than 16
	// distinct children); other programs are returned as they are.
	Auto bool
	// MaxBlocks bounds the blocks of the lists Auto hands to the rules.
	// Zero means 1024.
	MaxBlocks int
	// MaxProgram bounds the size of the program (nodes plus list entries);
	// larger programs are returned as they are. Zero means 2^14.
	MaxProgram int
	// MaxSeq is the longest sequence of blocks (or of groups of blocks at
	// a constant stride) reconstructed exactly. Zero means 64.
	MaxSeq int
	// Work bounds the total work of the exact reconstructions of one call,
	// in inner steps of the dynamic program (about n^3/6 for n entries,
	// some 0.5 ns each); runs that would exceed it are skipped. Zero means
	// 2^21 (about a millisecond).
	Work int64
}

// CommitBudget is the budget for simplifying every program at commit (ddt's
// NormalizeAlways): exact reconstruction of sequences of up to 64 blocks or
// groups, about a millisecond of exact work, programs of up to 2^14 nodes
// and list entries.
var CommitBudget = Budget{MaxProgram: 1 << 14, MaxSeq: 64, Work: 1 << 21}

// AutoBudget is CommitBudget restricted by the automatic policy (ddt's
// NormalizeAuto) to lists of at most 1024 blocks in all.
var AutoBudget = Budget{Auto: true, MaxBlocks: 1024, MaxProgram: 1 << 14, MaxSeq: 64, Work: 1 << 21}

// Simplify returns a program that moves exactly the bytes p moves, in the
// same packed order, and costs less in the additive cost model of seed 000
// (a leaf 2, a vector 4, an indexed list 3 plus an entry per block, ...),
// or p itself when it finds nothing cheaper within b. It never modifies p.
//
// It applies, bottom-up, the local rewrites of Compile together with those
// Compile does not apply — touching blocks of equal non-contiguous children
// merge, structs and lists nested in a struct block are inlined into it,
// lists whose children are equal become indexed nodes whatever their
// extents — and replaces each explicit list (BlockIndex, Index, Struct) of
// up to b.MaxSeq blocks, or of groups of blocks at a constant stride, by the
// least-cost tree of vectors, indexed, bucketed and struct nodes over its
// blocks (optimal reconstruction, seed 000/001, internal/recon), when that
// is cheaper.
//
// The result is checked before it is returned: the same packed size,
// extent and data bounds as p (the bytes a caller's buffers are checked
// against), or p is returned.
func Simplify(p *Program, b Budget) *Program {
	if p == nil || p.Root == nil {
		return p
	}
	if b.MaxBlocks <= 0 {
		b.MaxBlocks = 1024
	}
	if b.Auto && !irregular(p, 16, max(b.MaxBlocks, 16)) {
		return p
	}
	if b.MaxProgram <= 0 {
		b.MaxProgram = 1 << 14
	}
	if b.MaxSeq <= 0 {
		b.MaxSeq = 64
	}
	if b.Work <= 0 {
		b.Work = 1 << 21
	}
	if !rulesMayFire(p.Root) || progSize(p.Root, b.MaxProgram) > b.MaxProgram {
		return p
	}
	s := simplifier{b: b}
	root, off := s.node(p.Root)
	if root == p.Root || s.cost(root) >= s.cost(p.Root) {
		return p
	}
	q := &Program{Root: root, Off: p.Off + off, Size: p.Size, Extent: p.Extent, Depth: root.Depth}
	q.Align = min(root.align(), gcdPow2(q.Off), gcdPow2(q.Extent))
	// What memory safety rests on: the engines never reach past the data
	// bounds the caller's buffers are checked against.
	lo0, hi0, ok0 := bounds(p.Root, p.Off)
	lo, hi, ok := bounds(root, q.Off)
	if root.Size != p.Root.Size || !ok0 || !ok || lo != lo0 || hi != hi0 || q.Depth > MaxDepth {
		return p
	}
	return q
}

// rulesMayFire reports whether any rule of Simplify may apply to the tree
// under n: whether it holds a list, a Contig, or a Vector that Compile
// would have rewritten (programs from Parse). Programs of vectors that
// Compile built are final; checking costs O(depth) and allocates nothing.
func rulesMayFire(n *Node) bool {
	for ; n.Op != ContigFinal; n = n.Child {
		if n.Op != Vector || !vectorFinal(n) {
			return true
		}
	}
	return false
}

// vectorFinal reports whether no local rule applies at Vector node n:
// Compile built it (block length 1, more than one block, not touching
// copies of a leaf, not composing with a vector child).
func vectorFinal(n *Node) bool {
	if n.Blocklen != 1 || n.Count == 1 {
		return false
	}
	c := n.Child
	switch {
	case c.Op == ContigFinal && n.Stride == c.Size:
		return false
	case c.Op == Vector && c.Blocklen == 1 && n.Stride == c.Count*c.Stride:
		return false
	}
	return true
}

// progSize counts the nodes and list entries of the tree under n (shared
// nodes once per use), stopping once it passes limit.
func progSize(n *Node, limit int) int {
	s := 1 + len(n.Disps)
	switch {
	case n.Op == ContigFinal:
	case n.Op == Struct:
		for i, c := range n.Children {
			if s > limit {
				break
			}
			if i > 0 && c == n.Children[i-1] {
				s++
				continue
			}
			s += progSize(c, limit-s)
		}
	default:
		s += progSize(n.Child, limit-s)
	}
	return s
}

// DataBounds returns the bytes [lo, hi) one instance of the program
// touches, relative to the type's origin (lo == hi == 0 when it has no
// data), computed from the program in O(nodes + list entries); ok is false
// if that arithmetic overflows.
func (p *Program) DataBounds() (lo, hi int64, ok bool) {
	if p.Root == nil {
		return 0, 0, true
	}
	return bounds(p.Root, p.Off)
}

// bounds returns the bytes [lo, hi) that n, placed at off, touches, and
// false if computing them overflows.
func bounds(n *Node, off int64) (lo, hi int64, ok bool) {
	clo, chi, ok := nodeBounds(n)
	lo, ok1 := add(clo, off)
	hi, ok2 := add(chi, off)
	return lo, hi, ok && ok1 && ok2
}

func nodeBounds(n *Node) (lo, hi int64, ok bool) {
	// rep is the bounds of k copies of [lo, hi) step bytes apart.
	rep := func(lo, hi, k, step int64) (int64, int64, bool) {
		span, ok := mul(k-1, step)
		if !ok {
			return 0, 0, false
		}
		l, ok1 := add(lo, min(span, 0))
		h, ok2 := add(hi, max(span, 0))
		return l, h, ok1 && ok2
	}
	switch n.Op {
	case ContigFinal:
		return 0, n.Size, true
	case Contig, Vector:
		lo, hi, ok = nodeBounds(n.Child)
		if ok && n.Op == Vector && n.Blocklen > 1 {
			lo, hi, ok = rep(lo, hi, n.Blocklen, n.Child.Extent)
		}
		step := n.Stride
		if n.Op == Contig {
			step = n.Child.Extent
		}
		if ok {
			lo, hi, ok = rep(lo, hi, n.Count, step)
		}
		return lo, hi, ok
	}
	first := true
	var prev *Node
	var clo, chi int64
	for i, d := range n.Disps {
		c := n.ChildOf(i)
		if c != prev {
			if clo, chi, ok = nodeBounds(c); !ok {
				return 0, 0, false
			}
			prev = c
		}
		l, h, ok := rep(clo, chi, n.BlockLen(i), c.Extent)
		if !ok {
			return 0, 0, false
		}
		l, ok1 := add(l, d)
		h, ok2 := add(h, d)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		if first {
			lo, hi, first = l, h, false
		} else {
			lo, hi = min(lo, l), max(hi, h)
		}
	}
	return lo, hi, !first
}

func add(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(abs(a)), uint64(abs(b)))
	if hi != 0 || lo > 1<<62 {
		return 0, false
	}
	return a * b, true
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// irregular reports whether p still holds explicit block lists that an
// optimal reconstruction may shrink: lists of minBlocks to maxBlocks blocks
// in all (counting shared nodes once) whose gaps mostly repeat — at most a
// quarter of the consecutive gaps differ from the gap before them — as in
// a vector or a row and a column listed block by block in an order the
// local rewrites of Compile do not see through. Compile already merges
// touching blocks and turns runs of constant length and stride into
// vectors, so a list that reaches here regular is rare and worth the
// optimizer's tens of microseconds; random lists (the usual gather lists of
// applications) are not. It costs O(nodes + blocks), stops once the blocks
// pass maxBlocks, and allocates only for structs of more than 16 distinct
// children.
func irregular(p *Program, minBlocks, maxBlocks int) bool {
	if p.Root == nil {
		return false
	}
	var s listStats
	if !s.add(p.Root, maxBlocks) {
		return false
	}
	return s.entries >= minBlocks && s.breaks*4 <= s.entries
}

type listStats struct {
	entries, breaks int
	seen            [16]*Node // Struct children counted, the first few
	nseen           int
	seenMap         map[*Node]bool
}

// visit reports whether c was visited before and marks it.
func (s *listStats) visit(c *Node) bool {
	if s.seenMap != nil {
		if s.seenMap[c] {
			return true
		}
		s.seenMap[c] = true
		return false
	}
	for _, x := range s.seen[:s.nseen] {
		if x == c {
			return true
		}
	}
	if s.nseen < len(s.seen) {
		s.seen[s.nseen] = c
		s.nseen++
		return false
	}
	s.seenMap = map[*Node]bool{c: true}
	for _, x := range s.seen {
		s.seenMap[x] = true
	}
	return false
}

// add counts the lists of n's tree; it returns false once they pass max
// blocks.
func (s *listStats) add(n *Node, max int) bool {
	for {
		switch n.Op {
		case ContigFinal:
			return true
		case BlockIndex, Index, Struct:
			d := n.Disps
			s.entries += len(d)
			if s.entries > max {
				return false
			}
			for i := 2; i < len(d); i++ {
				if d[i]-d[i-1] != d[i-1]-d[i-2] {
					s.breaks++
				}
			}
		}
		if n.Op != Struct {
			n = n.Child
			continue
		}
		for i, c := range n.Children {
			if i > 0 && c == n.Children[i-1] {
				continue
			}
			if c.Op == ContigFinal || s.visit(c) {
				continue
			}
			if !s.add(c, max) {
				return false
			}
		}
		return true
	}
}

// Sorted is a list node's blocks in ascending order of displacement, with
// where each block's bytes lie in the packed stream: the plan of a
// displacement-sorted unpack (seed 003 §3.3, Fig. 14).
type Sorted struct {
	Disps  []int64 // memory displacements, ascending
	Packed []int64 // packed offset (within one instance) of each block
	Lens   []int64 // bytes of each block
}

// SortRule holds the thresholds of the displacement-sorting rule.
type SortRule struct {
	MinBlocks   int   // shorter lists have too little to gain
	MinSpan     int64 // memory spans below this stay in cache anyway
	MaxPacked   int64 // the out-of-order reads of the packed bytes must hit cache
	MinAvgBlock int64 // bytes per block on average
}

// DefaultSortRule is the rule the compiled engine applies. Measured on
// the project's 2-core AMD EPYC VM (go test -bench SortedUnpack
// ./internal/engine: 4096 blocks in random order, 8 or 64 bytes each, over
// 8 to 128 MiB), sorted unpack ran at 0.5-0.8x the list-order scatter
// kernels for 8-byte blocks and 0.9-1.2x for 64-byte blocks: the hardware
// absorbs random writes better than the paper's machines did, and the
// list-order path has vector scatter kernels. So the rule only fires for
// large blocks spread beyond the last-level cache.
var DefaultSortRule = SortRule{MinBlocks: 64, MinSpan: 64 << 20, MaxPacked: 1 << 20, MinAvgBlock: 64}

// UnpackOrder is the displacement-sorting rule (seed 003 §3.3, Fig. 14)
// with DefaultSortRule.
func UnpackOrder(n *Node) *Sorted { return DefaultSortRule.UnpackOrder(n) }

// UnpackOrder applies the rule to n: for a BlockIndex or Index node of a
// leaf whose displacements are mostly out of order, it returns the blocks
// sorted by displacement, so that unpack writes memory in ascending order
// and reads the (smaller, cached) packed bytes out of order. It returns nil
// where that does not pay or would be wrong: lists of fewer than MinBlocks
// blocks or of blocks under MinAvgBlock bytes on average, lists mostly in
// order (at most an eighth of the consecutive displacements descend),
// memory spans under MinSpan, packed sizes over MaxPacked, and blocks that
// overlap (unpack writes them in type-map order, which sorting would
// change). It costs O(n log n), once per plan.
func (r SortRule) UnpackOrder(n *Node) *Sorted {
	if (n.Op != BlockIndex && n.Op != Index) || !n.IsFinal() || n.Child.Extent != n.Child.Size {
		return nil
	}
	nb := len(n.Disps)
	if nb < r.MinBlocks || n.Size > r.MaxPacked || n.Size < r.MinAvgBlock*int64(nb) {
		return nil
	}
	descents := 0
	lo, hi := n.Disps[0], n.Disps[0]
	for i := 1; i < nb; i++ {
		if n.Disps[i] < n.Disps[i-1] {
			descents++
		}
		lo, hi = min(lo, n.Disps[i]), max(hi, n.Disps[i])
	}
	if descents*8 <= nb || hi-lo < r.MinSpan {
		return nil
	}
	buf := make([]int64, 3*nb)
	s := &Sorted{Disps: buf[:nb:nb], Packed: buf[nb : 2*nb : 2*nb], Lens: buf[2*nb:]}
	idx := make([]int32, nb)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		return cmp.Compare(n.Disps[a], n.Disps[b])
	})
	cs := n.Child.Size
	var q int64
	// packed offsets in list order, then permuted
	for i := range nb {
		L := n.Blocklen * cs
		if n.Op == Index {
			L = n.Blocklens[i] * cs
		}
		s.Packed[i], s.Lens[i] = q, L
		q += L
	}
	pk, ls := slices.Clone(s.Packed), slices.Clone(s.Lens)
	for k, i := range idx {
		s.Disps[k], s.Packed[k], s.Lens[k] = n.Disps[i], pk[i], ls[i]
		if k > 0 && s.Disps[k-1]+s.Lens[k-1] > s.Disps[k] {
			return nil // overlapping blocks
		}
	}
	return s
}
