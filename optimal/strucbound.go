package optimal

import (
	"math"

	"github.com/ddtlab/ddt/internal/recon"
)

// strucBound is the shape bound of docs/normalization.md ("Lower bounds",
// 4): a lower bound on every tree over opts.Constructors whose flattening
// is m, for sets with struc and without sbuc (else 0). Some optimal tree
// is either struc-free — over one basic type a chain, whose least cost
// recon.SolveChain computes exactly — or a struc of one entry above a
// chain of vecs (only when the map starts at a nonzero displacement), or
// has a topmost struc S of k ≥ 2 children under a chain of single-child
// nodes. S's block is the first q elements for a q at which m splits into
// translated blocks (q = n when nothing is above S; else the chain above
// places the n/q blocks, by one level of at least two copies, whose least
// cost levelCost bounds, or by two or more); its children partition the
// block, each a single element (≥ a leaf) or a longer piece (≥ a leaf and
// an interior node, or a contiguous leaf). A 2-child S with one single
// element has its other child bounded by pieceBound of that piece
// (aligned) at depth − 1, when that can raise the result above floor.
// O(n) per divisor of n, plus two chain solutions and, at depth > 0, two
// piece bounds of maps of n − 1 elements per divisor.
func strucBound(m TypeMap, opts Options, depth int, floor int64) int64 {
	return strucBoundUpTo(m, opts, depth, floor, math.MaxInt64)
}

// strucBoundUpTo is strucBound given an upper bound on the optimum (the
// cost of a known tree): the window bound of a root struc needs a small
// target, which the other cases do not always give (a map whose least
// chain is long).
func strucBoundUpTo(m TypeMap, opts Options, depth int, floor, upper int64) int64 {
	n := len(m)
	set := opts.Constructors
	if n < 2 || !set.Has(AllowStruc) || set.Has(AllowSBuc) {
		return 0
	}
	c := opts.Cost
	inf := int64(math.MaxInt64)
	w := c.Ix + c.Type
	l1 := c.Leaf // one element
	if set.Has(AllowContig) {
		l1 = min(l1, c.Contig)
	}
	inner := min(c.Struc+w, inf) // the cheapest interior node
	inner2 := inf                // the cheapest node of two copies or more
	if set.Has(AllowVec) {
		inner, inner2 = min(inner, c.Vec), min(inner2, c.Vec)
	}
	if set.Has(AllowIdx) {
		inner, inner2 = min(inner, c.Idx+c.Ix), min(inner2, c.Idx+2*c.Ix)
	}
	if set.Has(AllowIdxBuc) {
		inner, inner2 = min(inner, c.IdxBuc+c.Ix+c.Bucket), min(inner2, c.IdxBuc+c.Ix+c.Bucket)
	}
	multi := l1 + inner // a piece of two elements or more
	if set.Has(AllowContig) {
		multi = min(multi, c.Contig)
	}

	best := inf
	// struc-free trees: chains over one basic type
	if oneType(m) {
		if cc, ok := chainCost(m, opts); ok {
			best = min(best, cc)
		}
		if m[0].Disp != 0 {
			if cc, ok := chainCost(aligned(m), opts); ok {
				best = min(best, satAdd(c.Struc+w, cc))
			}
		}
	}
	// a topmost struc of k ≥ 2 children over blocks of q elements: the
	// cases other than "two children, one a single element" first
	type single struct {
		q     int
		above int64
	}
	var singles []single
	rootN := inf // a root struc (q = n): refined below
	for q := n; q >= 2; q-- {
		if n%q != 0 || !splitsAt(m, q) {
			continue
		}
		above := int64(0)
		if q < n {
			// the chain above places the n/q blocks: one level, or two
			// or more of at least two copies each — at least the
			// least-cost chain over the block starts, less its leaf
			starts := make([]int64, n/q)
			sm := make(TypeMap, n/q)
			for t := range starts {
				starts[t] = m[t*q].Disp - m[0].Disp
				sm[t] = Elem{"byte", starts[t]}
			}
			if above = min(levelCost(starts, opts), satAdd(inner2, inner2)); above == inf {
				continue
			}
			co := opts
			co.Constructors &= AllowVec | AllowIdx | AllowIdxBuc
			if cc, ok := chainCost(sm, co); ok && cc-c.Leaf > above {
				above = cc - c.Leaf
			}
		}
		var v int64
		switch {
		case q == 2:
			v = c.Struc + 2*(w+l1)
		case q == 3:
			v = min(c.Struc+3*(w+l1), c.Struc+2*w+l1+multi)
		default:
			v = min(c.Struc+2*w+2*multi, // k = 2, two longer pieces
				c.Struc+3*w+2*l1+multi,           // 3 ≤ k < q: at least this
				satAdd(c.Struc, int64(q)*(w+l1))) // k = q: single elements
			if q == n && depth > 0 && !noWindows {
				rootN = v // without the single-element case
				continue
			}
			singles = append(singles, single{q, above})
		}
		best = min(best, satAdd(above, v))
	}
	if min(rootN, c.Struc+2*w+l1+multi) < best && rootN != inf {
		// a root struc: its children window by window, when that fits
		// the work bound, else as for the other q
		target := min(best, ListCost(m, opts), upper)
		work := int64(maxPartitionWork)
		if upper == math.MaxInt64 && n > MaxLen {
			// LowerBound of a large map: without a known tree the
			// target is rarely tight; approximate calls again with
			// its answer's cost and the whole budget
			work >>= 4
		}
		if pb, ok := partitionBound(m, opts, target, work); ok {
			best = min(best, pb) // every k, with or without single elements
		} else {
			// the generic cases, and the single-element one below
			singles = append(singles, single{n, 0})
			best = min(best, rootN)
		}
	}
	// k = 2, one single element: the other piece is bounded below by
	// multi, or by its own bound when that can raise the result above
	// floor (a bound the caller has already)
	for _, sg := range singles {
		v := satAdd(sg.above, c.Struc+2*w+l1+multi)
		if depth > 0 && v < best && best > floor {
			need := best - sg.above - (c.Struc + 2*w + l1) // a piece bound that would reach best
			rest := pieceBound(aligned(m[1:sg.q]), opts, depth-1, need)
			if rest > multi {
				rest = min(rest, pieceBound(aligned(m[:sg.q-1]), opts, depth-1, need))
			}
			v = satAdd(sg.above, c.Struc+2*w+l1+max(multi, rest))
		}
		best = min(best, v)
	}
	if best == inf {
		return 0
	}
	return best
}

// noWindows turns partitionBound off in strucBound (tests compare with
// the bound without it).
var noWindows bool

// chainCost is the least cost of a struc-free tree over the chain
// constructors of opts for m (one basic type).
func chainCost(m TypeMap, opts Options) (int64, bool) {
	set := opts.Constructors & ChainConstructors
	seq, _ := toSeq(m, opts)
	_, cc, err := recon.SolveChain(seq, recon.Cost(opts.Cost), recon.Set(set))
	return cc, err == nil
}

// aligned is m translated so that its first element is at displacement 0.
func aligned(m TypeMap) TypeMap {
	a := make(TypeMap, len(m))
	for i, e := range m {
		a[i] = Elem{e.Type, e.Disp - m[0].Disp}
	}
	return a
}

// splitsAt reports whether m is made of translated copies of its first q
// elements (q divides len(m)): equal types, equal gaps inside each block.
func splitsAt(m TypeMap, q int) bool {
	for t := q; t < len(m); t += q {
		for k := range q {
			if m[t+k].Type != m[k].Type || k > 0 && m[t+k].Disp-m[t+k-1].Disp != m[k].Disp-m[k-1].Disp {
				return false
			}
		}
	}
	return true
}

// letterBound is the letter bound of docs/normalization.md ("Lower
// bounds", 5). The internal letters of m are (typeᵢ, dᵢ − dᵢ₋₁) for i ≥ 1;
// V is the number of distinct ones. A node adds at most these many new
// distinct letters to those of its children: a vec one (the junction of
// its copies), an idx of c entries c − 1, an idxbuc or sbuc of b buckets
// b, a struc of k entries k − 1, a contiguous leaf one per basic type
// ((type, size)), a leaf none. A list node (idx, idxbuc, sbuc, struc)
// costs at least F + μ·(its new letters), F and μ the least fixed and
// per-letter parts over the allowed ones (idx: Idx+Ix and Ix; idxbuc:
// IdxBuc and Ix+Bucket; sbuc: SBuc and Bucket; struc: Struc+Ix+Type and
// Ix+Type), a vec Vec for its one letter. With k basic types, the leaves
// cost at least k·min(leaf, contig), and the R = V − (k if contig is
// allowed) letters left cost at least the least of R·Vec (vectors alone),
// F + μ·R (lists) and (R − 1)·Vec + F + μ. O(n) with a hash set.
func letterBound(m TypeMap, opts Options) int64 {
	set, c := opts.Constructors, opts.Cost
	type letter struct {
		t string
		g int64
	}
	seen := make(map[letter]struct{}, min(len(m), 1<<16))
	types := map[string]bool{}
	for i, e := range m {
		types[e.Type] = true
		if i > 0 {
			seen[letter{e.Type, e.Disp - m[i-1].Disp}] = struct{}{}
		}
	}
	k := int64(len(types))
	l1 := c.Leaf
	r := int64(len(seen))
	if set.Has(AllowContig) {
		l1 = min(l1, c.Contig)
		r = max(0, r-k)
	}
	if r == 0 {
		return k * l1
	}
	inf := int64(math.MaxInt64)
	f, mu := inf, inf
	list := func(ok bool, fixed, per int64) {
		if ok {
			f, mu = min(f, fixed), min(mu, per)
		}
	}
	list(set.Has(AllowIdx), c.Idx+c.Ix, c.Ix)
	list(set.Has(AllowIdxBuc), c.IdxBuc, c.Ix+c.Bucket)
	list(set.Has(AllowSBuc), c.SBuc, c.Bucket)
	list(set.Has(AllowStruc), c.Struc+c.Ix+c.Type, c.Ix+c.Type)
	g := inf
	if f != inf {
		g = min(g, satAdd(f, satMul(mu, r)))
	}
	if set.Has(AllowVec) {
		g = min(g, satMul(c.Vec, r))
		if f != inf {
			g = min(g, satAdd(satMul(c.Vec, r-1), f+mu))
		}
	}
	if g == inf {
		return k * l1 // not representable; any bound holds
	}
	return satAdd(k*l1, g)
}

// satMul is a·b for non-negative a and b, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// pieceBound is a lower bound on the optimum of m for strucBound's
// refinement: the node, one-node, two-node, letter and shape bounds (the
// phrase bound's suffix array is left out: O(n log n) of work for a piece
// the letter bound usually bounds as well), stopping once it reaches need.
func pieceBound(m TypeMap, opts Options, depth int, need int64) int64 {
	lb := SimpleLowerBound(m, opts)
	if len(m) < 2 {
		return lb
	}
	for _, f := range []func() int64{
		func() int64 { return letterBound(m, opts) },
		func() int64 { return oneNodeBound(m, opts) },
		func() int64 { return twoNodeBound(m, opts) },
		func() int64 { return strucBound(m, opts, depth, lb) },
	} {
		if lb >= need {
			break
		}
		lb = max(lb, f())
	}
	return lb
}
