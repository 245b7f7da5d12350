// Package engine executes dame programs: the compiled engine, whose
// kernels are chosen at commit by the shape and sizes of each primitive,
// the interpreter, the stack machine of seed 003 §3.4, native code
// (internal/engine/jit) and the reference engine, all behind the one
// Engine interface; Select chooses one for a program and says why.
//
// Both take memory images as a slice plus the byte offset of instance 0's
// origin and assume the caller (package ddt) validated that every byte the
// program touches lies inside the slices; they do no per-move checks.
package engine

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/engine/host"
)

type kind uint8

const (
	kLeaf   kind = iota // ContigFinal: L bytes
	kVecF               // Vector/Contig of a leaf, one leaf per block: strided line
	kGather             // BlockIndex of a leaf, one element per block: gather/scatter
	kIndexF             // Index of a leaf whose instances are contiguous: variable blocks
	kVec                // Vector/Contig of one child instance per block
	kBlocks             // anything else: blocks of child instances
	kMoves              // a few small blocks of bytes: a precompiled move list
)

var kindNames = [...]string{"leaf", "line", "gather", "blocks", "vector", "loop", "moves"}

// cnode is a program node with its kernel chosen.
type cnode struct {
	n      *dame.Node
	kind   kind
	lv     Level // kernel set
	size   int
	L      int // element bytes of final kernels (kIndexF: of the child, the unit of lens)
	count  int
	stride int
	offs   []int64 // byte displacements of blocks (shared with the program)
	lens   []int64 // kIndexF, kBlocks: child instances per block (shared with the program)
	kids   []*cnode
	kid    *cnode
	mv     *moveList // kMoves
	// sorted, for kGather and kIndexF, is the displacement-sorted order
	// whole-instance unpacks write in (dame.UnpackOrder), or nil
	sorted *dame.Sorted
	// scattered, for kGather, is set where pack prefetches blocks ahead
	// (scatteredPack)
	scattered bool
}

// Compiled runs a program with kernels chosen per primitive by its shape
// and sizes. It is immutable and safe for concurrent use; the kernel plan
// is built on first use, so committing a type that never moves data costs
// nothing here.
type Compiled struct {
	p    *dame.Program
	lv   Level
	once sync.Once
	root *cnode
}

// NewCompiled returns the compiled engine of p with kernel set l. Choosing
// the kernels costs time linear in the number of nodes (the block lists of
// the program are shared, not copied) and happens on first use.
func NewCompiled(p *dame.Program, l Level) *Compiled {
	return &Compiled{p: p, lv: l}
}

// plan returns the root of the kernel plan, building it on first use.
func (e *Compiled) plan() *cnode {
	e.once.Do(func() {
		if e.p.Root != nil {
			e.root = compile(e.p.Root, e.lv.kernels(), map[*dame.Node]*cnode{})
		}
	})
	return e.root
}

// String is the kernel plan: one line per primitive, the kernel that runs
// it and its parameters, indented by depth.
func (e *Compiled) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compiled %v\n", e.lv)
	if r := e.plan(); r != nil {
		r.dump(&b, 1, map[*cnode]bool{})
	}
	return b.String()
}

func (c *cnode) dump(b *strings.Builder, d int, seen map[*cnode]bool) {
	name := kindNames[c.kind]
	switch c.kind {
	case kLeaf:
		indent(b, d, "%s L=%d", name, c.L)
	case kVecF:
		indent(b, d, "%s n=%d stride=%d L=%d", name, c.count, c.stride, c.L)
	case kGather:
		pf := ""
		if c.scattered {
			pf = " pack=prefetched"
		}
		indent(b, d, "%s n=%d L=%d%s%s", name, len(c.offs), c.L, pf, c.sortedNote())
	case kIndexF:
		indent(b, d, "%s n=%d unit=%d%s", name, len(c.offs), c.L, c.sortedNote())
	case kMoves:
		indent(b, d, "%s exact=%d fast=%d size=%d", name, len(c.mv.exact), len(c.mv.fast), c.mv.size)
	case kVec:
		if c.transposable() {
			name = "transpose"
		}
		indent(b, d, "%s n=%d stride=%d", name, c.count, c.stride)
		c.kid.dump(b, d+1, seen)
	case kBlocks:
		indent(b, d, "%s n=%d", name, len(c.offs))
		if c.kids == nil {
			c.kid.dump(b, d+1, seen)
			return
		}
		for i, k := range c.kids {
			if i > 0 && k == c.kids[i-1] {
				continue
			}
			if seen[k] {
				indent(b, d+1, "(shared)")
				continue
			}
			seen[k] = true
			k.dump(b, d+1, seen)
		}
	}
}

// sortRule is the displacement-sorting rule the plans apply (tests lower
// its thresholds to exercise the sorted path): dame.HostSortRule, none on
// AMD's cores unless DDT_SORT=1 (for measurements).
var sortRule = dame.HostSortRule(host.CPU.AMD)

func (c *cnode) sortedNote() string {
	if c.sorted == nil {
		return ""
	}
	return " unpack=sorted"
}

// Segments lists the memory runs of the packed bytes [from, end) of count
// instances (see Engine); it walks the program like the interpreter.
func (e *Compiled) Segments(count, from int64, yield func(off, n int64) bool) {
	segments(e.p, count, from, yield)
}

// Move lists apply to final nodes of at most maxMoveBlocks blocks of at
// most maxMoveBlock bytes each.
const (
	maxMoveBlocks = 16
	maxMoveBlock  = 64
)

// compile chooses the kernels of n and its children. A program may share
// nodes (a DAG): memo holds the plan of every node compiled, so that each
// is planned once and the plan shares it too.
func compile(n *dame.Node, lv Level, memo map[*dame.Node]*cnode) *cnode {
	if c := memo[n]; c != nil {
		return c
	}
	c := compile1(n, lv, memo)
	memo[n] = c
	return c
}

func compile1(n *dame.Node, lv Level, memo map[*dame.Node]*cnode) *cnode {
	c := &cnode{n: n, lv: lv, size: int(n.Size)}
	leafChild := n.IsFinal() && n.Child.Extent == n.Child.Size
	switch {
	case n.Op == dame.ContigFinal:
		c.kind, c.L = kLeaf, int(n.Size)
		return c
	case (n.Op == dame.Vector && (n.Blocklen == 1 || leafChild)) || n.Op == dame.Contig:
		c.count, c.stride = int(n.Count), int(n.Stride)
		bl := n.Blocklen
		if n.Op == dame.Contig {
			c.stride, bl = int(n.Child.Extent), 1
		}
		if n.IsFinal() {
			c.kind, c.L = kVecF, int(bl*n.Child.Size)
			return c
		}
		c.kind, c.kid = kVec, compile(n.Child, lv, memo)
		return c
	case n.Op == dame.BlockIndex && (n.Blocklen == 1 || leafChild) && n.IsFinal():
		c.kind, c.L, c.offs = kGather, int(n.Blocklen*n.Child.Size), n.Disps
		if len(c.offs) <= maxMoveBlocks && c.L <= maxMoveBlock {
			lens := make([]int64, len(c.offs))
			for i := range lens {
				lens[i] = int64(c.L)
			}
			c.kind, c.mv = kMoves, newMoveList(c.offs, lens, c.size)
			return c
		}
		c.sorted = sortRule.UnpackOrder(n)
		c.scattered = scatterKernel && lv > LevelGo && scatteredPack(c.L) && dame.Scattered(n)
		return c
	case n.Op == dame.Index && leafChild:
		// the kernels scale the block lengths by the child's size: no
		// per-block array of byte lengths
		c.kind, c.offs, c.lens, c.L = kIndexF, n.Disps, n.Blocklens, int(n.Child.Size)
		if len(c.offs) > maxMoveBlocks {
			c.sorted = sortRule.UnpackOrder(n)
			return c
		}
		lens := make([]int64, len(c.offs))
		for i, b := range c.lens[:len(c.offs)] {
			if lens[i] = b * int64(c.L); lens[i] > maxMoveBlock {
				c.sorted = sortRule.UnpackOrder(n)
				return c
			}
		}
		c.kind, c.mv = kMoves, newMoveList(c.offs, lens, c.size)
		return c
	}
	c.kind = kBlocks
	nb := int(n.NumBlocks())
	switch n.Op {
	case dame.Index, dame.Struct:
		c.offs, c.lens = n.Disps, n.Blocklens
	case dame.BlockIndex:
		c.offs, c.lens = n.Disps, make([]int64, nb)
		for i := range c.lens {
			c.lens[i] = n.Blocklen
		}
	default:
		c.offs, c.lens = make([]int64, nb), make([]int64, nb)
		for i := range nb {
			c.offs[i], c.lens[i] = n.BlockDisp(int64(i)), n.BlockLen(i)
		}
	}
	if n.Op != dame.Struct {
		c.kid = compile(n.Child, lv, memo)
		return c
	}
	c.kids = make([]*cnode, nb)
	for i, ch := range n.Children {
		c.kids[i] = compile(ch, lv, memo)
	}
	return c
}

// transposable reports whether c is a matrix transpose: columns of 4- or
// 8-byte elements side by side (the column stride is the element size),
// each column a strided line whose rows don't overlap.
func (c *cnode) transposable() bool {
	k := c.kid
	return k.kind == kVecF && (k.L == 4 || k.L == 8) && c.stride == k.L &&
		k.count >= 8 && k.stride >= c.count*k.L
}

// blockKid is the compiled child of block i of a kBlocks or kVec node.
func (c *cnode) blockKid(i int) *cnode {
	if c.kids != nil {
		return c.kids[i]
	}
	return c.kid
}

// run moves cnt full instances of c, instance k's memory at m+mo+k*ext and
// its packed bytes at p+po+k*size: memory to packed when pack is set, the
// other way otherwise.
func run(c *cnode, pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, cnt, ext int) {
	switch c.kind {
	case kLeaf:
		if ext == c.L || cnt == 1 {
			if pack {
				mv(at(p, po), at(m, mo), cnt*c.L)
			} else {
				mv(at(m, mo), at(p, po), cnt*c.L)
			}
			return
		}
		if pack {
			line(c.lv, p, po, c.L, m, mo, ext, cnt, c.L)
		} else {
			line(c.lv, m, mo, ext, p, po, c.L, cnt, c.L)
		}
	case kVecF:
		n, L, s := c.count, c.L, c.stride
		if ext == n*s || cnt == 1 {
			n *= cnt
			cnt = 1
		}
		for k := 0; k < cnt; k++ {
			if pack {
				line(c.lv, p, po+k*n*L, L, m, mo+k*ext, s, n, L)
			} else {
				line(c.lv, m, mo+k*ext, s, p, po+k*n*L, L, n, L)
			}
		}
	case kMoves:
		c.mv.run(pack, m, mo, p, po, cnt, ext)
	case kGather, kIndexF:
		if !pack && c.sorted != nil {
			for k := 0; k < cnt; k++ {
				c.sortedScatter(m, mo+k*ext, p, po+k*c.size)
			}
			return
		}
		if c.kind == kIndexF {
			runIndexF(c, pack, m, mo, p, po, cnt, ext)
			return
		}
		if c.size == 0 {
			return
		}
		for k := 0; k < cnt; k++ {
			c.gatherBlocks(pack, m, mo+k*ext, p, po+k*c.size, c.offs)
		}
	case kVec:
		n, s := c.count, c.stride
		if ext == n*s || cnt == 1 {
			if c.transposable() {
				if c.kid.L == 4 {
					transpose[uint32](pack, m, mo, c.kid.stride, p, po, cnt*n, c.kid.count)
				} else {
					transpose[uint64](pack, m, mo, c.kid.stride, p, po, cnt*n, c.kid.count)
				}
				return
			}
			run(c.kid, pack, m, mo, p, po, cnt*n, s)
			return
		}
		for k := 0; k < cnt; k++ {
			run(c.kid, pack, m, mo+k*ext, p, po+k*c.size, n, s)
		}
	case kBlocks:
		q := po
		for k := 0; k < cnt; k++ {
			q = c.runBlocks(pack, m, mo+k*ext, p, q, 0, len(c.offs))
		}
	}
}

// runBlocks moves the whole blocks [i, j) of one instance of the kBlocks
// node c, whose memory is at m+mo, packed from p+po on, and returns the
// packed offset after them.
func (c *cnode) runBlocks(pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, i, j int) int {
	offs, lens := c.offs[i:j], c.lens[i:j]
	lens = lens[:len(offs)]
	for k, o := range offs {
		kid := c.blockKid(i + k)
		bl := int(lens[k])
		run(kid, pack, m, mo+int(o), p, po, bl, int(kid.n.Extent))
		po += bl * kid.size
	}
	return po
}

// runIndexF runs cnt instances of a kIndexF node (see run).
func runIndexF(c *cnode, pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, cnt, ext int) {
	if c.size == 0 {
		return
	}
	for k := 0; k < cnt; k++ {
		c.indexBlocks(pack, m, mo+k*ext, p, po+k*c.size, c.offs, c.lens)
	}
}

// indexBlocks moves the whole blocks of a kIndexF node at the memory
// offsets offs (a run of its list, lens their lengths in units) from
// m+mo, packed from p+po on, with the widest kernel that applies.
func (c *cnode) indexBlocks(pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, offs, lens []int64) {
	if c.lv > LevelGo {
		if pack {
			gatherBlocks(c.lv, at(p, po), m, mo, offs, lens, c.L)
		} else {
			scatterBlocks(c.lv, m, mo, at(p, po), offs, lens, c.L)
		}
		return
	}
	lens = lens[:len(offs)]
	for i, o := range offs {
		L := int(lens[i]) * c.L
		if pack {
			mvWords(at(p, po), at(m, mo+int(o)), L)
		} else {
			mvWords(at(m, mo+int(o)), at(p, po), L)
		}
		po += L
	}
}

// sortedScatter unpacks one instance of a kGather or kIndexF node in
// ascending memory order (dame.UnpackOrder): memory at m+mo, packed bytes
// at p+po.
func (c *cnode) sortedScatter(m unsafe.Pointer, mo int, p unsafe.Pointer, po int) {
	s := c.sorted
	ps, ls := s.Packed[:len(s.Disps)], s.Lens[:len(s.Disps)]
	if c.kind == kGather {
		// fixed lengths of 4 bytes or whole words: one load and store per block, the
		// loop the sorting pays for (a call of mv per block would not)
		m, p := at(m, mo), at(p, po)
		switch c.L {
		case 4:
			sortedWords[uint32](m, p, s.Disps, ps)
			return
		case 8:
			sortedWords[uint64](m, p, s.Disps, ps)
			return
		case 16:
			sortedWords[[2]uint64](m, p, s.Disps, ps)
			return
		case 32:
			sortedWords[[4]uint64](m, p, s.Disps, ps)
			return
		case 64:
			sortedWords[[8]uint64](m, p, s.Disps, ps)
			return
		}
	}
	for i, o := range s.Disps {
		mv(at(m, mo+int(o)), at(p, po+int(ps[i])), int(ls[i]))
	}
}

// sortedWords moves blocks of the size of W from the packed offsets ps
// at p to the memory offsets ds at m, in that order.
func sortedWords[W any](m, p unsafe.Pointer, ds, ps []int64) {
	ps = ps[:len(ds)]
	for i, o := range ds {
		*(*W)(at(m, int(o))) = *(*W)(at(p, int(ps[i])))
	}
}

// gatherBlocks moves the blocks of a kGather node at the memory offsets
// offs (a run of its list) from m+mo, packed from p+po on, with the
// widest kernel that applies.
func (c *cnode) gatherBlocks(pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, offs []int64) {
	if pack && c.scattered {
		gatherScattered(at(p, po), m, mo, offs, c.L)
		return
	}
	if c.lv > LevelGo && !wordGather(c.L) {
		if pack {
			gatherFixed(c.lv, at(p, po), m, mo, offs, c.L)
		} else {
			scatterFixed(c.lv, m, mo, at(p, po), offs, c.L)
		}
		return
	}
	if pack {
		gather(p, po, m, mo, offs, c.L)
	} else {
		scatter(m, mo, p, po, offs, c.L)
	}
}

// runRange moves the packed bytes [lo, hi) of one instance of c whose
// memory is at m+mo; byte lo is at p+po.
func runRange(c *cnode, pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, lo, hi int) {
	if lo == 0 && hi == c.size {
		run(c, pack, m, mo, p, po, 1, 0)
		return
	}
	if c.kind == kGather && c.L > 0 {
		// the whole blocks of the range through the gather kernels (a piece
		// of a parallel or resumed pack), the cut ones at its ends alone
		L := c.L
		i := lo / L
		if lo > i*L {
			e := min(hi, (i+1)*L)
			c.rangeBlock(pack, i, i*L, m, mo, p, po, lo, e)
			po += e - lo
			lo = e
			i++
		}
		if j := hi / L; j > i {
			c.gatherBlocks(pack, m, mo, p, po, c.offs[i:j])
			po += (j - i) * L
			lo = j * L
			i = j
		}
		if lo < hi {
			c.rangeBlock(pack, i, i*L, m, mo, p, po, lo, hi)
		}
		return
	}
	n := c.n
	if n.Op == dame.ContigFinal {
		if pack {
			mv(at(p, po), at(m, mo+lo), hi-lo)
		} else {
			mv(at(m, mo+lo), at(p, po), hi-lo)
		}
		return
	}
	nb := int(n.NumBlocks())
	i64, bo64 := n.FindBlockOffset(int64(lo))
	i, bo := int(i64), int(bo64)
	// kVec/kVecF kernels run many whole blocks at once
	if (c.kind == kVec || c.kind == kVecF) && i+1 < nb {
		bs := c.size / c.count    // bytes per block
		j := min((hi/bs)-1, nb-1) // last whole block after i
		if j > i {
			if lo > i*bs {
				c.rangeBlock(pack, i, i*bs, m, mo, p, po, lo, (i+1)*bs)
				po += (i+1)*bs - lo
				lo = (i + 1) * bs
				i++
			}
			cnt := (hi - lo) / bs
			if cnt > 0 {
				if c.kind == kVec {
					run(c.kid, pack, m, mo+i*c.stride, p, po, cnt, c.stride)
				} else {
					if pack {
						line(c.lv, p, po, c.L, m, mo+i*c.stride, c.stride, cnt, c.L)
					} else {
						line(c.lv, m, mo+i*c.stride, c.stride, p, po, c.L, cnt, c.L)
					}
				}
				po += cnt * bs
				lo += cnt * bs
				i += cnt
			}
			bo = i * bs
		}
	}
	if (c.kind == kIndexF || c.kind == kBlocks) && lo < hi {
		c.rangeList(pack, i, bo, m, mo, p, po, lo, hi)
		return
	}
	// bo is the packed offset of block i
	for ; i < nb && lo < hi; i++ {
		bend := bo + int(n.BlockLen(i)*n.ChildOf(i).Size)
		if bend > lo {
			e := min(hi, bend)
			c.rangeBlock(pack, i, bo, m, mo, p, po, lo, e)
			po += e - lo
			lo = e
		}
		bo = bend
	}
}

// rangeList moves the packed bytes [lo, hi) of one instance of the
// kIndexF or kBlocks node c (memory at m+mo, byte lo at p+po), lo inside
// block i, whose packed offset is bo: the blocks cut by lo and hi one by
// one, the whole blocks between them in one run of the kernels the whole
// instance takes (indexBlocks, runBlocks). Block hi lies in is found by
// a binary search (dame.Node.FindBlockOffset), so a range costs its
// blocks, not the blocks before it.
func (c *cnode) rangeList(pack bool, i, bo int, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, lo, hi int) {
	n := c.n
	if bend := bo + c.blockBytes(i); lo > bo || hi < bend {
		e := min(hi, bend)
		c.rangeBlock(pack, i, bo, m, mo, p, po, lo, e)
		po += e - lo
		lo, bo = e, bend
		i++
		if lo == hi {
			return
		}
	}
	// the block holding byte hi (none past the last block), and its packed
	// offset; blocks [i, j) are whole
	j, jo := len(c.offs), c.size
	if hi < c.size {
		j64, jo64 := n.FindBlockOffset(int64(hi))
		j, jo = int(j64), int(jo64)
	}
	if j > i {
		if c.kind == kIndexF {
			c.indexBlocks(pack, m, mo, p, po, c.offs[i:j], c.lens[i:j])
		} else {
			c.runBlocks(pack, m, mo, p, po, i, j)
		}
		po += jo - lo
		lo = jo
	}
	if lo < hi {
		c.rangeBlock(pack, j, jo, m, mo, p, po, lo, hi)
	}
}

// blockBytes is the packed size of block i of a kIndexF or kBlocks node.
func (c *cnode) blockBytes(i int) int {
	if c.kind == kIndexF {
		return int(c.lens[i]) * c.L
	}
	return int(c.lens[i]) * c.blockKid(i).size
}

// rangeBlock moves the packed bytes [lo, hi) (instance offsets) of block i
// of c, whose packed offset is bo.
func (c *cnode) rangeBlock(pack bool, i, bo int, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, lo, hi int) {
	n := c.n
	d := mo + int(n.BlockDisp(int64(i)))
	switch c.kind {
	case kVec, kBlocks:
		kid := c.blockKid(i)
		rangeMany(kid, pack, m, d, p, po, int(n.BlockLen(i)), int(n.ChildOf(i).Extent), lo-bo, hi-bo)
	default:
		// the blocks of final kernels are contiguous bytes
		if pack {
			mv(at(p, po), at(m, d+lo-bo), hi-lo)
		} else {
			mv(at(m, d+lo-bo), at(p, po), hi-lo)
		}
	}
}

// rangeMany moves the packed bytes [lo, hi) of cnt instances of c, ext
// apart, the first at m+mo.
func rangeMany(c *cnode, pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, cnt, ext int, lo, hi int) {
	cs := c.size
	j := lo / cs
	if lo > j*cs || hi < (j+1)*cs {
		e := min(hi, (j+1)*cs)
		runRange(c, pack, m, mo+j*ext, p, po, lo-j*cs, e-j*cs)
		po += e - lo
		lo = e
		j++
	}
	if full := hi/cs - j; full > 0 {
		run(c, pack, m, mo+j*ext, p, po, full, ext)
		po += full * cs
		lo += full * cs
		j += full
	}
	if lo < hi {
		runRange(c, pack, m, mo+j*ext, p, po, lo-j*cs, hi-j*cs)
	}
}

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// Pack writes the packed bytes [from, from+len(dst)) of count instances
// from src, whose instance 0 has its origin at byte origin, into dst.
func (e *Compiled) Pack(dst, src []byte, origin, count, from int64) {
	r := e.plan()
	if len(dst) == 0 || r == nil {
		return
	}
	rangeMany(r, true, ptr(src), int(origin+e.p.Off), ptr(dst), 0, int(count), int(e.p.Extent), int(from), int(from)+len(dst))
}

// Unpack reads src, the packed bytes [from, from+len(src)) of count
// instances, into dst, whose instance 0 has its origin at byte origin.
func (e *Compiled) Unpack(dst, src []byte, origin, count, from int64) {
	r := e.plan()
	if len(src) == 0 || r == nil {
		return
	}
	rangeMany(r, false, ptr(dst), int(origin+e.p.Off), ptr(src), 0, int(count), int(e.p.Extent), int(from), int(from)+len(src))
}

// Transposes reports whether the compiled engine runs p, or a strided
// part of it reached through vectors and contiguous nodes from the root,
// with its tiled transpose kernel (see transposable). The native engine
// leaves such programs to it: line-by-line generated code is several times
// slower there. It looks at one node per level, without compiling.
func Transposes(p *dame.Program) bool {
	for n := p.Root; n != nil; n = n.Child {
		c, ok := stridedNode(n)
		if !ok || n.IsFinal() {
			return false
		}
		k, ok := stridedNode(n.Child)
		if ok && n.Child.IsFinal() {
			k.kind = kVecF
			c.kid = &k
			if c.transposable() {
				return true
			}
		}
	}
	return false
}

// stridedNode returns the count, stride and (for a final node) block bytes of
// n when compile makes a strided line or vector of it.
func stridedNode(n *dame.Node) (cnode, bool) {
	leafChild := n.IsFinal() && n.Child.Extent == n.Child.Size
	if !((n.Op == dame.Vector && (n.Blocklen == 1 || leafChild)) || n.Op == dame.Contig) {
		return cnode{}, false
	}
	c := cnode{count: int(n.Count), stride: int(n.Stride)}
	bl := n.Blocklen
	if n.Op == dame.Contig {
		c.stride, bl = int(n.Child.Extent), 1
	}
	if n.IsFinal() {
		c.L = int(bl * n.Child.Size)
	}
	return c, true
}

// SetSortRule makes the plans built from now on apply r instead of the
// displacement-sorting rule in force, and returns that rule (for `ddt
// bench --fig 14`, which measures unpack with sorting on and off; not
// safe while other goroutines build plans).
func SetSortRule(r dame.SortRule) dame.SortRule {
	old := sortRule
	sortRule = r
	return old
}
