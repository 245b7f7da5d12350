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

// maxPartitionTarget is the largest target partitionBound takes: windows
// are cut once their bound reaches the target, which keeps them few only
// when it is small (a target of thousands — index lists — would make
// every window of up to thousands of elements an edge).
const maxPartitionTarget = 256

// partitionBound is the root-struc case of the shape bound made window by
// window (docs/normalization.md, "Lower bounds", 6): a lower bound, capped
// at target, on every tree whose root is a struc S of k ≥ 2 children (sets
// with struc, without sbuc and contig). In a least-cost tree in canonical
// form no child of a struc is a struc (merging them saves struc + ix +
// type) or a node of one copy (a vec of count 1 is removed, an idx or
// idxbuc of one entry folded into the struc's displacement), so each child
// of S is a leaf over one element, or a vec, idx or idxbuc of c ≥ 2 copies
// of a subtree: its window of m splits into c translated blocks of q
// elements, and it costs at least levelCost of the block starts plus a
// lower bound of the aligned block (a leaf for q = 1; a leaf and a vec for
// an arithmetic block of one type; else the least of two interior nodes
// and a leaf, one idx, idxbuc or struc over leaves). S costs struc plus,
// per child, ix + type and the child's cost; the least over partitions of
// m into k ≥ 2 such windows is a shortest path over positions 0 … n, each
// window an edge. Windows are found by comparing consecutive blocks (a
// polynomial hash of the letters: a collision can only add an edge and
// lower the bound, never raise it), a window's c extended while its cost
// can stay below target (levelCost never decreases with c). ok is false
// when the work would exceed maxWork or target maxPartitionTarget.
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
	// nxt[j]: the next j' > j whose letters j' … j'+3 equal j … j+3
	// (hashed), −1 if none: candidate block lengths q ≥ 5 from a are
	// nxt-chain positions from a+1 (q = j' − a − 1)
	const kg = 4
	nxt := make([]int32, n)
	for i := range nxt {
		nxt[i] = -1
	}
	if n > kg+1 {
		idx := make([]int32, 0, n-kg)
		for j := 1; j+kg <= n; j++ {
			idx = append(idx, int32(j))
		}
		hk := func(j int32) uint64 { return lh.sub(int(j), int(j)+kg) }
		slices.SortFunc(idx, func(x, y int32) int {
			if c := cmp.Compare(hk(x), hk(y)); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		for t := 0; t+1 < len(idx); t++ {
			if hk(idx[t]) == hk(idx[t+1]) {
				nxt[idx[t]] = idx[t+1]
			}
		}
	}

	dist := make([]int64, n+1)
	par := make([][2]int32, n+1) // the window into x: its start, q (0: one element)
	var work int64
	run := func() bool {
		for i := range dist {
			dist[i] = inf
		}
		dist[0] = 0
		relax := func(x int, v int64, a, q int) {
			if v < dist[x] && v+h(x) < capv {
				dist[x], par[x] = v, [2]int32{int32(a), int32(q)}
			}
		}
		// the windows of q-blocks from a (blocks [a, a+q) and [a+q,
		// a+2q) equal)
		window := func(a, q int, at int64) {
			lbb := blockLB(a, q)
			if at+lbb+level2 >= capv {
				return
			}
			// extend the window [a, a + cnt·q) while the blocks repeat;
			// an idxbuc with substride s has a bucket per gap ≠ s and
			// one more, and of two consecutive gaps that differ one is
			// not s: at least 1 + ⌈ch/2⌉ buckets, ch the gap changes
			g0 := m[a+q].Disp - m[a].Disp
			gp, ch := g0, int64(0)
			arith := true
			for cnt := 2; ; cnt++ {
				work++
				x := a + cnt*q
				g := m[x-q].Disp - m[x-2*q].Disp
				arith = arith && g == g0
				if g != gp {
					ch++
				}
				gp = g
				f := int64(cnt) - 1 - (ch+1)/2 // c − f ≥ 1 + ⌈ch/2⌉
				lv := inf
				if set.Has(AllowVec) && arith {
					lv = c.Vec
				}
				if set.Has(AllowIdx) {
					lv = min(lv, c.Idx+int64(cnt)*c.Ix)
				}
				if set.Has(AllowIdxBuc) {
					lv = min(lv, c.IdxBuc+(int64(cnt)-f)*(c.Ix+c.Bucket))
				}
				v := at + lbb + lv
				if v >= capv {
					break // levelCost never decreases with cnt
				}
				if !arith {
					// in halves, without vec: each further copy adds ix
					// (idx) or, per gap change, (ix + bucket)/2 (idxbuc),
					// at least mu2/2, and takes at most one primary
					// junction (mu2/2) from the rest: once this sum
					// reaches the target, no longer window is an edge
					lv2 := inf
					if set.Has(AllowIdx) {
						lv2 = 2 * (c.Idx + int64(cnt)*c.Ix)
					}
					if set.Has(AllowIdxBuc) {
						lv2 = min(lv2, 2*c.IdxBuc+(2+ch)*(c.Ix+c.Bucket))
					}
					if 2*(at+lbb)+lv2+sc.mu2*int64(pre[n]-pre[min(x+1, n)]) >= 2*capv {
						break
					}
				}
				if a > 0 || x < n {
					relax(x, v, a, q)
				}
				if x+q > n || !blockEq(x-q, q) {
					break
				}
			}
		}
		for a := 0; a < n; a++ {
			if dist[a] >= inf || dist[a]+h(a) >= capv {
				continue
			}
			at := dist[a] + w
			if a+1 < n || a > 0 {
				relax(a+1, at+l1, a, 0)
			}
			// short blocks directly, longer ones along the k-gram chain
			for q := 1; q <= kg && a+2*q <= n; q++ {
				work++
				if blockEq(a, q) {
					window(a, q, at)
				}
			}
			if a+1 >= n {
				continue
			}
			for j := nxt[a+1]; j >= 0; j = nxt[j] {
				q := int(j) - a - 1
				if a+2*q > n {
					break
				}
				work++
				if q <= kg {
					continue
				}
				// a longer block has at least as many primary junctions
				if at+l1+muP(a+1, a+q)+level2 >= capv {
					break
				}
				if blockEq(a, q) {
					window(a, q, at)
				}
			}
			if work > maxWork {
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
