package optimal

import "math"

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
	if target > maxPartitionTarget {
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
		return v
	}

	dist := make([]int64, n+1)
	for i := range dist {
		dist[i] = inf
	}
	dist[0] = 0
	relax := func(x int, v int64) {
		if v < dist[x] {
			dist[x] = v
		}
	}
	var work int64
	freq := map[int64]int64{}
	for a := 0; a < n; a++ {
		if dist[a] >= inf {
			continue
		}
		at := dist[a] + w
		if at+l1 >= capv {
			continue
		}
		if a+1 < n || a > 0 {
			relax(a+1, at+l1)
		}
		for q := 1; a+2*q <= n; q++ {
			work++
			if !blockEq(a, q) {
				continue
			}
			lbb := blockLB(a, q)
			if at+lbb+level2 >= capv {
				continue
			}
			// extend the window [a, a + cnt·q) while the blocks repeat
			clear(freq)
			var f int64
			g0 := m[a+q].Disp - m[a].Disp
			arith := true
			for cnt := 2; ; cnt++ {
				work++
				x := a + cnt*q
				g := m[x-q].Disp - m[x-2*q].Disp
				arith = arith && g == g0
				if arith {
					f = int64(cnt - 1)
				} else {
					if len(freq) == 0 {
						freq[g0] = int64(cnt - 2)
					}
					freq[g]++
					f = max(f, freq[g])
				}
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
				if a > 0 || x < n {
					relax(x, v)
				}
				if x+q > n || !blockEq(x-q, q) {
					break
				}
			}
			if work > maxWork {
				return 0, false
			}
		}
	}
	return min(target, c.Struc+min(dist[n], capv)), true
}
