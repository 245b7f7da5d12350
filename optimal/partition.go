package optimal

import (
	"cmp"
	"math"
	"slices"
)

// maxPartitionWork bounds the steps of partitionBound (block comparisons
// and window extensions): 2^22, about 0.2 s; the WRF layouts (22,701 and
// 25,662 elements) take 1.7 and 2.4 million.
const maxPartitionWork = 1 << 22

// maxPartitionStates bounds the window states partitionBound holds at
// once (about 100 bytes each with the map): 2^18, 26 MB.
const maxPartitionStates = 1 << 18

// partitionBound is the root-struc case of the shape bound made window by
// window (docs/normalization.md, "Lower bounds", 6 and round 4): a lower
// bound, capped at target, on every tree whose root is a struc S of k ≥ 2
// children (sets with struc, without sbuc and contig). In a least-cost
// tree in canonical form no child of a struc is a struc or a node of one
// copy, so each child of S is a leaf over one element, or a vec, idx or
// idxbuc of c ≥ 2 copies of a subtree: its window of m splits into c
// translated blocks of q elements, and it costs at least a lower bound of
// its level (vec only while the copies' gaps are equal, idx + c·ix,
// idxbuc with at least 1 + ⌈ch/2⌉ buckets) plus a lower bound of the
// aligned block (the old piece bounds; a leaf, mu per primary junction
// inside and one interior node's excess; the excess bound of the block,
// computed for the windows of the shortest path, which is then found
// again). S costs struc plus, per child, ix + type and the child's cost;
// the least over partitions of m into k ≥ 2 such windows is a shortest
// path over positions 0 … n. The windows of one q ending at one position
// are kept as one state per level kind (their costs grow alike with c),
// so a run of equal blocks costs O(its copies) per q, not its square; a
// position or window whose cost plus mu per primary junction after it
// (a lower bound on the windows that must follow) reaches the target is
// dropped. Blocks are compared by a polynomial hash of the letters (a
// collision can only add an edge and lower the bound), candidate q found
// along equal 4-grams. ok is false when the work would exceed maxWork.
func partitionBound(m TypeMap, opts Options, target, maxWork int64) (bound int64, ok bool) {
	n := len(m)
	set, c := opts.Constructors, opts.Cost
	if n < 2 || !set.Has(AllowStruc) || set.Has(AllowSBuc) || set.Has(AllowContig) {
		return 0, false
	}
	inf := int64(math.MaxInt64 / 4)
	w := c.Ix + c.Type
	l1 := c.Leaf
	inner := c.Struc + w // the cheapest interior node
	level2 := inf        // the cheapest node of two copies or more
	if set.Has(AllowVec) {
		inner, level2 = min(inner, c.Vec), min(level2, c.Vec)
	}
	if set.Has(AllowIdx) {
		inner, level2 = min(inner, c.Idx+c.Ix), min(level2, c.Idx+2*c.Ix)
	}
	if set.Has(AllowIdxBuc) {
		inner, level2 = min(inner, c.IdxBuc+c.Ix+c.Bucket), min(level2, c.IdxBuc+c.Ix+c.Bucket)
	}
	capv := target - c.Struc // the children must reach this
	if capv <= 0 || level2 == inf {
		return min(target, c.Struc), true
	}
	sc := newSlotCosts(opts)
	if !sc.ok {
		return 0, false
	}

	// pre[i]: the primary junctions among 1 … i−1 (primaryFlags)
	prim, _ := primaryFlags(m, primaryTries)
	pre := make([]int32, n+1)
	for i := 1; i <= n; i++ {
		pre[i] = pre[i-1]
		if prim[i-1] {
			pre[i]++
		}
	}
	prim = nil
	// every partition costs ix + type + a leaf and mu per primary
	// junction at least (h(0) below): nothing to search when that
	// reaches the target (an index list of distinct gaps)
	if w+l1+(sc.mu2*int64(pre[n]-pre[1])+1)/2 >= capv {
		return target, true
	}

	lh := newLetterHash(m)
	typ, gap := lh.typ, lh.gap
	// blocks [x, x+q) and [x+q, x+2q) equal once aligned (up to hash
	// collisions, which only add windows)
	blockEq := func(x, q int) bool {
		if typ[x] != typ[x+q] {
			return false
		}
		if q == 1 {
			return true
		}
		if gap[x+1] != gap[x+q+1] || typ[x+1] != typ[x+q+1] {
			return false
		}
		return lh.eq(x+1, x+q+1, q-1)
	}
	// arun[i]: the longest run of one type at one gap starting at i
	arun := make([]int32, n)
	arun[n-1] = 1
	for i := n - 2; i >= 0; i-- {
		switch {
		case typ[i+1] != typ[i]:
			arun[i] = 1
		case arun[i+1] == 1 || gap[i+2] == gap[i+1]:
			arun[i] = arun[i+1] + 1
		default:
			arun[i] = 2
		}
	}
	// half-ceil of mu2·(primary junctions among lo … hi−1)
	muP := func(lo, hi int) int64 {
		if hi <= lo {
			return 0
		}
		return (sc.mu2*int64(pre[hi]-pre[lo]) + 1) / 2
	}
	// h(x): a lower bound on the windows covering [x, n) (each window
	// pays ix + type + a leaf at least, and mu per primary junction inside
	// it or at its start)
	h := func(x int) int64 {
		if x >= n {
			return 0
		}
		return w + l1 + muP(x+1, n)
	}
	refined := map[[2]int32]int64{} // blocks bounded by blockExcess
	// a lower bound on the optimum of the aligned block [a, a+q)
	blockLB := func(a, q int) int64 {
		switch {
		case q == 1:
			return l1
		case int(arun[a]) >= q:
			return l1 + inner
		}
		v := min(l1+2*inner, satAdd(c.Struc, int64(q)*(w+l1)))
		if set.Has(AllowIdx) {
			v = min(v, c.Idx+int64(q)*c.Ix+l1)
		}
		if set.Has(AllowIdxBuc) {
			v = min(v, c.IdxBuc+2*(c.Ix+c.Bucket)+l1)
		}
		// mu per primary junction inside, one interior node's excess
		if sc.any2 < inf && !noExcess {
			v = max(v, l1+(sc.mu2*int64(pre[a+q]-pre[a+1])+sc.any2+1)/2)
		}
		if r, ok := refined[[2]int32{int32(a), int32(q)}]; ok {
			v = max(v, r)
		}
		return v
	}
	// nonArith is blockLB's bound for a block of q ≥ 2 elements that is
	// not one type at one gap (0 for one that is): non-decreasing in q
	nonArith := func(a, q int) int64 {
		if q < 2 || int(arun[a]) >= q {
			return 0
		}
		v := min(l1+2*inner, satAdd(c.Struc, int64(q)*(w+l1)))
		if set.Has(AllowIdx) {
			v = min(v, c.Idx+int64(q)*c.Ix+l1)
		}
		if set.Has(AllowIdxBuc) {
			v = min(v, c.IdxBuc+2*(c.Ix+c.Bucket)+l1)
		}
		return v
	}
	// nxt[j]: the next j' > j whose letters j' … j'+3 equal j … j+3
	// (hashed), −1 if none: candidate block lengths q ≥ 5 from a are
	// nxt-chain positions from a+1 (q = j' − a − 1)
	const kg = 4
	nxt := make([]int32, n)
	for i := range nxt {
		nxt[i] = -1
	}
	if n > kg+1 {
		type gram struct {
			h uint64
			j int32
		}
		gs := make([]gram, 0, n-kg)
		for j := 1; j+kg <= n; j++ {
			gs = append(gs, gram{lh.sub(j, j+kg), int32(j)})
		}
		slices.SortFunc(gs, func(x, y gram) int {
			if c := cmp.Compare(x.h, y.h); c != 0 {
				return c
			}
			return cmp.Compare(x.j, y.j)
		})
		for t := 0; t+1 < len(gs); t++ {
			if gs[t].h == gs[t+1].h {
				nxt[gs[t].j] = gs[t+1].j
			}
		}
	}

	// nxtL[j]: the next j' > j with letter j' = letter j, −1 if none
	nxtL := make([]int32, n)
	{
		type let struct {
			g    int64
			t, j int32
		}
		ls := make([]let, 0, n)
		for j := 1; j < n; j++ {
			ls = append(ls, let{gap[j], typ[j], int32(j)})
		}
		slices.SortFunc(ls, func(x, y let) int {
			if c := cmp.Compare(x.g, y.g); c != 0 {
				return c
			}
			if c := cmp.Compare(x.t, y.t); c != 0 {
				return c
			}
			return cmp.Compare(x.j, y.j)
		})
		for i := range nxtL {
			nxtL[i] = -1
		}
		for t := 0; t+1 < len(ls); t++ {
			if ls[t].g == ls[t+1].g && ls[t].t == ls[t+1].t {
				nxtL[ls[t].j] = ls[t+1].j
			}
		}
	}

	// cntK[j], cntL[j]: the later positions on j's 4-gram and letter
	// chains
	cntK, cntL := make([]int32, n), make([]int32, n)
	for j := n - 1; j >= 0; j-- {
		if nxt[j] >= 0 {
			cntK[j] = cntK[nxt[j]] + 1
		}
		if nxtL[j] >= 0 {
			cntL[j] = cntL[nxtL[j]] + 1
		}
	}

	dist := make([]int64, n+1)
	par := make([][2]int32, n+1) // the window into x: its start, q (0: one element)
	// fam is the windows of one block length q that end at a position:
	// the least cost of those with a vec, idx and idxbuc level (the last
	// from the bucket count 1 + ⌈ch/2⌉, ch the changes of the copies'
	// gap — of two consecutive gaps that differ one is not the substride
	// — kept apart for even and odd ch), the start of each, and the last
	// gap between copies. Windows from position 0 are kept apart (z):
	// they cannot end at n, where the others must not be lost to them.
	// Windows of one q ending at one position share their blocks back to
	// the shortest one's start, so their extensions are checked once.
	type fam struct {
		q                int32
		z                bool
		vec, idx, be, bo int64
		av, ai, abe, abo int32
		gap              int64
	}
	states := map[int32][]fam{}
	live := 0 // states held
	var work int64
	run := func() bool {
		vecC, idxC, bucC, ixB := inf, inf, inf, c.Ix+c.Bucket
		if set.Has(AllowVec) {
			vecC = c.Vec
		}
		if set.Has(AllowIdx) {
			idxC = c.Idx
		}
		if set.Has(AllowIdxBuc) {
			bucC = c.IdxBuc
		}
		for i := range dist {
			dist[i] = inf
		}
		dist[0] = 0
		clear(states)
		live = 0
		relax := func(x int, v int64, a, q int) {
			if (a > 0 || x < n) && v < dist[x] && v+h(x) < capv {
				dist[x], par[x] = v, [2]int32{int32(a), int32(q)}
			}
		}
		// rest2: twice a lower bound on the windows after x, less their
		// first ix + type + leaf: mu per primary junction from x on
		rest2 := func(x int) int64 { return sc.mu2 * int64(pre[n]-pre[min(x, n)]) }
		// put f (windows ending at y) into the states at y, relaxing y;
		// a component whose cost, with the rest, reaches the target is
		// dropped: vec never gets cheaper, and each further copy adds
		// ix (idx) or, at a gap change, (ix + bucket)/2 (idxbuc) — at
		// least mu — while it takes at most one primary junction (the
		// one between the copies; those inside a copy are secondary)
		// from the rest
		put := func(y int, f fam) {
			if f.vec >= capv {
				f.vec = inf
			}
			if 2*f.idx+rest2(y) >= 2*capv {
				f.idx = inf
			}
			// an odd ch has paid half a bucket ahead
			if 2*f.be+rest2(y) >= 2*capv {
				f.be = inf
			}
			if 2*f.bo-ixB+rest2(y) >= 2*capv {
				f.bo = inf
			}
			if f.vec >= inf && f.idx >= inf && f.be >= inf && f.bo >= inf {
				return
			}
			relax(y, f.vec, int(f.av), int(f.q))
			relax(y, f.idx, int(f.ai), int(f.q))
			relax(y, f.be, int(f.abe), int(f.q))
			relax(y, f.bo, int(f.abo), int(f.q))
			fs := states[int32(y)]
			for k := range fs {
				if g := &fs[k]; g.q == f.q && g.z == f.z {
					if f.vec < g.vec {
						g.vec, g.av = f.vec, f.av
					}
					if f.idx < g.idx {
						g.idx, g.ai = f.idx, f.ai
					}
					if f.be < g.be {
						g.be, g.abe = f.be, f.abe
					}
					if f.bo < g.bo {
						g.bo, g.abo = f.bo, f.abo
					}
					return
				}
			}
			states[int32(y)] = append(fs, f)
			live++
		}
		// the windows of q-blocks from a (blocks [a, a+q) and [a+q,
		// a+2q) equal): two copies
		open := func(a, q int, at int64) {
			lbb := blockLB(a, q)
			if at+lbb+level2 >= capv {
				return
			}
			b := at + lbb
			f := fam{q: int32(q), z: a == 0, vec: inf, idx: inf, be: inf, bo: inf, av: int32(a), ai: int32(a), abe: int32(a), abo: int32(a),
				gap: m[a+q].Disp - m[a].Disp}
			if !plainWindows && q >= 2 && int(arun[a]) >= 2*q && vecC < inf && l1+vecC <= lbb+level2 {
				// the first c0 − 1 copies lie in a run of one type at one
				// gap: a window of c ≤ c0 − 1 copies costs at least a vec
				// of its elements (the window of q = 1 from a, also an
				// edge); the windows from c0 copies on are the family's
				c0 := int(arun[a])/q + 1
				if a+c0*q > n || !blockEq(a+(c0-2)*q, q) {
					return
				}
				g0, g := f.gap, m[a+(c0-1)*q].Disp-m[a+(c0-2)*q].Disp
				f.gap = g
				if g == g0 {
					f.vec = b + vecC
					if bucC < inf {
						f.be = b + bucC + ixB
					}
				} else if bucC < inf {
					f.bo = b + bucC + 2*ixB // ch = 1: two buckets
				}
				if idxC < inf {
					f.idx = b + idxC + int64(c0)*c.Ix
				}
				put(a+c0*q, f)
				return
			}
			if vecC < inf {
				f.vec = b + vecC
			}
			if idxC < inf {
				f.idx = b + idxC + 2*c.Ix
			}
			if bucC < inf {
				f.be = b + bucC + ixB // one bucket, ch = 0
			}
			put(a+2*q, f)
		}
		for a := 0; a <= n; a++ {
			// the windows ending at a, one copy longer
			if fs, ok := states[int32(a)]; ok {
				delete(states, int32(a))
				live -= len(fs)
				for _, f := range fs {
					q := int(f.q)
					if a+q > n {
						continue
					}
					work++
					if !blockEq(a-q, q) {
						continue
					}
					g := m[a].Disp - m[a-q].Disp
					e := fam{q: f.q, z: f.z, vec: inf, idx: satAdd(f.idx, c.Ix), be: f.be, bo: f.bo, av: f.av, ai: f.ai, abe: f.abe, abo: f.abo, gap: g}
					if g == f.gap {
						e.vec = f.vec
					} else {
						// ch + 1: ⌈ch/2⌉ grows when ch was even
						e.bo, e.abo = satAdd(f.be, ixB), f.abe
						e.be, e.abe = f.bo, f.abo
					}
					put(a+q, e)
				}
			}
			if a == n || dist[a] >= inf || dist[a]+h(a) >= capv {
				continue
			}
			at := dist[a] + w
			relax(a+1, at+l1, a, 0)
			if r := int(arun[a]); !plainWindows && r >= 2 && vecC < inf && vecC <= inner+level2 {
				// elements a … a+r−1 are one type at one gap (Lemma 9):
				// q = 1; q dividing r with 2q ≤ r (the windows inside the
				// run are vecs of its elements, the others have a copy
				// starting at its end); q = r; and longer q whose block
				// holds the letter that ends the run, which recurs q
				// later. Every other q has unequal blocks.
				half := (n - a) / 2
				try := func(q int) {
					work++
					if q <= half && blockEq(a, q) {
						open(a, q, at)
					}
				}
				try(1)
				for k := 2; k*k <= r; k++ {
					if r%k == 0 {
						if 2*k <= r {
							try(k)
						}
						if k2 := r / k; k2 != k && 2*k2 <= r {
							try(k2)
						}
					}
				}
				try(r)
				// q > r: along the shorter of the two chains — the
				// letter that ends the run, or the 4-gram from a+1
				if e := a + r; e < n && cntL[e] <= cntK[a+1] {
					for j := nxtL[e]; j >= 0; j = nxtL[j] {
						q := int(j) - e
						if q > half {
							break
						}
						work++
						if q <= r {
							continue
						}
						if at+max(l1+muP(a+1, a+q), nonArith(a, q))+level2 >= capv {
							break
						}
						try(q)
					}
				} else if e < n {
					for q := r + 1; q <= kg; q++ {
						try(q)
					}
					for j := nxt[a+1]; j >= 0; j = nxt[j] {
						q := int(j) - a - 1
						if q > half {
							break
						}
						work++
						if q <= max(r, kg) {
							continue
						}
						if at+max(l1+muP(a+1, a+q), nonArith(a, q))+level2 >= capv {
							break
						}
						try(q)
					}
				}
			} else {
				// short blocks directly, longer ones along the k-gram chain
				for q := 1; q <= kg && a+2*q <= n; q++ {
					work++
					if blockEq(a, q) {
						open(a, q, at)
					}
				}
				if a+1 < n {
					for j := nxt[a+1]; j >= 0; j = nxt[j] {
						q := int(j) - a - 1
						if a+2*q > n {
							break
						}
						work++
						if q <= kg {
							continue
						}
						// a longer block has at least as many primary junctions,
						// and past the run of one gap from a its bound is at
						// least nonArith(q), which grows with q
						if at+max(l1+muP(a+1, a+q), nonArith(a, q))+level2 >= capv {
							break
						}
						if blockEq(a, q) {
							open(a, q, at)
						}
					}
				}
			}
			if work > maxWork || live > maxPartitionStates {
				return false
			}
		}
		return true
	}
	var refineWork int64
	for round := 0; ; round++ {
		if !run() {
			return 0, false
		}
		if dist[n] >= capv {
			return target, true
		}

		// bound the blocks of the windows on the shortest path by
		// blockExcess (their own chains and primary junctions); again if
		// that raised one
		raised := false
		for x := n; x > 0; x = int(par[x][0]) {
			a, q := int(par[x][0]), int(par[x][1])
			key := [2]int32{int32(a), int32(q)}
			if _, done := refined[key]; q < 2 || done || noExcess || refineWork > 8*int64(n)+maxWork {
				continue
			}
			old := blockLB(a, q)
			refineWork += int64(q)
			refined[key] = blockExcess(m[a:a+q], opts)
			raised = raised || refined[key] > old
		}
		if !raised || round >= 64 {
			break
		}
	}
	return min(target, c.Struc+min(dist[n], capv)), true
}

// plainWindows turns off partitionBound's shortcuts for runs of one type
// at one gap (tests compare the bound with and without them).
var plainWindows bool
