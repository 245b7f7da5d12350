package optimal

import "math"

// primaryTries bounds the earlier occurrences of its letter primaryBound
// examines per junction; a junction whose square is not found among them
// counts as secondary (which can only lower the bound).
const primaryTries = 8

// primaryBound is the junction bound of docs/normalization.md ("Lower
// bounds", 7), for sets without contig and sbuc (else 0). Junction i
// (1 ≤ i < n) lies between elements i−1 and i; its letter is (type of i,
// d(i) − d(i−1)). It is produced by one *slot* of the deepest node holding
// both elements: a vec has one slot, an idx of c entries and a struc of k
// entries c − 1 and k − 1 (one per entry after the first), an idxbuc of b
// buckets at most 2b − 1 (each bucket's start after the first, and each
// bucket's inner junctions). Junction i is *secondary* if letter i − 1
// equals letter i, or if for some L ≥ 2 the map has a square — two
// adjacent factors [s, s+L) and [s+L, s+2L) whose inner letters are equal
// — with i strictly inside the second half (s+L < i < s+2L). A junction
// that shares its slot with an earlier one is secondary: the two lie in
// adjacent copies of a repetition (same offset in translated copies), or
// are consecutive junctions of one vec or one bucket (then the copies
// around them form such a square, or L = 1 and the letters repeat). So
// the primary junctions have distinct slots, and with R of them the nodes
// cost at least what the letter bound charges for R letters (an idxbuc's
// slots at (ix + bucket)/2 each after idxbuc + (ix + bucket)/2), plus a
// leaf per basic type. A square through i with its earlier corner at
// j = i − L exists iff letter j = letter i and the letters matching
// forward from (j, i) and backward from (j−1, i−1) add up to L − 1
// (hashed comparisons, galloping search); the nearest primaryTries earlier
// occurrences of the letter are tried. O(n·primaryTries·log n).
func primaryBound(m TypeMap, opts Options) int64 {
	n := len(m)
	set := opts.Constructors
	if n < 3 || set.Has(AllowContig) || set.Has(AllowSBuc) {
		return 0
	}
	r, k := primaryCount(m, primaryTries)
	return primaryBoundOf(r, k, opts)
}

// primaryBoundOf is primaryBound given the primary junctions and the basic
// types of the map.
func primaryBoundOf(r, k int64, opts Options) int64 {
	set, c := opts.Constructors, opts.Cost
	if r == 0 {
		return k * c.Leaf
	}
	// in halves: F and μ of the list nodes, as in letterBound, the idxbuc
	// charged per slot
	inf := int64(math.MaxInt64 / 4)
	f2, mu2 := inf, inf
	list := func(ok bool, fixed2, per2 int64) {
		if ok {
			f2, mu2 = min(f2, fixed2), min(mu2, per2)
		}
	}
	list(set.Has(AllowIdx), 2*(c.Idx+c.Ix), 2*c.Ix)
	list(set.Has(AllowIdxBuc), 2*c.IdxBuc+c.Ix+c.Bucket, c.Ix+c.Bucket)
	list(set.Has(AllowStruc), 2*(c.Struc+c.Ix+c.Type), 2*(c.Ix+c.Type))
	g := inf
	if f2 != inf {
		g = min(g, satAdd(f2, satMul(mu2, r)))
	}
	if set.Has(AllowVec) {
		g = min(g, satMul(2*c.Vec, r))
		if f2 != inf {
			g = min(g, satAdd(satMul(2*c.Vec, r-1), f2+mu2))
		}
	}
	if g >= inf {
		return k * c.Leaf
	}
	return satAdd(k*c.Leaf, (g+1)/2)
}

// primaryCount returns the number of primary junctions of m (see
// primaryBound; at most tries earlier occurrences examined per junction)
// and the number of basic types.
func primaryCount(m TypeMap, tries int) (r, k int64) {
	prim, k := primaryFlags(m, tries)
	for _, p := range prim {
		if p {
			r++
		}
	}
	return r, k
}

// primaryFlags reports which junctions of m are primary (prim[i] for
// junction i, 1 ≤ i < n; prim[0] is false), at most tries earlier
// occurrences examined per junction, and the number of basic types.
func primaryFlags(m TypeMap, tries int) (prim []bool, k int64) {
	n := len(m)
	prim = make([]bool, n)
	lh := newLetterHash(m)
	type letter struct {
		t int32
		g int64
	}
	last := make(map[letter]int32, min(n, 1<<16))
	prev := make([]int32, n) // the previous junction with the same letter, or 0
	types := map[int32]bool{lh.typ[0]: true}
	for i := 1; i < n; i++ {
		types[lh.typ[i]] = true
		k := letter{lh.typ[i], lh.gap[i]}
		prev[i] = last[k]
		last[k] = int32(i)
	}
	// forward and backward matching lengths of the letters from j and i
	// (j < i), capped at limit
	// the longest l ≤ limit with match(l), match monotone: galloping,
	// then binary search (O(log l) comparisons)
	longest := func(limit int, match func(int) bool) int {
		lo, step := 0, 1
		for lo < limit {
			hi := min(limit, lo+step)
			if !match(hi) {
				limit = hi - 1
				break
			}
			lo, step = hi, 2*step
		}
		for lo < limit {
			mid := (lo + limit + 1) / 2
			if match(mid) {
				lo = mid
			} else {
				limit = mid - 1
			}
		}
		return lo
	}
	// letters j … j+f−1 = i … i+f−1, and j−b … j−1 = i−b … i−1
	fwd := func(j, i, limit int) int {
		return longest(min(limit, n-i), func(l int) bool { return lh.eq(j, i, l) })
	}
	bwd := func(j, i, limit int) int {
		return longest(min(limit, j-1), func(l int) bool { return lh.eq(j-l, i-l, l) })
	}
	for i := 1; i < n; i++ {
		if i >= 2 && lh.same(i-1, i) {
			continue
		}
		secondary := false
		tried := 0
		for j := int(prev[i]); j > 0; j = int(prev[j]) {
			if tried == tries {
				secondary = true // not examined: counted as secondary
				break
			}
			tried++
			l := i - j
			if l < 2 {
				continue
			}
			f := fwd(j, i, l-1)
			if f >= l-1 || f+bwd(j, i, l-1-f) >= l-1 {
				secondary = true
				break
			}
		}
		prim[i] = !secondary
	}
	return prim, int64(len(types))
}
