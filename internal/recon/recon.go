// Package recon is the core of optimal type reconstruction (seed 000,
// Ganian, Kalany, Szeider and Träff, and its extended version seed 001): a
// dynamic program that finds a least-cost tree of vec, idx, idxbuc, struc
// (and optionally contiguous-leaf and sbuc) nodes whose flattening is a
// given sequence of symbols at displacements, in O(n^3) time and O(n^2)
// memory.
//
// It knows nothing of MPI types or DAME programs: a symbol is an opaque
// small integer with a leaf cost (and optionally a size, for contiguous
// leaves). Package optimal runs it on type maps (a symbol per basic type)
// and reports trees in the papers' notation; package dame runs it on the
// explicit block lists of a compiled program (a symbol per distinct block)
// to simplify them at commit.
package recon

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Cost holds the constants of the additive cost model (seed 000, section
// III); see optimal.CostModel, whose fields it mirrors in the same order.
type Cost struct {
	Leaf, Vec, Idx, IdxBuc, Struc int64
	Ix, Bucket, Type              int64
	Contig, SBuc                  int64
}

// DefaultCost is the one place the paper's constants are written (seed
// 000 §III): leaf=2, vec=4, idx=3, idxbuc=4, struc=2, ix=1, bucket=1,
// type=1, and for seed 001's opt-in constructors contig=2 (like a leaf) and
// sbuc=4 (like idxbuc). optimal.DefaultCost returns it, and the optimizer of
// DAME programs (dame/opt) compares programs in it.
var DefaultCost = Cost{Leaf: 2, Vec: 4, Idx: 3, IdxBuc: 4, Struc: 2, Ix: 1, Bucket: 1, Type: 1, Contig: 2, SBuc: 4}

// Set is a set of constructors the tree may use; plain leaves are always
// allowed. The flags have the values of optimal.Constructors.
type Set uint8

// The constructor flags.
const (
	AllowVec Set = 1 << iota
	AllowIdx
	AllowIdxBuc
	AllowStruc
	AllowContig
	AllowSBuc
)

// Has reports whether all constructors in x are in s.
func (s Set) Has(x Set) bool { return s&x == x }

// Kind is the constructor of a tree node.
type Kind uint8

// The constructors, numbered as optimal.Kind numbers them.
const (
	Leaf   Kind = iota + 1 // a symbol, or Count copies of it Size apart (contiguous leaf)
	Vec                    // Count copies of Child, Stride apart
	Idx                    // one copy of Child at each of Disps
	IdxBuc                 // bucket k: Sizes[k] copies of Child at Disps[k], Stride apart
	Struc                  // Children[k] at Disps[k]
	SBuc                   // bucket k: Sizes[k] copies of Child at k*Stride, Inner apart
)

// Tree is a node of a reconstructed tree. The fields are used as the
// Kind comments say; Sym is the symbol of a Leaf.
type Tree struct {
	Kind     Kind
	Sym      int32
	Count    int64 // Leaf (1, or more for a contiguous leaf), Vec
	Size     int64 // Leaf with Count > 1: bytes between copies
	Stride   int64 // Vec: stride; IdxBuc: substride; SBuc: bucket stride
	Inner    int64 // SBuc: stride inside a bucket
	Disps    []int64
	Sizes    []int64
	Child    *Tree
	Children []*Tree
}

// Seq is the input of Solve: symbol Sym[i] at displacement Disp[i].
// LeafCost[s] is the cost of a leaf of symbol s; Size[s], if positive, lets
// copies of s Size[s] bytes apart form a contiguous leaf (when AllowContig
// is set).
type Seq struct {
	Sym      []int32
	Disp     []int64
	LeafCost []int64
	Size     []int64
}

// MaxDisp bounds the displacements Solve accepts, so that differences of
// two never overflow.
const MaxDisp = int64(1) << 61

// MaxLen is the longest sequence Solve accepts (block lengths of
// repetitions are stored in 16 bits).
const MaxLen = 1 << 15

// Errors of Solve.
var (
	// ErrNotRepresentable: no tree over the allowed constructors
	// represents the sequence.
	ErrNotRepresentable = errors.New("not representable")
	// ErrShift: the sequence starts at a nonzero displacement and the set
	// has no idx, idxbuc or struc to carry it.
	ErrShift = errors.New("not representable: shifted without an irregular node")
	// ErrCost: costs would exceed the solver's 31-bit range.
	ErrCost = errors.New("costs too large")
)

// MaxCost bounds every cost the solver stores.
const MaxCost = int64(costCap)

// Work is the number of inner steps Solve takes on a sequence of n
// elements, about n^3/6 (plus n), for callers that budget their runs.
func Work(n int) int64 {
	m := int64(n)
	return m*m*m/6 + m
}

// Solve returns a least-cost tree whose flattening is s exactly (every
// symbol at its displacement, in order), and its cost. The tree is optimal
// among all trees over set, with sbuc nodes considered only in a canonical
// form (seed 001, section 4.1; see package optimal). It runs in O(n^3)
// time and O(n^2) memory.
func Solve(s Seq, c Cost, set Set) (tree *Tree, cost int64, err error) {
	defer func() {
		// build and strucParts panic only if the tables are inconsistent,
		// which would be a bug in this package; report it as an error.
		if r := recover(); r != nil {
			tree, cost, err = nil, 0, fmt.Errorf("recon: internal error: %v", r)
		}
	}()
	n := len(s.Sym)
	if n == 0 || len(s.Disp) != n {
		return nil, 0, fmt.Errorf("recon: %d symbols at %d displacements", n, len(s.Disp))
	}
	if n > MaxLen {
		return nil, 0, fmt.Errorf("recon: sequence of %d elements, more than %d", n, MaxLen)
	}
	for i, d := range s.Disp {
		if d > MaxDisp || d < -MaxDisp {
			return nil, 0, fmt.Errorf("recon: element %d: displacement %d out of range ±2^61", i, d)
		}
		if sy := s.Sym[i]; sy < 0 || int(sy) >= len(s.LeafCost) {
			return nil, 0, fmt.Errorf("recon: element %d: symbol %d without a leaf cost", i, sy)
		}
	}
	if set.Has(AllowStruc) {
		// Every segment has the trivial struc tree, which bounds all costs.
		maxLeaf := int64(0)
		for _, v := range s.LeafCost {
			maxLeaf = max(maxLeaf, v)
		}
		if bound := c.Struc + int64(n)*(c.Ix+c.Type+maxLeaf); bound > capCheck {
			return nil, 0, fmt.Errorf("recon: costs may reach %d, more than %d: %w", bound, costCap, ErrCost)
		}
	}
	sv := newSolver(s, c, set)
	sv.run()
	if sv.overflow {
		return nil, 0, fmt.Errorf("recon: costs exceed %d: %w", costCap, ErrCost)
	}
	x := sv.d[0]
	if x == 0 {
		v := sv.opt[sv.at(0, n-1)]
		if v == inf {
			return nil, 0, ErrNotRepresentable
		}
		return sv.build(sv.kind[sv.at(0, n-1)], int(sv.arg[sv.at(0, n-1)]), 0, n-1), int64(v), nil
	}
	v := sv.abs0[n-1]
	if v == inf {
		return nil, 0, ErrShift
	}
	root := sv.buildAbs(n - 1)
	shiftChain(root, x)
	return root, int64(v), nil
}

// shiftChain adds x to the displacements of the first irregular node on the
// chain of single-child regular nodes from the root.
func shiftChain(n *Tree, x int64) {
	for n.Kind == Vec || n.Kind == SBuc {
		n = n.Child
	}
	for k := range n.Disps {
		n.Disps[k] += x
	}
}

func newSolver(q Seq, c Cost, set Set) *solver {
	n := len(q.Sym)
	s := &solver{n: n, cm: c, set: set, t: q.Sym, d: q.Disp}
	s.w = int32(c.Ix + c.Type)
	s.size = make([]int64, len(q.LeafCost))
	s.leafCost = make([]int32, len(q.LeafCost))
	for k, lc := range q.LeafCost {
		s.leafCost[k] = clampCost(lc)
		if k < len(q.Size) && q.Size[k] > 0 && q.Size[k] <= MaxDisp {
			s.size[k] = q.Size[k]
		}
	}
	return s
}

// MulOK returns a*b and whether the product stays within ±MaxDisp.
func MulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, p <= MaxDisp && p >= -MaxDisp
}

// Internal choice codes stored per segment.
const (
	kNone uint8 = iota
	kLeaf
	kContig
	kVec
	kIdx
	kIdxBuc
	kSBuc
	kStruc
	// Only for the absorbing table of row 0:
	kAbsVec     // vec over an absorbing prefix
	kAbsSBuc    // sbuc over an absorbing prefix
	kWrapIdx    // idx(1, [0], T)
	kWrapIdxBuc // idxbuc(1, 0, [0], [1], T)
	kWrapStruc  // struc(1, [0], [T])
)

const (
	inf      = int32(math.MaxInt32)
	costCap  = int32(1 << 29) // stored costs never exceed costCap+1
	capCheck = int64(costCap)
)

// solver holds the dynamic programming tables for one type map.
//
// Segment [i, j] (inclusive) of the map, aligned (shifted so that element i is
// at displacement 0), has an optimal tree cost opt(i, j), stored row-major in
// an upper-triangular array. P(a, j) is the least total weight of a partition
// of [a, j] into consecutive parts, each part weighing Ix+Type plus its
// optimal cost; it is stored column-major so that the struc recurrence scans
// two contiguous int32 slices.
type solver struct {
	n    int
	t    []int32
	d    []int64
	size []int64
	// leafCost is the cost of a leaf per type id (normally cm.Leaf).
	leafCost []int32
	cm       Cost
	set      Set
	w        int32 // Ix + Type: weight of one struc entry

	opt  []int32
	kind []uint8
	arg  []uint16 // block length q of repetition roots
	pcol []int32

	contigEnd []int32
	g         []int32 // g[gOff[q]+p]: gap id if blocks [p,p+q) and [p+q,p+2q) are equal, else -1
	gOff      []int
	cnt       []int32
	touched   []int32

	abs0  []int32 // row 0: least cost of a tree for aligned [0, j] with an irregular node on every root-to-leaf path
	absK0 []uint8
	absA0 []uint16

	overflow bool
}

func (s *solver) ro(i int) int     { return i*s.n - i*(i-1)/2 }
func (s *solver) at(i, j int) int  { return s.ro(i) + j - i }
func co(j int) int                 { return j * (j + 1) / 2 }
func (s *solver) p(a, j int) int32 { return s.pcol[co(j)+a] }

// buildGaps fills g: for each block length q and start p, whether the aligned
// blocks [p, p+q) and [p+q, p+2q) are equal (exactly, by a run-length scan
// along the diagonal of offset q), and if so a small id of the gap
// d[p+q]-d[p], ids being dense per q. Time O(n^2), memory n^2/4 int32.
func (s *solver) buildGaps() {
	n := s.n
	half := n / 2
	s.gOff = make([]int, half+1)
	total := 0
	for q := 1; q <= half; q++ {
		s.gOff[q] = total
		total += n - 2*q + 1
	}
	s.g = make([]int32, total)
	delta := make([]int64, n)
	for k := 0; k+1 < n; k++ {
		delta[k] = s.d[k+1] - s.d[k]
	}
	ids := make(map[int64]int32)
	t, d := s.t, s.d
	for q := 1; q <= half; q++ {
		gq := s.g[s.gOff[q] : s.gOff[q]+n-2*q+1]
		clear(ids)
		run := 0
		for p := n - 1 - q; p >= 0; p-- {
			if p+q <= n-2 && t[p] == t[p+q] && delta[p] == delta[p+q] {
				run++
			} else {
				run = 0
			}
			if p > n-2*q {
				continue
			}
			if run >= q-1 && t[p+q-1] == t[p+2*q-1] {
				gap := d[p+q] - d[p]
				id, ok := ids[gap]
				if !ok {
					id = int32(len(ids))
					ids[gap] = id
				}
				gq[p] = id
			} else {
				gq[p] = -1
			}
		}
	}
	s.cnt = make([]int32, n)
}

// wrap returns the cheapest count-1 irregular node that can carry a shift.
func (s *solver) wrap() (int32, uint8) {
	best, k := inf, kNone
	c := s.cm
	try := func(ok bool, v int64, kind uint8) {
		if ok && v < int64(best) {
			best, k = int32(v), kind
		}
	}
	try(s.set.Has(AllowIdx), c.Idx+c.Ix, kWrapIdx)
	try(s.set.Has(AllowIdxBuc), c.IdxBuc+c.Ix+c.Bucket, kWrapIdxBuc)
	try(s.set.Has(AllowStruc), c.Struc+c.Ix+c.Type, kWrapStruc)
	return best, k
}

// row holds the per-row candidate buffers (indexed by segment length - 1).
type row struct {
	rep     []int32 // best vec/idx/idxbuc/sbuc root
	repK    []uint8
	repA    []uint16
	irr     []int32 // best idx/idxbuc root (irregular, c >= 2)
	irrK    []uint8
	irrA    []uint16
	areg    []int32 // best vec/sbuc root over an absorbing prefix
	aregK   []uint8
	aregA   []uint16
	abs     []int32
	absK    []uint8
	absA    []uint16
	capHits bool
}

func newRow(n int) *row {
	return &row{
		rep: make([]int32, n), repK: make([]uint8, n), repA: make([]uint16, n),
		irr: make([]int32, n), irrK: make([]uint8, n), irrA: make([]uint16, n),
		areg: make([]int32, n), aregK: make([]uint8, n), aregA: make([]uint16, n),
		abs: make([]int32, n), absK: make([]uint8, n), absA: make([]uint16, n),
	}
}

func clampCost(v int64) int32 {
	if v > capCheck {
		return costCap + 1
	}
	return int32(v)
}

func (s *solver) run() {
	n := s.n
	nt := n * (n + 1) / 2
	s.opt = make([]int32, nt)
	s.kind = make([]uint8, nt)
	s.arg = make([]uint16, nt)
	struc := s.set.Has(AllowStruc)
	if struc {
		s.pcol = make([]int32, nt)
	}
	s.contigEnd = make([]int32, n)
	for i := n - 1; i >= 0; i-- {
		s.contigEnd[i] = int32(i)
		if i+1 < n && s.set.Has(AllowContig) {
			sz := s.size[s.t[i]]
			if sz > 0 && s.t[i+1] == s.t[i] && s.d[i+1]-s.d[i] == sz {
				s.contigEnd[i] = s.contigEnd[i+1]
			}
		}
	}
	if s.set&(AllowVec|AllowIdx|AllowIdxBuc|AllowSBuc) != 0 {
		s.buildGaps()
	}
	wrapCost, wrapK := s.wrap()
	cm := s.cm
	kContigCost := clampCost(cm.Contig)
	strucK := int32(cm.Struc)
	w := s.w
	r := newRow(n)
	for i := n - 1; i >= 0; i-- {
		m := n - i
		for x := 0; x < m; x++ {
			r.rep[x], r.irr[x], r.areg[x] = inf, inf, inf
		}
		base := s.ro(i)
		optRow := s.opt[base : base+m]
		kindRow := s.kind[base : base+m]
		argRow := s.arg[base : base+m]
		for j := i; j < n; j++ {
			l := j - i + 1
			x := l - 1
			best, bk, ba := inf, kNone, uint16(0)
			if l == 1 {
				best, bk = s.leafCost[s.t[i]], kLeaf
			} else if int(s.contigEnd[i]) >= j {
				best, bk = kContigCost, kContig
			}
			if r.rep[x] < best {
				best, bk, ba = r.rep[x], r.repK[x], r.repA[x]
			}
			strucCost := inf
			if struc {
				pc := s.pcol[co(j) : co(j)+j+1]
				if l >= 2 {
					mm := minPlus(optRow[:x], pc[i+1:j+1])
					strucCost = clampCost(int64(strucK) + int64(w) + int64(mm))
					if strucCost < best {
						best, bk, ba = strucCost, kStruc, 0
					}
					pc[i] = clampCost(int64(w) + int64(min(best, mm)))
				} else {
					pc[i] = clampCost(int64(w) + int64(best))
				}
			}
			if best != inf && best > costCap {
				s.overflow = true
			}
			optRow[x], kindRow[x], argRow[x] = best, bk, ba

			// Least cost with an irregular node on every root-to-leaf path.
			a, ak, aa := r.irr[x], r.irrK[x], r.irrA[x]
			if strucCost < a {
				a, ak, aa = strucCost, kStruc, 0
			}
			if r.areg[x] < a {
				a, ak, aa = r.areg[x], r.aregK[x], r.aregA[x]
			}
			if best != inf && wrapK != kNone {
				if v := clampCost(int64(best) + int64(wrapCost)); v < a {
					a, ak, aa = v, wrapK, 0
				}
			}
			r.abs[x], r.absK[x], r.absA[x] = a, ak, aa

			if 2*l <= m && best != inf && s.g != nil {
				s.push(i, l, best, a, r)
			}
		}
		if i == 0 {
			s.abs0, s.absK0, s.absA0 = r.abs, r.absK, r.absA
		}
	}
}

// minPlus returns min over k of a[k]+b[k]; len(b) >= len(a) > 0.
func minPlus(a, b []int32) int32 {
	b = b[:len(a)]
	m0, m1, m2, m3 := inf, inf, inf, inf
	k := 0
	for ; k+4 <= len(a); k += 4 {
		m0 = min(m0, a[k]+b[k])
		m1 = min(m1, a[k+1]+b[k+1])
		m2 = min(m2, a[k+2]+b[k+2])
		m3 = min(m3, a[k+3]+b[k+3])
	}
	for ; k < len(a); k++ {
		m0 = min(m0, a[k]+b[k])
	}
	return min(m0, m1, m2, m3)
}

// push offers the segment [i, i+q) as the repeated block of every longer
// segment [i, i+c*q) made of c >= 2 equal aligned blocks, as the subtree of
// vec, idx, idxbuc and sbuc roots. optv and absv are the block's optimal and
// absorbing costs.
func (s *solver) push(i, q int, optv, absv int32, r *row) {
	n := s.n
	g := s.g[s.gOff[q]:]
	cm := s.cm
	vec, idx, idxbuc, sbuc := s.set.Has(AllowVec), s.set.Has(AllowIdx), s.set.Has(AllowIdxBuc), s.set.Has(AllowSBuc)
	ov := int64(optv)
	av := int64(absv)
	var f int32
	allEq := true
	var g0 int32
	var pos int64
	sc0, sc1 := newSBucScan(0, false), newSBucScan(1, false)
	touched := s.touched[:0]
	upd := func(cost []int32, kinds []uint8, args []uint16, x int, v int64, k uint8) {
		if v < int64(cost[x]) {
			cost[x], kinds[x], args[x] = clampCost(v), k, uint16(q)
		}
	}
	for k := 0; ; k++ {
		p := i + k*q
		if p+2*q > n {
			break
		}
		gid := g[p]
		if gid < 0 {
			break
		}
		c := int64(k + 2)
		x := p + 2*q - 1 - i
		if k == 0 {
			g0 = gid
		} else if gid != g0 {
			allEq = false
		}
		cn := s.cnt[gid] + 1
		s.cnt[gid] = cn
		if cn == 1 {
			touched = append(touched, gid)
		}
		f = max(f, cn)
		if vec && allEq {
			upd(r.rep, r.repK, r.repA, x, cm.Vec+ov, kVec)
			if absv != inf {
				upd(r.areg, r.aregK, r.aregA, x, cm.Vec+av, kAbsVec)
			}
		}
		if idx {
			v := cm.Idx + c*cm.Ix + ov
			upd(r.rep, r.repK, r.repA, x, v, kIdx)
			upd(r.irr, r.irrK, r.irrA, x, v, kIdx)
		}
		if idxbuc {
			v := cm.IdxBuc + (c-int64(f))*(cm.Ix+cm.Bucket) + ov
			upd(r.rep, r.repK, r.repA, x, v, kIdxBuc)
			upd(r.irr, r.irrK, r.irrA, x, v, kIdxBuc)
		}
		if sbuc {
			pos += s.d[p+q] - s.d[p]
			ok0, ok1 := sc0.step(pos), sc1.step(pos)
			nb := int64(math.MaxInt32)
			if ok0 {
				nb = sc0.nb
			}
			if ok1 {
				nb = min(nb, sc1.nb)
			}
			if !ok0 && !ok1 {
				sbuc = false
			} else {
				upd(r.rep, r.repK, r.repA, x, cm.SBuc+nb*cm.Bucket+ov, kSBuc)
				if absv != inf {
					upd(r.areg, r.aregK, r.aregA, x, cm.SBuc+nb*cm.Bucket+av, kAbsSBuc)
				}
			}
		}
	}
	for _, id := range touched {
		s.cnt[id] = 0
	}
	s.touched = touched
}

// sbucAt reports whether position pos is the start nb*stride of bucket nb.
func sbucAt(nb, stride, pos int64) bool {
	v, ok := MulOK(nb, stride)
	return ok && v == pos
}

// sbucScan is the online canonical strided-bucket partition of a sequence of
// block positions starting at 0 (seed 001, section 4.1). Variant 0 takes the
// first gap as the inner stride and ends the first bucket at the first other
// gap, whose position becomes the bucket stride. Variant 1 puts the first
// block alone in bucket 0, takes the second position as the bucket stride
// and the first gap inside a bucket as the inner stride. After that both
// start a new bucket when a position is the next bucket's start, else
// continue the bucket when the gap is the inner stride, else fail.
type sbucScan struct {
	variant     int
	ok          bool
	k           int   // blocks seen
	pos         int64 // position of the last block
	stride      int64
	inner       int64
	sKnown      bool
	eKnown      bool
	nb          int64 // buckets so far
	sizes       []int64
	recordSizes bool
}

func newSBucScan(variant int, record bool) sbucScan {
	s := sbucScan{variant: variant, ok: true, k: 1, nb: 1, recordSizes: record}
	if record {
		s.sizes = []int64{1}
	}
	return s
}

// step adds the next block at position np and reports whether the sequence
// so far is still a canonical strided bucket.
func (s *sbucScan) step(np int64) bool {
	if !s.ok {
		return false
	}
	gap := np - s.pos
	s.pos = np
	s.k++
	newBucket := false
	switch {
	case s.k == 2 && s.variant == 0:
		s.inner, s.eKnown = gap, true
	case s.k == 2:
		s.stride, s.sKnown, newBucket = np, true, true
	case s.sKnown && sbucAt(s.nb, s.stride, np):
		newBucket = true
	case s.eKnown && gap == s.inner:
	case !s.eKnown:
		s.inner, s.eKnown = gap, true
	case !s.sKnown:
		s.stride, s.sKnown, newBucket = np, true, true
	default:
		s.ok = false
		return false
	}
	if newBucket {
		s.nb++
		if s.recordSizes {
			s.sizes = append(s.sizes, 1)
		}
	} else if s.recordSizes {
		s.sizes[len(s.sizes)-1]++
	}
	return true
}

// SBucBuckets returns the canonical strided bucket with the fewest buckets
// for the block positions pos (pos[0] == 0): bucket stride, inner stride and
// bucket sizes, or ok == false if neither variant applies.
func SBucBuckets(pos []int64) (stride, inner int64, sizes []int64, ok bool) {
	for v := range 2 {
		sc := newSBucScan(v, true)
		for _, p := range pos[1:] {
			sc.step(p)
		}
		if sc.ok && (!ok || len(sc.sizes) < len(sizes)) {
			stride, inner, sizes, ok = sc.stride, sc.inner, sc.sizes, true
		}
	}
	return stride, inner, sizes, ok
}

// idxbucBuckets groups the block positions pos into buckets of the most
// frequent gap (the smallest such gap on ties).
func idxbucBuckets(pos []int64) (stride int64, disps, sizes []int64) {
	freq := map[int64]int{}
	for k := 1; k < len(pos); k++ {
		freq[pos[k]-pos[k-1]]++
	}
	gaps := make([]int64, 0, len(freq))
	for g := range freq {
		gaps = append(gaps, g)
	}
	sort.Slice(gaps, func(a, b int) bool { return gaps[a] < gaps[b] })
	bestN := 0
	for _, g := range gaps {
		if freq[g] > bestN {
			stride, bestN = g, freq[g]
		}
	}
	disps = []int64{pos[0]}
	sizes = []int64{1}
	for k := 1; k < len(pos); k++ {
		if pos[k]-pos[k-1] == stride {
			sizes[len(sizes)-1]++
		} else {
			disps = append(disps, pos[k])
			sizes = append(sizes, 1)
		}
	}
	return stride, disps, sizes
}

// blockPositions returns the aligned start displacements of the c blocks of
// length q of segment [i, ...).
func (s *solver) blockPositions(i, q, c int) []int64 {
	pos := make([]int64, c)
	for k := range pos {
		pos[k] = s.d[i+k*q] - s.d[i]
	}
	return pos
}

// build returns the tree recorded for aligned segment [i, j] with root choice
// k and argument q.
func (s *solver) build(k uint8, q, i, j int) *Tree {
	l := j - i + 1
	sub := func() *Tree {
		at := s.at(i, i+q-1)
		return s.build(s.kind[at], int(s.arg[at]), i, i+q-1)
	}
	switch k {
	case kLeaf:
		return &Tree{Kind: Leaf, Sym: s.t[i], Count: 1}
	case kContig:
		return &Tree{Kind: Leaf, Sym: s.t[i], Count: int64(l), Size: s.size[s.t[i]]}
	case kVec:
		return &Tree{Kind: Vec, Count: int64(l / q), Stride: s.d[i+q] - s.d[i], Child: sub()}
	case kIdx:
		return &Tree{Kind: Idx, Disps: s.blockPositions(i, q, l/q), Child: sub()}
	case kIdxBuc:
		st, ds, sz := idxbucBuckets(s.blockPositions(i, q, l/q))
		return &Tree{Kind: IdxBuc, Stride: st, Disps: ds, Sizes: sz, Child: sub()}
	case kSBuc:
		st, in, sz, _ := SBucBuckets(s.blockPositions(i, q, l/q))
		return &Tree{Kind: SBuc, Stride: st, Inner: in, Sizes: sz, Child: sub()}
	case kStruc:
		parts := s.strucParts(i, j)
		nd := &Tree{Kind: Struc}
		a := i
		for _, e := range parts {
			at := s.at(a, e)
			nd.Disps = append(nd.Disps, s.d[a]-s.d[i])
			nd.Children = append(nd.Children, s.build(s.kind[at], int(s.arg[at]), a, e))
			a = e + 1
		}
		return nd
	}
	panic(fmt.Sprintf("recon: internal error: no choice recorded for segment [%d, %d]", i, j))
}

// strucParts recovers the ends of the parts of a least-cost partition of
// [i, j] into at least two parts.
func (s *solver) strucParts(i, j int) []int {
	w := s.w
	optRow := s.opt[s.ro(i):]
	mm, first := inf, -1
	for k := i; k < j; k++ {
		if v := optRow[k-i] + s.p(k+1, j); v < mm {
			mm, first = v, k
		}
	}
	parts := []int{first}
	a := first + 1
	for {
		target := s.p(a, j)
		if w+s.opt[s.at(a, j)] == target {
			return append(parts, j)
		}
		found := false
		for k := a; k < j; k++ {
			if w+s.opt[s.at(a, k)]+s.p(k+1, j) == target {
				parts = append(parts, k)
				a = k + 1
				found = true
				break
			}
		}
		if !found {
			panic("recon: internal error: struc partition not recoverable")
		}
	}
}

// buildAbs returns the recorded tree for aligned [0, j] that has an
// irregular node on every root-to-leaf path.
func (s *solver) buildAbs(j int) *Tree {
	k, q := s.absK0[j], int(s.absA0[j])
	at := s.at(0, j)
	switch k {
	case kAbsVec:
		return &Tree{Kind: Vec, Count: int64((j + 1) / q), Stride: s.d[q] - s.d[0], Child: s.buildAbs(q - 1)}
	case kAbsSBuc:
		st, in, sz, _ := SBucBuckets(s.blockPositions(0, q, (j+1)/q))
		return &Tree{Kind: SBuc, Stride: st, Inner: in, Sizes: sz, Child: s.buildAbs(q - 1)}
	case kWrapIdx:
		return &Tree{Kind: Idx, Disps: []int64{0}, Child: s.build(s.kind[at], int(s.arg[at]), 0, j)}
	case kWrapIdxBuc:
		return &Tree{Kind: IdxBuc, Disps: []int64{0}, Sizes: []int64{1}, Child: s.build(s.kind[at], int(s.arg[at]), 0, j)}
	case kWrapStruc:
		return &Tree{Kind: Struc, Disps: []int64{0}, Children: []*Tree{s.build(s.kind[at], int(s.arg[at]), 0, j)}}
	}
	return s.build(k, q, 0, j)
}
