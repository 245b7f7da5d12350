package optimal

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// MaxLen is the longest type map Reconstruct accepts. Time grows as n^3 and
// memory as n^2 (about 11 bytes per segment): at 4096 elements the slowest
// maps measured (a plain vector, the seed's row and column) take 15 s of
// CPU time and 110 MB on an AMD EPYC core (36 s of wall time in the
// benchmark on the shared, loaded machine), so the limit keeps every
// accepted map well within a minute. Normalize handles larger types
// structurally.
const MaxLen = 4096

// Options configures Reconstruct.
type Options struct {
	// Cost is the cost model. The zero value means DefaultCost().
	Cost CostModel
	// Constructors is the set of constructors the tree may use; plain
	// leaves are always allowed. Zero means DefaultConstructors.
	Constructors Constructors
	// Sizes gives basic type sizes for the contiguous leaf. Nil means
	// DefaultSizes(). Types it does not know never form contiguous leaves.
	Sizes Sizer
}

// DefaultOptions returns the paper's cost model and five constructors.
func DefaultOptions() Options {
	return Options{Cost: DefaultCost(), Constructors: DefaultConstructors, Sizes: DefaultSizes()}
}

func (o Options) normalized() (Options, error) {
	if o.Cost == (CostModel{}) {
		o.Cost = DefaultCost()
	}
	if o.Constructors == 0 {
		o.Constructors = DefaultConstructors
	}
	if o.Sizes == nil {
		o.Sizes = DefaultSizes()
	}
	if o.Constructors&^AllConstructors != 0 {
		return o, fmt.Errorf("optimal: unknown constructor flags %#x", uint8(o.Constructors&^AllConstructors))
	}
	return o, o.Cost.Validate()
}

// ErrNotRepresentable is wrapped by the error Reconstruct returns when no
// tree over the allowed constructors represents the type map.
var ErrNotRepresentable = errors.New("type map not representable with these constructors")

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
	n     int
	t     []int32
	d     []int64
	names []string
	size  []int64
	// leafCost is the cost of a leaf per type id (normally cm.Leaf).
	leafCost []int32
	cm       CostModel
	set      Constructors
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

// Reconstruct returns a least-cost tree whose flattening equals m exactly,
// and its cost under opts.Cost. It runs in O(n^3) time and O(n^2) memory for
// a map of n elements (about 11 bytes per segment, n^2/2 segments).
//
// The tree is optimal among all trees over opts.Constructors, with one
// documented restriction: strided bucket (sbuc) nodes are considered only in
// the canonical form described in the package documentation.
func Reconstruct(m TypeMap, opts Options) (tree *Node, cost int64, err error) {
	return reconstruct(m, opts, nil)
}

// reconstruct is Reconstruct where the leaf of a basic type named in
// leafCost costs that much instead of opts.Cost.Leaf. Normalize uses it to
// reconstruct over sequences of opaque subtrees ("symbols") whose cost is
// their own tree's cost.
func reconstruct(m TypeMap, opts Options, leafCost map[string]int64) (tree *Node, cost int64, err error) {
	defer func() {
		// build and strucParts panic only if the tables are inconsistent,
		// which would be a bug in this package; report it as an error.
		if r := recover(); r != nil {
			tree, cost, err = nil, 0, fmt.Errorf("optimal: internal error: %v", r)
		}
	}()
	opts, err = opts.normalized()
	if err != nil {
		return nil, 0, err
	}
	if err := checkMap(m); err != nil {
		return nil, 0, err
	}
	if c := opts.Cost; opts.Constructors.Has(AllowStruc) {
		// Every segment has the trivial struc tree, which bounds all costs.
		maxLeaf := c.Leaf
		for _, v := range leafCost {
			maxLeaf = max(maxLeaf, v)
		}
		if bound := c.Struc + int64(len(m))*(c.Ix+c.Type+maxLeaf); bound > capCheck {
			return nil, 0, fmt.Errorf("optimal: costs may reach %d, more than %d; use smaller cost constants", bound, costCap)
		}
	}
	s := newSolver(m, opts, leafCost)
	s.run()
	if s.overflow {
		return nil, 0, fmt.Errorf("optimal: costs exceed %d; use smaller cost constants", costCap)
	}
	n := s.n
	x := s.d[0]
	if x == 0 {
		c := s.opt[s.at(0, n-1)]
		if c == inf {
			return nil, 0, fmt.Errorf("optimal: constructors %s: %w", s.set, ErrNotRepresentable)
		}
		return s.build(s.kind[s.at(0, n-1)], int(s.arg[s.at(0, n-1)]), 0, n-1), int64(c), nil
	}
	c := s.abs0[n-1]
	if c == inf {
		return nil, 0, fmt.Errorf("optimal: constructors %s: map starts at displacement %d, which needs idx, idxbuc or struc: %w", s.set, x, ErrNotRepresentable)
	}
	root := s.buildAbs(n - 1)
	shiftChain(root, x)
	return root, int64(c), nil
}

// shiftChain adds x to the displacements of the first irregular node on the
// chain of single-child regular nodes from the root.
func shiftChain(n *Node, x int64) {
	for n.Kind == Vec || n.Kind == SBuc {
		n = n.Child
	}
	for k := range n.Disps {
		n.Disps[k] += x
	}
}

func newSolver(m TypeMap, o Options, leafCost map[string]int64) *solver {
	n := len(m)
	s := &solver{n: n, cm: o.Cost, set: o.Constructors, t: make([]int32, n), d: make([]int64, n)}
	s.w = int32(o.Cost.Ix + o.Cost.Type)
	ids := map[string]int32{}
	for i, e := range m {
		id, ok := ids[e.Type]
		if !ok {
			id = int32(len(s.names))
			ids[e.Type] = id
			s.names = append(s.names, e.Type)
			sz, known := o.Sizes.Size(e.Type)
			if !known || sz <= 0 || sz > MaxDisp {
				sz = 0
			}
			s.size = append(s.size, sz)
			lc, ok := leafCost[e.Type]
			if !ok {
				lc = o.Cost.Leaf
			}
			s.leafCost = append(s.leafCost, clampCost(lc))
		}
		s.t[i] = id
		s.d[i] = e.Disp
	}
	return s
}

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
	v, ok := mulOK(nb, stride)
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

// sbucBuckets returns the canonical strided bucket with the fewest buckets
// for the block positions pos (pos[0] == 0): bucket stride, inner stride and
// bucket sizes, or ok == false if neither variant applies.
func sbucBuckets(pos []int64) (stride, inner int64, sizes []int64, ok bool) {
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
func (s *solver) build(k uint8, q, i, j int) *Node {
	l := j - i + 1
	sub := func() *Node {
		at := s.at(i, i+q-1)
		return s.build(s.kind[at], int(s.arg[at]), i, i+q-1)
	}
	switch k {
	case kLeaf:
		return &Node{Kind: Leaf, Type: s.names[s.t[i]], Count: 1}
	case kContig:
		return &Node{Kind: Leaf, Type: s.names[s.t[i]], Count: int64(l), Size: s.size[s.t[i]]}
	case kVec:
		return &Node{Kind: Vec, Count: int64(l / q), Stride: s.d[i+q] - s.d[i], Child: sub()}
	case kIdx:
		return &Node{Kind: Idx, Disps: s.blockPositions(i, q, l/q), Child: sub()}
	case kIdxBuc:
		st, ds, sz := idxbucBuckets(s.blockPositions(i, q, l/q))
		return &Node{Kind: IdxBuc, Stride: st, Disps: ds, Sizes: sz, Child: sub()}
	case kSBuc:
		st, in, sz, _ := sbucBuckets(s.blockPositions(i, q, l/q))
		return &Node{Kind: SBuc, Stride: st, Inner: in, Sizes: sz, Child: sub()}
	case kStruc:
		parts := s.strucParts(i, j)
		nd := &Node{Kind: Struc}
		a := i
		for _, e := range parts {
			at := s.at(a, e)
			nd.Disps = append(nd.Disps, s.d[a]-s.d[i])
			nd.Children = append(nd.Children, s.build(s.kind[at], int(s.arg[at]), a, e))
			a = e + 1
		}
		return nd
	}
	panic(fmt.Sprintf("optimal: internal error: no choice recorded for segment [%d, %d]", i, j))
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
			panic("optimal: internal error: struc partition not recoverable")
		}
	}
}

// buildAbs returns the recorded tree for aligned [0, j] that has an
// irregular node on every root-to-leaf path.
func (s *solver) buildAbs(j int) *Node {
	k, q := s.absK0[j], int(s.absA0[j])
	at := s.at(0, j)
	switch k {
	case kAbsVec:
		return &Node{Kind: Vec, Count: int64((j + 1) / q), Stride: s.d[q] - s.d[0], Child: s.buildAbs(q - 1)}
	case kAbsSBuc:
		st, in, sz, _ := sbucBuckets(s.blockPositions(0, q, (j+1)/q))
		return &Node{Kind: SBuc, Stride: st, Inner: in, Sizes: sz, Child: s.buildAbs(q - 1)}
	case kWrapIdx:
		return &Node{Kind: Idx, Disps: []int64{0}, Child: s.build(s.kind[at], int(s.arg[at]), 0, j)}
	case kWrapIdxBuc:
		return &Node{Kind: IdxBuc, Disps: []int64{0}, Sizes: []int64{1}, Child: s.build(s.kind[at], int(s.arg[at]), 0, j)}
	case kWrapStruc:
		return &Node{Kind: Struc, Disps: []int64{0}, Children: []*Node{s.build(s.kind[at], int(s.arg[at]), 0, j)}}
	}
	return s.build(k, q, 0, j)
}
