package recon

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrNotPeriodic: SolvePeriodic was given a sequence without a period of
// its letters that is also a period of its symbols (see SolvePeriodic).
var ErrNotPeriodic = errors.New("not periodic")

// MaxPeriodicLen is the longest sequence SolvePeriodic accepts (block
// lengths are stored in 32 bits, and the caller bounds the work with
// PeriodicWork).
const MaxPeriodicLen = 1 << 24

// LetterPeriod returns the least period p ≥ 1 of the letters of s — letter
// i ≥ 1 is (Sym[i], Disp[i] − Disp[i−1]) — for which also Sym[p] = Sym[0],
// and whether the letters' least period has that property (if not, or if
// only n is a period, it returns n, false). With p < n, element i+p is
// element i translated by Disp[p] − Disp[0] for every i < n − p, and no
// smaller period of the letters exists. O(n) (prefix function).
func LetterPeriod(s Seq) (int, bool) {
	n := len(s.Sym)
	if n < 2 {
		return n, false
	}
	m := n - 1
	letter := func(i int) (int32, int64) { return s.Sym[i+1], s.Disp[i+1] - s.Disp[i] }
	pi := make([]int32, m)
	for i := 1; i < m; i++ {
		k := int(pi[i-1])
		ti, gi := letter(i)
		for k > 0 {
			tk, gk := letter(k)
			if tk == ti && gk == gi {
				break
			}
			k = int(pi[k-1])
		}
		if tk, gk := letter(k); tk == ti && gk == gi {
			k++
		}
		pi[i] = int32(k)
	}
	p := m - int(pi[m-1]) // the letters' least period
	if p >= n || s.Sym[p] != s.Sym[0] {
		return n, false
	}
	return p, true
}

// PeriodicWork is the number of inner steps SolvePeriodic takes on a
// sequence of n elements of period p: about p·n²/2 (the struc recurrence)
// plus p²·n (short repetitions) and n·log n.
func PeriodicWork(n, p int) int64 {
	nn, pp := int64(n), int64(p)
	return pp*nn*nn/2 + pp*pp*nn + nn*64
}

// PeriodicBytes is the memory SolvePeriodic allocates for a sequence of n
// elements of period p: 23 bytes per (residue, length) class and about
// 40 per element.
func PeriodicBytes(n, p int) int64 {
	return 23*int64(p)*int64(n+1) + 40*int64(n)
}

// SolvePeriodic returns what Solve returns — a least-cost tree whose
// flattening is s, over set (without sbuc), and its cost — for a sequence
// whose letters have a least period p < n that is also a period of its
// symbols (LetterPeriod), in O(p·n²) time and O(p·n) memory instead of
// O(n³) and O(n²).
//
// Why it is exact: Solve's table holds, for every segment, the least cost
// of a tree for the segment translated to displacement 0 (aligned); the
// aligned segment is determined by its symbols and inner gaps. In a
// sequence of period p the segment [a, a+l) and [a mod p, a mod p + l) are
// equal once aligned, so the table has one entry per class (a mod p, l),
// and Solve's recurrences, written over classes, are the same minima over
// the same values: a struc splits class (r, l) into (r, t) and the classes
// of the rest, whose end residue is (r + l) mod p; a repetition of c copies
// of a block (r, q) needs the blocks [r + kq, r + (k+1)q) to be equal once
// aligned. When q is a multiple of p they always are; when q > p is not,
// they never are (their inner letters would make the letters periodic with
// period q mod p < p, which contradicts p being the least period); when
// q < p they are compared letter by letter.
func SolvePeriodic(s Seq, c Cost, set Set) (tree *Tree, cost int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			tree, cost, err = nil, 0, fmt.Errorf("recon: internal error: %v", r)
		}
	}()
	n := len(s.Sym)
	if n == 0 || len(s.Disp) != n {
		return nil, 0, fmt.Errorf("recon: %d symbols at %d displacements", n, len(s.Disp))
	}
	if n > MaxPeriodicLen {
		return nil, 0, fmt.Errorf("recon: sequence of %d elements, more than %d", n, MaxPeriodicLen)
	}
	if set.Has(AllowSBuc) {
		return nil, 0, fmt.Errorf("recon: SolvePeriodic does not take sbuc")
	}
	for i, d := range s.Disp {
		if d > MaxDisp || d < -MaxDisp {
			return nil, 0, fmt.Errorf("recon: element %d: displacement %d out of range ±2^61", i, d)
		}
		if sy := s.Sym[i]; sy < 0 || int(sy) >= len(s.LeafCost) {
			return nil, 0, fmt.Errorf("recon: element %d: symbol %d without a leaf cost", i, sy)
		}
	}
	p, ok := LetterPeriod(s)
	if !ok {
		return nil, 0, ErrNotPeriodic
	}
	if set.Has(AllowStruc) {
		maxLeaf := int64(0)
		for _, v := range s.LeafCost {
			maxLeaf = max(maxLeaf, v)
		}
		if bound := c.Struc + int64(n)*(c.Ix+c.Type+maxLeaf); bound > capCheck {
			return nil, 0, fmt.Errorf("recon: costs may reach %d, more than %d: %w", bound, costCap, ErrCost)
		}
	}
	ps := newPSolver(s, p, c, set)
	ps.run()
	if ps.overflow.Load() {
		return nil, 0, fmt.Errorf("recon: costs exceed %d: %w", costCap, ErrCost)
	}
	if x := s.Disp[0]; x != 0 {
		v := ps.abs0[n]
		if v == inf {
			return nil, 0, ErrShift
		}
		root := ps.buildAbs(n)
		shiftChain(root, x)
		return root, int64(v), nil
	}
	v := ps.opt[0][n]
	if v == inf {
		return nil, 0, ErrNotRepresentable
	}
	return ps.build(ps.kind[0][n], int(ps.arg[0][n]), 0, n), int64(v), nil
}

// psolver holds SolvePeriodic's tables, one entry per class (residue r < p,
// length l ≤ n − r), with the segment [r, r+l) as the class's
// representative.
type psolver struct {
	n, p int
	t    []int32
	d    []int64
	size []int64
	leaf []int32
	cm   Cost
	set  Set
	w    int32

	opt  [][]int32 // opt[r][l]
	kind [][]uint8 // root choice of class (r, l)
	arg  [][]int32 // block length of repetition roots
	prev [][]int32 // prev[e][n-l]: P of the class of length l ending at residue e
	rep  [][]int32 // best repetition root offered to (r, l) so far
	repK [][]uint8 // its kind
	repA [][]int32 // its block length
	cont []int32   // cont[r]: length of the contiguous run starting at r
	irr0 []int32   // row 0: best idx/idxbuc root
	irrK []uint8   //
	irrA []int32   //
	areg []int32   // row 0: best vec over a block with an irregular node on every path
	arA  []int32   //
	abs0 []int32   // row 0: least cost with an irregular node on every root-to-leaf path
	absK []uint8   //
	absA []int32   //
	gaps []int64   // gaps[i] = d[i] - d[i-1], i ≥ 1

	overflow atomic.Bool
}

func newPSolver(q Seq, p int, c Cost, set Set) *psolver {
	n := len(q.Sym)
	s := &psolver{n: n, p: p, t: q.Sym, d: q.Disp, cm: c, set: set, w: int32(c.Ix + c.Type)}
	s.size = make([]int64, len(q.LeafCost))
	s.leaf = make([]int32, len(q.LeafCost))
	for k, lc := range q.LeafCost {
		s.leaf[k] = clampCost(lc)
		if k < len(q.Size) && q.Size[k] > 0 && q.Size[k] <= MaxDisp {
			s.size[k] = q.Size[k]
		}
	}
	s.gaps = make([]int64, n)
	for i := 1; i < n; i++ {
		s.gaps[i] = q.Disp[i] - q.Disp[i-1]
	}
	rows := func() [][]int32 {
		x := make([][]int32, p)
		for r := range x {
			x[r] = make([]int32, n+1)
		}
		return x
	}
	rows8 := func() [][]uint8 {
		x := make([][]uint8, p)
		for r := range x {
			x[r] = make([]uint8, n+1)
		}
		return x
	}
	s.opt, s.arg, s.rep, s.repA = rows(), rows(), rows(), rows()
	s.kind, s.repK = rows8(), rows8()
	if set.Has(AllowStruc) {
		s.prev = rows()
	}
	for r := range p {
		for l := range s.rep[r] {
			s.rep[r][l] = inf
		}
	}
	s.cont = make([]int32, p)
	if set.Has(AllowContig) {
		run := int32(1)
		for i := n - 1; i >= 0; i-- {
			if i+1 < n && s.size[s.t[i]] > 0 && s.t[i+1] == s.t[i] && s.gaps[i+1] == s.size[s.t[i]] {
				run++
			} else {
				run = 1
			}
			if i < p {
				s.cont[i] = run
			}
		}
	}
	s.irr0, s.areg, s.abs0 = make([]int32, n+1), make([]int32, n+1), make([]int32, n+1)
	s.irrK, s.absK = make([]uint8, n+1), make([]uint8, n+1)
	s.irrA, s.arA, s.absA = make([]int32, n+1), make([]int32, n+1), make([]int32, n+1)
	for l := range s.irr0 {
		s.irr0[l], s.areg[l], s.abs0[l] = inf, inf, inf
	}
	return s
}

// wrap returns the cheapest count-1 irregular node that can carry a shift.
func (s *psolver) wrap() (int32, uint8) {
	return (&solver{cm: s.cm, set: s.set}).wrap()
}

func (s *psolver) run() {
	n, p := s.n, s.p
	struc := s.set.Has(AllowStruc)
	wrapCost, wrapK := s.wrap()
	contigCost := clampCost(s.cm.Contig)
	strucK := int32(s.cm.Struc)
	w := s.w
	workers := 2
	// one class: its cost, P, the row-0 absorbing cost, and its pushes
	one := func(r, l int, freq map[int64]int32) {
		best, bk, ba := inf, kNone, int32(0)
		if l == 1 {
			best, bk = s.leaf[s.t[r]], kLeaf
		} else if int(s.cont[r]) >= l {
			best, bk = contigCost, kContig
		}
		if v := s.rep[r][l]; v < best {
			best, bk, ba = v, s.repK[r][l], s.repA[r][l]
		}
		strucCost := inf
		if struc {
			e := (r + l) % p
			if l >= 2 {
				mm := minPlus(s.opt[r][1:l], s.prev[e][n-l+1:n])
				strucCost = clampCost(int64(strucK) + int64(w) + int64(mm))
				if strucCost < best {
					best, bk, ba = strucCost, kStruc, 0
				}
				s.prev[e][n-l] = clampCost(int64(w) + int64(min(best, mm)))
			} else {
				s.prev[e][n-l] = clampCost(int64(w) + int64(best))
			}
		}
		if best != inf && best > costCap {
			s.overflow.Store(true)
		}
		s.opt[r][l], s.kind[r][l], s.arg[r][l] = best, bk, ba
		absv := inf
		if r == 0 {
			a, ak, aa := s.irr0[l], s.irrK[l], s.irrA[l]
			if strucCost < a {
				a, ak, aa = strucCost, kStruc, 0
			}
			if s.areg[l] < a {
				a, ak, aa = s.areg[l], kAbsVec, s.arA[l]
			}
			if best != inf && wrapK != kNone {
				if v := clampCost(int64(best) + int64(wrapCost)); v < a {
					a, ak, aa = v, wrapK, 0
				}
			}
			s.abs0[l], s.absK[l], s.absA[l] = a, ak, aa
			absv = a
		}
		if best != inf && 2*l <= n-r {
			s.push(r, l, best, absv, freq)
		}
	}
	freqs := make([]map[int64]int32, workers)
	for k := range freqs {
		freqs[k] = map[int64]int32{}
	}
	var wg sync.WaitGroup
	for l := 1; l <= n; l++ {
		top := min(p, n-l+1) // residues r with r + l ≤ n
		if l*top < 1<<14 || top < 2 {
			for r := range top {
				one(r, l, freqs[0])
			}
			continue
		}
		for k := range workers {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				for r := k; r < top; r += workers {
					one(r, l, freqs[k])
				}
			}(k)
		}
		wg.Wait()
	}
}

// blocksEqual reports whether the blocks [x, x+q) and [x+q, x+2q) are
// equal once aligned (x + 2q ≤ n).
func (s *psolver) blocksEqual(x, q int) bool {
	if q%s.p == 0 {
		return true
	}
	if q > s.p {
		return false // see SolvePeriodic
	}
	if s.t[x] != s.t[x+q] {
		return false
	}
	for y := x + 1; y < x+q; y++ {
		if s.t[y] != s.t[y+q] || s.gaps[y] != s.gaps[y+q] {
			return false
		}
	}
	return true
}

// push offers the class (r, q) as the repeated block of the classes
// (r, c·q), c ≥ 2, whose c blocks are equal once aligned, as vec, idx and
// idxbuc roots (and, for row 0, as the block of absorbing vec roots).
func (s *psolver) push(r, q int, optv, absv int32, freq map[int64]int32) {
	if q%s.p != 0 && q > s.p {
		return
	}
	cm := s.cm
	vec, idx, idxbuc := s.set.Has(AllowVec), s.set.Has(AllowIdx), s.set.Has(AllowIdxBuc)
	ov, av := int64(optv), int64(absv)
	clear(freq)
	var f int32
	allEq := true
	var g0 int64
	rep, repK, repA := s.rep[r], s.repK[r], s.repA[r]
	upd := func(cost []int32, kinds []uint8, args []int32, l int, v int64, k uint8) {
		if v < int64(cost[l]) {
			cost[l], kinds[l], args[l] = clampCost(v), k, int32(q)
		}
	}
	periodic := q%s.p == 0
	for k := 0; ; k++ {
		x := r + k*q
		if x+2*q > s.n || !s.blocksEqual(x, q) {
			break
		}
		c := int64(k + 2)
		l := (k + 2) * q
		gap := s.d[x+q] - s.d[x]
		if k == 0 {
			g0 = gap
		} else if gap != g0 {
			allEq = false
		}
		if periodic {
			f = int32(c - 1) // every gap is the shift times q/p
		} else {
			freq[gap]++
			f = max(f, freq[gap])
		}
		if vec && allEq {
			upd(rep, repK, repA, l, cm.Vec+ov, kVec)
			if r == 0 && absv != inf {
				if v := cm.Vec + av; v < int64(s.areg[l]) {
					s.areg[l], s.arA[l] = clampCost(v), int32(q)
				}
			}
		}
		if idx {
			v := cm.Idx + c*cm.Ix + ov
			upd(rep, repK, repA, l, v, kIdx)
			if r == 0 {
				upd(s.irr0, s.irrK, s.irrA, l, v, kIdx)
			}
		}
		if idxbuc {
			v := cm.IdxBuc + (c-int64(f))*(cm.Ix+cm.Bucket) + ov
			upd(rep, repK, repA, l, v, kIdxBuc)
			if r == 0 {
				upd(s.irr0, s.irrK, s.irrA, l, v, kIdxBuc)
			}
		}
	}
}

// pAt is P of the segment [a, a+l): the least weight of a partition into
// consecutive parts, each Ix+Type plus its optimal cost.
func (s *psolver) pAt(a, l int) int32 { return s.prev[(a+l)%s.p][s.n-l] }

// optAt is the optimal cost of the aligned segment [a, a+l).
func (s *psolver) optAt(a, l int) int32 { return s.opt[a%s.p][l] }

// blockPositions returns the aligned starts of the c blocks of length q
// from a.
func (s *psolver) blockPositions(a, q, c int) []int64 {
	pos := make([]int64, c)
	for k := range pos {
		pos[k] = s.d[a+k*q] - s.d[a]
	}
	return pos
}

// build returns the tree of the segment [a, a+l) (a in the map) with root
// choice k and argument q.
func (s *psolver) build(k uint8, q, a, l int) *Tree {
	sub := func() *Tree {
		r := a % s.p
		return s.build(s.kind[r][q], int(s.arg[r][q]), a, q)
	}
	switch k {
	case kLeaf:
		return &Tree{Kind: Leaf, Sym: s.t[a], Count: 1}
	case kContig:
		return &Tree{Kind: Leaf, Sym: s.t[a], Count: int64(l), Size: s.size[s.t[a]]}
	case kVec:
		return &Tree{Kind: Vec, Count: int64(l / q), Stride: s.d[a+q] - s.d[a], Child: sub()}
	case kIdx:
		return &Tree{Kind: Idx, Disps: s.blockPositions(a, q, l/q), Child: sub()}
	case kIdxBuc:
		st, ds, sz := idxbucBuckets(s.blockPositions(a, q, l/q))
		return &Tree{Kind: IdxBuc, Stride: st, Disps: ds, Sizes: sz, Child: sub()}
	case kStruc:
		nd := &Tree{Kind: Struc}
		for _, pt := range s.strucParts(a, l) {
			r := pt[0] % s.p
			nd.Disps = append(nd.Disps, s.d[pt[0]]-s.d[a])
			nd.Children = append(nd.Children, s.build(s.kind[r][pt[1]], int(s.arg[r][pt[1]]), pt[0], pt[1]))
		}
		return nd
	}
	panic(fmt.Sprintf("recon: internal error: no choice recorded for segment [%d, %d)", a, a+l))
}

// strucParts recovers the parts (start, length) of a least-cost partition
// of [a, a+l) into at least two parts.
func (s *psolver) strucParts(a, l int) [][2]int {
	w := s.w
	mm, first := inf, -1
	for t := 1; t < l; t++ {
		if v := s.optAt(a, t) + s.pAt(a+t, l-t); v < mm {
			mm, first = v, t
		}
	}
	parts := [][2]int{{a, first}}
	b, rest := a+first, l-first
	for {
		target := s.pAt(b, rest)
		if w+s.optAt(b, rest) == target {
			return append(parts, [2]int{b, rest})
		}
		found := false
		for t := 1; t < rest; t++ {
			if w+s.optAt(b, t)+s.pAt(b+t, rest-t) == target {
				parts = append(parts, [2]int{b, t})
				b, rest = b+t, rest-t
				found = true
				break
			}
		}
		if !found {
			panic("recon: internal error: struc partition not recoverable")
		}
	}
}

// buildAbs returns the recorded tree for aligned [0, l) that has an
// irregular node on every root-to-leaf path.
func (s *psolver) buildAbs(l int) *Tree {
	k, q := s.absK[l], int(s.absA[l])
	switch k {
	case kAbsVec:
		return &Tree{Kind: Vec, Count: int64(l / q), Stride: s.d[q] - s.d[0], Child: s.buildAbs(q)}
	case kWrapIdx:
		return &Tree{Kind: Idx, Disps: []int64{0}, Child: s.build(s.kind[0][l], int(s.arg[0][l]), 0, l)}
	case kWrapIdxBuc:
		return &Tree{Kind: IdxBuc, Disps: []int64{0}, Sizes: []int64{1}, Child: s.build(s.kind[0][l], int(s.arg[0][l]), 0, l)}
	case kWrapStruc:
		return &Tree{Kind: Struc, Disps: []int64{0}, Children: []*Tree{s.build(s.kind[0][l], int(s.arg[0][l]), 0, l)}}
	case kIdx, kIdxBuc:
		// the irregular root recorded in irr0
		return s.build(k, q, 0, l)
	case kStruc:
		return s.build(kStruc, 0, 0, l)
	}
	panic(fmt.Sprintf("recon: internal error: no absorbing choice recorded for [0, %d)", l))
}
