package optimal

import (
	"errors"
	"fmt"
	"math"

	"github.com/ddtlab/ddt/internal/recon"
)

// ChainConstructors are the constructors whose trees are chains (vec, idx,
// idxbuc and the contiguous leaf): for sets within them Reconstruct is
// exact in O(n log log n) time and O(n) memory, up to MaxMapLen elements
// (recon.SolveChain; the restricted reconstruction of seed 000 §VII).
const ChainConstructors = AllowVec | AllowIdx | AllowIdxBuc | AllowContig

// chainBytesPerElem bounds the memory of the chain solver per element:
// its gap, Z and choice arrays and, for idxbuc levels, a map of up to one
// entry per element (measured: 2^20 random displacements take 62 MB more
// with idxbuc than without, 160 MB in all with the map read); it is
// checked against MaxLargeMemory first.
const chainBytesPerElem = 192

// toSeq converts m to the solver's input: one symbol per basic type, named
// by names.
func toSeq(m TypeMap, opts Options) (recon.Seq, []string) {
	seq := recon.Seq{Sym: make([]int32, len(m)), Disp: make([]int64, len(m))}
	var names []string
	ids := map[string]int32{}
	for i, e := range m {
		id, ok := ids[e.Type]
		if !ok {
			id = int32(len(names))
			ids[e.Type] = id
			names = append(names, e.Type)
			sz, known := opts.Sizes.Size(e.Type)
			if !known || sz <= 0 || sz > MaxDisp {
				sz = 0
			}
			seq.Size = append(seq.Size, sz)
			seq.LeafCost = append(seq.LeafCost, opts.Cost.Leaf)
		}
		seq.Sym[i], seq.Disp[i] = id, e.Disp
	}
	return seq, names
}

// solveErr converts the solver's errors.
func solveErr(err error, m TypeMap, opts Options) error {
	switch {
	case errors.Is(err, recon.ErrNotRepresentable):
		return fmt.Errorf("optimal: constructors %s: %w", opts.Constructors, ErrNotRepresentable)
	case errors.Is(err, recon.ErrShift):
		return fmt.Errorf("optimal: constructors %s: map starts at displacement %d, which needs idx, idxbuc or struc: %w",
			opts.Constructors, m[0].Disp, ErrNotRepresentable)
	case errors.Is(err, recon.ErrCost):
		return fmt.Errorf("optimal: %v; use smaller cost constants", err)
	}
	return fmt.Errorf("optimal: %w", err)
}

// chainTree is the least-cost tree of m over the chain constructors of
// opts (opts normalized, m checked).
func chainTree(m TypeMap, opts Options) (*Node, int64, error) {
	seq, names := toSeq(m, opts)
	t, c, err := recon.SolveChain(seq, recon.Cost(opts.Cost), recon.Set(opts.Constructors&ChainConstructors))
	if err != nil {
		return nil, 0, solveErr(err, m, opts)
	}
	return fromRecon(t, names), c, nil
}

// checkMemory refuses maps whose planned memory (per bytes per element)
// exceeds MaxLargeMemory, before anything of their size is allocated.
func checkMemory(n int, per int64) error {
	if need := int64(n) * per; need > MaxLargeMemory {
		return fmt.Errorf("optimal: a map of %d elements needs about %d MiB, more than %d MiB", n, need>>20, MaxLargeMemory>>20)
	}
	return nil
}

// LowerBound returns a lower bound on the cost of every tree over
// opts.Constructors whose flattening is m: the largest of eight bounds,
// each proven in docs/normalization.md ("Lower bounds"):
//
//   - the node bound: every basic type is some leaf's, and a map of two or
//     more elements needs an interior node (SimpleLowerBound);
//   - the one-node bound (contig not allowed): a tree with one interior
//     node is a vec, idx, idxbuc, sbuc or struc of leaves, whose least cost
//     on m is computed; any other tree has two interior nodes;
//   - the two-node bound (one basic type, contig not allowed): a lower
//     bound on every tree with at most two interior nodes, or leaf + 3·(the
//     cheapest interior node) (twoNodeBound);
//   - the phrase bound: a tree of cost C flattens to a map whose gap string
//     parses into at most α·C phrases (recon.Phrases), α the largest of
//     1/leaf, 2/vec, 2/ix, 4/(ix+bucket), 4/bucket, 3/contig over the
//     allowed constructors, so C ≥ z/α;
//   - the shape bound (struc allowed, sbuc not): the least of the exact
//     least-cost chain (struc-free trees) and lower bounds on trees with a
//     topmost struc of two or more pieces (strucBound);
//   - the letter bound: every distinct gap (with its type) is added by
//     some node, lists at Ix (or more) each (letterBound);
//   - the junction bound (contig and sbuc not allowed): junctions that no
//     repetition explains have slots of their own (primaryBound);
//   - the excess bound (struc allowed, contig and sbuc not): those slots
//     plus every node's fixed cost, a tree being a chain or holding a
//     struc of two entries (excessBound).
//
// O(n log n) time; m must hold valid displacements (Reconstruct's checks).
func LowerBound(m TypeMap, opts Options) int64 {
	return lowerBound(m, opts, 1)
}

// lowerBound is LowerBound with the shape bound's recursion limited to
// depth.
func lowerBound(m TypeMap, opts Options, depth int) int64 {
	lb := SimpleLowerBound(m, opts)
	if len(m) < 2 {
		return lb
	}
	// the list of every element is a tree when its node is allowed: once
	// a bound reaches its cost, no other can exceed it (an index list of
	// distinct gaps, proven by the junction bound, skips the rest)
	upper := int64(math.MaxInt64)
	if opts.Constructors.Has(AllowStruc) || (opts.Constructors.Has(AllowIdx) && oneType(m)) {
		upper = ListCost(m, opts)
	}
	lb = max(lb, oneNodeBound(m, opts), twoNodeBound(m, opts), letterBound(m, opts))
	var r, k int64
	primaries := len(m) >= 3 && !opts.Constructors.Has(AllowContig) && !opts.Constructors.Has(AllowSBuc)
	if primaries {
		r, k = primaryCount(m, primaryTries)
		lb = max(lb, primaryBoundOf(r, k, opts))
	}
	if lb >= upper {
		return lb
	}
	lb = max(lb, phraseBound(m, opts))
	if primaries {
		// the excess bound shares the primary junctions
		lb = max(lb, excessBound(m, opts, r, k))
	}
	if lb >= upper {
		return lb
	}
	return max(lb, strucBound(m, opts, depth, lb))
}

// phraseBound is ⌈z/α⌉, 0 when α is unbounded (a relevant constant is 0).
func phraseBound(m TypeMap, opts Options) int64 {
	seq, _ := toSeq(m, opts)
	z, err := recon.Phrases(seq.Sym, seq.Disp)
	if err != nil {
		return 0
	}
	// α = max p/c over the terms; z/α = z·min c/p
	c := opts.Cost
	num, den := int64(math.MaxInt64), int64(1) // min c/p as num/den
	term := func(cost, phrases int64) {
		if num == math.MaxInt64 || cost*den < num*phrases {
			num, den = cost, phrases
		}
	}
	term(c.Leaf, 1)
	if opts.Constructors.Has(AllowVec) {
		term(c.Vec, 2)
	}
	if opts.Constructors.Has(AllowIdx) {
		term(c.Ix, 2)
	}
	if opts.Constructors.Has(AllowIdxBuc) {
		term(c.Ix+c.Bucket, 4)
	}
	if opts.Constructors.Has(AllowSBuc) {
		term(c.Bucket, 4)
	}
	if opts.Constructors.Has(AllowContig) {
		term(c.Contig, 3)
	}
	// costs are at most MaxCostConstant = 2^16, z at most 2^24
	return (int64(z)*num + den - 1) / den
}

// oneNodeBound is the least cost of a tree with one interior node over
// leaves, or of any tree with two interior nodes (contig not allowed:
// with it, 0).
func oneNodeBound(m TypeMap, opts Options) int64 {
	if opts.Constructors.Has(AllowContig) {
		return 0
	}
	c := opts.Cost
	n := int64(len(m))
	types := map[string]bool{}
	for _, e := range m {
		types[e.Type] = true
	}
	k := int64(len(types))
	inner := SimpleLowerBound(m, opts) - k*c.Leaf // the cheapest interior node
	best := satAdd(k*c.Leaf, 2*inner)
	if opts.Constructors.Has(AllowStruc) {
		best = min(best, c.Struc+n*(c.Ix+c.Type)+k*c.Leaf)
	}
	if k > 1 {
		return best
	}
	// one type: vec, idx, idxbuc, sbuc of a leaf
	freq := map[int64]int64{}
	var top int64
	for i := 1; i < len(m); i++ {
		g := m[i].Disp - m[i-1].Disp
		freq[g]++
		top = max(top, freq[g])
	}
	if opts.Constructors.Has(AllowVec) && top == n-1 {
		best = min(best, c.Vec+c.Leaf)
	}
	if opts.Constructors.Has(AllowIdx) {
		best = min(best, c.Idx+n*c.Ix+c.Leaf)
	}
	// buckets of one stride: at least one per gap that is not the stride
	buckets := n - top
	if opts.Constructors.Has(AllowIdxBuc) {
		best = min(best, c.IdxBuc+buckets*(c.Ix+c.Bucket)+c.Leaf)
	}
	if opts.Constructors.Has(AllowSBuc) {
		best = min(best, c.SBuc+buckets*c.Bucket+c.Leaf)
	}
	return best
}

// levelCost is a lower bound on the cost of one vec, idx, idxbuc or sbuc
// node (those allowed) whose copies start at pos (pos[0] = 0): vec only
// if pos is arithmetic; idx idx + c·ix; idxbuc and sbuc with at least c − f
// buckets, f the count of the most frequent gap. inf if none is allowed.
func levelCost(pos []int64, opts Options) int64 {
	c := opts.Cost
	cnt := int64(len(pos))
	freq := map[int64]int64{}
	var f int64
	arith := true
	for k := 1; k < len(pos); k++ {
		g := pos[k] - pos[k-1]
		freq[g]++
		f = max(f, freq[g])
		arith = arith && g == pos[1]-pos[0]
	}
	best := int64(math.MaxInt64)
	if opts.Constructors.Has(AllowVec) && arith {
		best = min(best, c.Vec)
	}
	if opts.Constructors.Has(AllowIdx) {
		best = min(best, c.Idx+cnt*c.Ix)
	}
	if opts.Constructors.Has(AllowIdxBuc) {
		best = min(best, c.IdxBuc+(cnt-f)*(c.Ix+c.Bucket))
	}
	if opts.Constructors.Has(AllowSBuc) {
		best = min(best, c.SBuc+(cnt-f)*c.Bucket)
	}
	return best
}

// twoNodeBound is, for a map of one basic type (contig not allowed; else
// 0), the least of: a lower bound on every tree with at most two interior
// nodes, and leaf + 3·(the cheapest interior node) for all others. The
// trees with two interior nodes are a node over a node over the leaf (the
// map splits into translated blocks of q elements: the two levels'
// costs), a node over a struc of leaves, and a struc of leaves and one
// node (docs/normalization.md, "Lower bounds"). O(n) per divisor of n.
func twoNodeBound(m TypeMap, opts Options) int64 {
	n := len(m)
	if opts.Constructors.Has(AllowContig) || n < 2 || !oneType(m) {
		return 0
	}
	c := opts.Cost
	inf := int64(math.MaxInt64)
	pos := make([]int64, n)
	for i, e := range m {
		pos[i] = e.Disp - m[0].Disp
	}
	inner := SimpleLowerBound(m, opts) - c.Leaf   // the cheapest interior node
	minLevel := levelCost([]int64{0}, opts)       // a count-1 node
	oneNS := satAdd(levelCost(pos, opts), c.Leaf) // one node over the leaf
	best := satAdd(c.Leaf, satAdd(3*inner, 0))
	best = min(best, oneNS, satAdd(minLevel, oneNS))
	if opts.Constructors.Has(AllowStruc) {
		w := c.Ix + c.Type
		best = min(best,
			c.Struc+int64(n)*(w+c.Leaf),            // struc of leaves
			satAdd(oneNS, c.Struc+w),               // node over struc(1 leaf), struc(1, node)
			satAdd(minLevel, c.Struc+2*(w+c.Leaf)), // node over struc of ≥ 2 leaves
			satAdd(minLevel, c.Struc+2*w+2*c.Leaf), // struc of a node and ≥ 1 leaf
			2*c.Struc+int64(n+1)*w+int64(n)*c.Leaf) // struc of a struc and leaves
	}
	// a node over blocks of q elements, each a node over the leaf
	for q := 2; q < n; q++ {
		if n%q != 0 {
			continue
		}
		ok := true
		for t := q; t < n && ok; t += q {
			for k := 1; k < q; k++ {
				if pos[t+k]-pos[t+k-1] != pos[k]-pos[k-1] {
					ok = false
					break
				}
			}
		}
		if !ok {
			continue
		}
		starts := make([]int64, n/q)
		for t := range starts {
			starts[t] = pos[t*q]
		}
		best = min(best, satAdd(c.Leaf, satAdd(levelCost(pos[:q], opts), levelCost(starts, opts))))
	}
	if best == inf {
		return 0
	}
	return best
}
