// Package dame is the program a committed datatype compiles to: a tree of
// the data-movement primitives of the DAME language (Prabhu and Gropp,
// "DAME: Runtime-compilation for data movement", seed 003), its text form
// and its invariants (Validate).
//
// A Program is to a datatype what regexp/syntax.Prog is to a regular
// expression. Package dame/opt builds it (opt.Compile lowers a
// *datatype.Type into it, applying the local rewrites) and rewrites it
// (opt.Simplify); this package only defines it and caches what packing
// needs: the packed size of every node and the packed offset of every 64th
// block of a list, so that any byte of the packed stream can be found in
// O(depth · (log n + 64)). The engines under internal/engine execute it.
//
// The text form (String, Parse) follows the paper's grammar (Fig. 5): the
// program starts with EXIT and ends with BOTTOM; each primitive is written
// top-down, indented by depth, and carries the constructor's parameters
// followed by the size and extent of its inner type. See Parse for the
// grammar.
package dame

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/ddtlab/ddt/internal/smallmap"
)

// Op is a primitive of a Program node.
type Op uint8

// Node operations. The Final forms (VECTORFINAL, ...) and the Block1 forms
// (VECTOR1, BLOCKINDEX1) of the paper are not separate ops: a node is final
// when its child is a ContigFinal leaf, and Block1 when its block length is 1;
// the text form spells them out.
const (
	// ContigFinal moves Size contiguous bytes at the node's origin.
	ContigFinal Op = iota
	// Contig is Count instances of Child, Child.Extent apart.
	Contig
	// Vector is Count blocks of Blocklen instances of Child (Child.Extent
	// apart), the blocks Stride bytes apart.
	Vector
	// BlockIndex is Count blocks of Blocklen instances of Child at the byte
	// displacements Disps.
	BlockIndex
	// Index is blocks of Blocklens[i] instances of Child at byte displacements Disps[i].
	Index
	// Struct is blocks of Blocklens[i] instances of Children[i] at byte
	// displacements Disps[i].
	Struct
)

var opNames = [...]string{"CONTIGFINAL", "CONTIG", "VECTOR", "BLOCKINDEX", "INDEX", "STRUCT"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Node is one primitive of a Program. Nodes are immutable once the Program
// is built; Children of a Struct may share nodes.
type Node struct {
	Op Op
	// hasOr is set when dispsOr holds the OR of Disps (see below; it sits
	// here, beside Op, to keep nodes small).
	hasOr bool
	// Sym, when nonzero, makes a ContigFinal leaf an opaque symbol: Size
	// bytes that the rewrite rules repeat but never merge with other bytes
	// (package optimal normalizes typed trees through the rules of
	// dame/opt with one symbol per basic type). Compile never sets it; the
	// text form does not show it.
	Sym       uint16
	Count     int64   // Contig, Vector, BlockIndex: number of blocks (instances for Contig)
	Blocklen  int64   // Vector, BlockIndex: child instances per block
	Stride    int64   // Vector: bytes between block starts
	Blocklens []int64 // Index, Struct
	Disps     []int64 // BlockIndex, Index, Struct: byte displacements of the blocks
	Child     *Node   // Contig, Vector, BlockIndex, Index
	Children  []*Node // Struct, one per block

	// Size is the number of packed bytes of one instance; for ContigFinal
	// the number of bytes it moves.
	Size int64
	// Extent is the distance between consecutive instances of this node
	// inside a block of its parent.
	Extent int64
	// Depth is 0 for ContigFinal and one more than the deepest child otherwise.
	Depth int

	// marks points, for Index and Struct of more than markEvery blocks,
	// to the packed offset of every markEvery-th block (block k*markEvery
	// at (*marks)[k]), written on first use (see markTable): BlockOffset
	// and FindBlock scan at most markEvery-1 block lengths from a mark, and
	// building the node makes no pass over the blocks beyond its size.
	marks unsafe.Pointer // *[]int64
	// dispsOr is the OR of Disps when hasOr is set (the builder computed
	// it while listing the blocks), for align.
	dispsOr uint64
}

// markEvery is the number of blocks between marks: a power of two.
const markEvery = 64

// Program is a committed type as DAME primitives: count instances of the
// type are count instances of Root at Off + i*Extent.
type Program struct {
	Root   *Node // nil when the type has no data
	Off    int64 // byte displacement of Root's origin from the type's origin
	Size   int64 // packed bytes of one instance
	Extent int64 // extent of the type: spacing of instances
	Depth  int
	// Align is the largest power of two up to 16 that divides every
	// displacement, stride, extent and move length of the program: with an
	// Align-aligned buffer every move is Align-aligned.
	Align int64
}

// IsFinal reports whether n's child is a ContigFinal leaf (the paper's Final primitives).
func (n *Node) IsFinal() bool { return n.Child != nil && n.Child.Op == ContigFinal }

// NumBlocks is the number of blocks (loop iterations) of n.
func (n *Node) NumBlocks() int64 {
	switch n.Op {
	case ContigFinal:
		return 1
	case Contig, Vector, BlockIndex:
		if n.Op == BlockIndex {
			return int64(len(n.Disps))
		}
		return n.Count
	}
	return int64(len(n.Disps))
}

// BlockLen returns the number of child instances of block i.
func (n *Node) BlockLen(i int) int64 {
	switch n.Op {
	case Contig:
		return 1
	case Vector, BlockIndex:
		return n.Blocklen
	}
	return n.Blocklens[i]
}

// ChildOf returns the child of block i.
func (n *Node) ChildOf(i int) *Node {
	if n.Op == Struct {
		return n.Children[i]
	}
	return n.Child
}

// BlockDisp returns the byte displacement of block i.
func (n *Node) BlockDisp(i int64) int64 {
	switch n.Op {
	case Contig:
		return i * n.Child.Extent
	case Vector:
		return i * n.Stride
	}
	return n.Disps[i]
}

// BlockOffset returns the packed offset of block i within one instance.
// For Index and Struct it costs up to 63 additions (the packed offsets of
// every 64th block are cached).
func (n *Node) BlockOffset(i int64) int64 {
	switch n.Op {
	case Contig:
		return i * n.Child.Size
	case Vector, BlockIndex:
		return i * n.Blocklen * n.Child.Size
	}
	k := i / markEvery
	var s int64
	if k > 0 {
		s = n.markTable()[k]
	}
	return s + n.sizeOf(k*markEvery, i)
}

// sizeOf is the packed size of blocks [i, j) of an Index or Struct node:
// a loop of one multiply-add per block (the child's size read once for
// an Index).
func (n *Node) sizeOf(i, j int64) int64 {
	var s int64
	lens := n.Blocklens[i:j]
	if n.Op == Struct {
		cs := n.Children[i:j]
		cs = cs[:len(lens)]
		for k, b := range lens {
			s += b * cs[k].Size
		}
		return s
	}
	for _, b := range lens {
		s += b
	}
	return s * n.Child.Size
}

// blockSize is the packed size of block i of an Index or Struct node.
func (n *Node) blockSize(i int64) int64 {
	if n.Op == Struct {
		return n.Blocklens[i] * n.Children[i].Size
	}
	return n.Blocklens[i] * n.Child.Size
}

// markTable returns the marks of an Index or Struct node (see Node.marks),
// nil when it has at most markEvery blocks. The first call computes them;
// calls racing with it compute equal tables, and one of them stays.
func (n *Node) markTable() []int64 {
	nb := len(n.Disps)
	if nb <= markEvery {
		return nil
	}
	if p := atomic.LoadPointer(&n.marks); p != nil {
		return *(*[]int64)(p)
	}
	marks := make([]int64, (nb+markEvery-1)/markEvery)
	var s int64
	for i := range int64(nb) {
		if i%markEvery == 0 {
			marks[i/markEvery] = s
		}
		s += n.blockSize(i)
	}
	atomic.StorePointer(&n.marks, unsafe.Pointer(&marks))
	return marks
}

// FindBlock returns the block holding packed byte off (0 <= off < Size).
func (n *Node) FindBlock(off int64) int64 {
	i, _ := n.FindBlockOffset(off)
	return i
}

// FindBlockOffset returns the block holding packed byte off (0 <= off <
// Size) and its packed offset.
func (n *Node) FindBlockOffset(off int64) (int64, int64) {
	var i int64
	switch n.Op {
	case Contig:
		i = off / n.Child.Size
		return i, i * n.Child.Size
	case Vector, BlockIndex:
		bs := n.Blocklen * n.Child.Size
		i = off / bs
		return i, i * bs
	}
	// the last mark <= off, then the first block after it ending past off
	// (so not empty)
	var k int
	var s int64
	if marks := n.markTable(); marks != nil {
		k = lastMark(marks, off, n.Size)
		s = marks[k]
	}
	nb := int64(len(n.Disps))
	i = int64(k) * markEvery
	lens := n.Blocklens[i:nb]
	if n.Op == Struct {
		cs := n.Children[i:nb]
		cs = cs[:len(lens)]
		j := 0
		for ; j+1 < len(lens); j++ {
			e := s + lens[j]*cs[j].Size
			if e > off {
				break
			}
			s = e
		}
		return i + int64(j), s
	}
	c := n.Child.Size
	j := 0
	for ; j+1 < len(lens); j++ {
		e := s + lens[j]*c
		if e > off {
			break
		}
		s = e
	}
	return i + int64(j), s
}

// lastMark returns the last k with marks[k] <= off (marks ascending,
// marks[0] = 0 <= off, size the packed size the marks run up to). It
// starts at the mark the average block size predicts and gallops from
// there to a bracket it then halves: a few loads, mostly from the same
// cache lines, for lists whose blocks are of about one size, and no more
// than twice a binary search's for any other.
func lastMark(marks []int64, off, size int64) int {
	m := len(marks)
	k := 0
	if size > 0 && off < size && off <= math.MaxInt64/int64(m) {
		k = min(int(off*int64(m)/size), m-1)
	}
	lo, hi := 0, m // marks[lo] <= off; hi == m or marks[hi] > off
	if marks[k] <= off {
		lo = k
		for step := 1; k+step < m; step <<= 1 {
			if marks[k+step] > off {
				hi = k + step
				break
			}
			lo = k + step
		}
	} else {
		hi = k
		for step := 1; k-step > 0; step <<= 1 {
			if marks[k-step] <= off {
				lo = k - step
				break
			}
			hi = k - step
		}
	}
	for hi-lo > 1 {
		h := int(uint(lo+hi) >> 1)
		if marks[h] <= off {
			lo = h
		} else {
			hi = h
		}
	}
	return lo
}

// Finish computes the cached fields of n (Size, Count of lists, Depth)
// from its children and returns n. Builders call it once, before the node
// is shared; nodes are immutable afterwards.
func (n *Node) Finish() *Node {
	switch n.Op {
	case ContigFinal:
		n.Depth = 0
		return n
	case Contig:
		n.Size = n.Count * n.Child.Size
	case Vector:
		n.Size = n.Count * n.Blocklen * n.Child.Size
	case BlockIndex:
		n.Count = int64(len(n.Disps))
		n.Size = n.Count * n.Blocklen * n.Child.Size
	case Index, Struct:
		bls := n.Blocklens[:len(n.Disps)]
		var s int64
		if n.Op == Index {
			for _, b := range bls {
				s += b
			}
			s *= n.Child.Size
		} else {
			for i, b := range bls {
				s += b * n.Children[i].Size
			}
		}
		n.Size, n.Count = s, int64(len(bls))
	}
	d := 0
	if n.Op == Struct {
		for _, c := range n.Children {
			d = max(d, c.Depth)
		}
	} else {
		d = n.Child.Depth
	}
	n.Depth = d + 1
	return n
}

// WithDispsOr records or, the OR of n's Disps that the builder computed
// while listing them, so that the program's alignment needs no pass over
// the list, and returns n. Builders only: or must be exactly that OR.
func (n *Node) WithDispsOr(or uint64) *Node {
	n.dispsOr, n.hasOr = or, true
	return n
}

// DispsOr returns what WithDispsOr recorded, if anything.
func (n *Node) DispsOr() (or uint64, ok bool) { return n.dispsOr, n.hasOr }

// Reset empties *p for a builder, setting its packed size and extent. The
// nodes of a program live outside it: builders place the first ones in
// storage their caller allocated together with p (see opt.CompileInto),
// so that a small program is one allocation.
func (p *Program) Reset(size, extent int64) {
	*p = Program{Size: size, Extent: extent}
	if size == 0 {
		p.Align = 16
	}
}

// SetRoot sets p's root node and its displacement and computes the
// program's depth and alignment from them.
func (p *Program) SetRoot(root *Node, off int64) {
	p.Root, p.Off = root, off
	if root == nil {
		p.Depth, p.Align = 0, 16
		return
	}
	p.Depth = root.Depth
	p.Align = min(root.align(), gcdPow2(off), gcdPow2(p.Extent))
}

// gcdPow2 is the largest power of two up to 16 that divides a (16 for 0).
func gcdPow2(a int64) int64 {
	return 1 << min(bits.TrailingZeros64(uint64(a)), 4)
}

// align computes the alignment of n: the largest power of two up to 16
// dividing its moves, strides and displacements. The power-of-two part of
// the gcd of many numbers is the lowest bit set in their OR. A chain of
// nodes of one child each (most programs) needs no memo; from the first
// Struct on, alignMemo keeps what it computed.
func (n *Node) align() int64 {
	a := int64(16)
	for ; n.Op != Struct; n = n.Child {
		a = min(a, n.ownAlign())
		if n.Op == ContigFinal {
			return a
		}
	}
	var memo alignMemo
	return min(a, n.alignMemo(&memo))
}

// ownAlign is the alignment of n's own numbers, without its children's.
func (n *Node) ownAlign() int64 {
	or := uint64(n.Extent)
	switch n.Op {
	case ContigFinal:
		or |= uint64(n.Size)
	case Vector:
		or |= uint64(n.Stride)
	case BlockIndex, Index, Struct:
		if n.hasOr {
			or |= n.dispsOr
			break
		}
		for _, d := range n.Disps {
			or |= uint64(d)
		}
	}
	return gcdPow2(int64(or))
}

// alignMemo keeps the alignment of each child of a Struct computed.
type alignMemo = smallmap.Map[*Node, int64]

// alignMemo is align, computing that of each child of a Struct once: a
// program shares nodes (a DAG), and walking every use of them would cost
// the expanded tree.
func (n *Node) alignMemo(memo *alignMemo) int64 {
	a := n.ownAlign()
	switch n.Op {
	case ContigFinal:
		return a
	case Struct:
		for i, c := range n.Children {
			if i > 0 && c == n.Children[i-1] {
				continue
			}
			ca, ok := memo.Get(c)
			if !ok {
				ca = c.alignMemo(memo)
				memo.Put(c, ca)
			}
			a = min(a, ca)
		}
		return a
	}
	return min(a, n.Child.alignMemo(memo))
}

// SameMoves reports whether a and b move the same bytes, whatever their
// own extents (which matter only to blocks of several instances).
func SameMoves(a, b *Node) bool {
	var memo map[[2]*Node]bool
	return equal(a, b, false, &memo)
}

// Equal reports whether a and b describe the same moves.
func Equal(a, b *Node) bool {
	var memo map[[2]*Node]bool
	return equal(a, b, true, &memo)
}

// equal is Equal, comparing the extents of a and b themselves (not of
// their children) only if extent is set. Pairs of Struct children are
// compared once (*memo, made on the first): programs share nodes (DAGs),
// and two programs of one type compiled apart have the same sharing in
// other nodes, which would otherwise be compared once per path.
func equal(a, b *Node, extent bool, memo *map[[2]*Node]bool) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Op != b.Op || a.Size != b.Size || (extent && a.Extent != b.Extent) {
		return false
	}
	switch a.Op {
	case ContigFinal:
		return a.Sym == b.Sym
	case Contig:
		if a.Count != b.Count {
			return false
		}
	case Vector:
		if a.Count != b.Count || a.Blocklen != b.Blocklen || a.Stride != b.Stride {
			return false
		}
	case BlockIndex:
		if a.Blocklen != b.Blocklen || !slices.Equal(a.Disps, b.Disps) {
			return false
		}
	case Index, Struct:
		if !slices.Equal(a.Blocklens, b.Blocklens) || !slices.Equal(a.Disps, b.Disps) {
			return false
		}
	}
	if a.Op == Struct {
		if len(a.Children) != len(b.Children) {
			return false
		}
		for i, c := range a.Children {
			d := b.Children[i]
			if c == d || i > 0 && c == a.Children[i-1] && d == b.Children[i-1] {
				continue
			}
			k := [2]*Node{c, d}
			eq, ok := (*memo)[k]
			if !ok {
				eq = equal(c, d, true, memo)
				if *memo == nil {
					*memo = map[[2]*Node]bool{}
				}
				(*memo)[k] = eq
			}
			if !eq {
				return false
			}
		}
		return true
	}
	return equal(a.Child, b.Child, true, memo)
}
