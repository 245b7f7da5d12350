package optimal

import (
	"errors"
	"math"

	"github.com/ddtlab/ddt/internal/recon"
)

// slotCosts are the constants of the excess bound (docs/normalization.md,
// "Lower bounds", 8), in halves: mu2 is twice the least cost of a slot
// (vec for a vec's one slot, ix for an idx entry, (ix + bucket)/2 for one
// of an idxbuc's at most 2b − 1 slots, ix + type for a struc entry), and
// the exc2 values are twice the least cost a node has beyond mu per slot:
// vec − mu, idx + ix (the first entry), idxbuc + mu, struc + (ix + type)
// for a struc of one entry; strucExc2 is a struc of two entries. any2 is
// the least excess of an interior node.
type slotCosts struct {
	mu2, any2, strucExc2 int64
	ok                   bool
}

// newSlotCosts returns the excess bound's constants for opts (ok false
// when contig or sbuc is allowed, or no interior node is).
func newSlotCosts(opts Options) slotCosts {
	set, c := opts.Constructors, opts.Cost
	if set.Has(AllowContig) || set.Has(AllowSBuc) {
		return slotCosts{}
	}
	inf := int64(math.MaxInt64 / 4)
	w := c.Ix + c.Type
	mu2 := inf
	if set.Has(AllowVec) {
		mu2 = min(mu2, 2*c.Vec)
	}
	if set.Has(AllowIdx) {
		mu2 = min(mu2, 2*c.Ix)
	}
	if set.Has(AllowIdxBuc) {
		mu2 = min(mu2, c.Ix+c.Bucket)
	}
	if set.Has(AllowStruc) {
		mu2 = min(mu2, 2*w)
	}
	if mu2 == inf {
		return slotCosts{}
	}
	s := slotCosts{mu2: mu2, any2: inf, strucExc2: inf, ok: true}
	if set.Has(AllowVec) {
		s.any2 = min(s.any2, 2*c.Vec-mu2)
	}
	if set.Has(AllowIdx) {
		s.any2 = min(s.any2, 2*(c.Idx+c.Ix))
	}
	if set.Has(AllowIdxBuc) {
		s.any2 = min(s.any2, 2*c.IdxBuc+mu2)
	}
	if set.Has(AllowStruc) {
		s.strucExc2 = 2*(c.Struc+w) + (2*w - mu2)
		s.any2 = min(s.any2, 2*(c.Struc+w))
	}
	return s
}

// excessBound is the excess bound of docs/normalization.md ("Lower
// bounds", 8) for a map with r primary junctions (primaryCount) and k
// basic types, for sets with struc and without contig and sbuc (else 0).
// A tree costs mu per slot plus each node's excess, and has at least r
// slots. Some least-cost tree (Lemma 3) either has no struc of two or
// more entries — then it is a chain over one basic type, at least
// recon.SolveChain's optimum (or a struc of one entry over a chain of the
// aligned map) — or has a struc S of two entries or more: S's excess,
// a leaf under each of two children of S at least, and either nothing
// else (S over n leaves: struc + n(ix + type + leaf)) or one more
// interior node. O(n log log n) for the chain.
func excessBound(m TypeMap, opts Options, r, k int64) int64 {
	n := len(m)
	set, c := opts.Constructors, opts.Cost
	if n < 2 || !set.Has(AllowStruc) || noExcess {
		return 0
	}
	s := newSlotCosts(opts)
	if !s.ok {
		return 0
	}
	inf := int64(math.MaxInt64 / 4)
	w := c.Ix + c.Type
	best := inf
	// (a) no struc of two entries or more: a chain (one type)
	if k == 1 {
		cc, ok := chainOrNone(m, opts)
		if !ok {
			return 0
		}
		best = min(best, cc)
		if m[0].Disp != 0 {
			cc, ok := chainOrNone(aligned(m), opts)
			if !ok {
				return 0
			}
			best = min(best, satAdd(c.Struc+w, cc))
		}
	}
	// (b) a struc of two entries or more
	best = min(best, satAdd(c.Struc, satMul(int64(n), w+c.Leaf)))
	if s.any2 < inf {
		v := satAdd(satMul(s.mu2, r), s.strucExc2+2*max(2, k)*c.Leaf+s.any2)
		best = min(best, (v+1)/2)
	}
	return best
}

// chainOrNone is the least cost of a chain tree of m over opts's chain
// constructors, inf when there is none; ok is false on any other error
// (the bound then gives up).
func chainOrNone(m TypeMap, opts Options) (int64, bool) {
	set := opts.Constructors & ChainConstructors
	seq, _ := toSeq(m, opts)
	_, cc, err := recon.SolveChain(seq, recon.Cost(opts.Cost), recon.Set(set))
	switch {
	case err == nil:
		return cc, true
	case errors.Is(err, recon.ErrNotRepresentable) || errors.Is(err, recon.ErrShift):
		return math.MaxInt64 / 4, true
	}
	return 0, false
}

// blockExcess is excessBound of a block of m (aligned), with its own
// primary junctions.
func blockExcess(m TypeMap, opts Options) int64 {
	if len(m) < 2 {
		return opts.Cost.Leaf
	}
	r, k := primaryCount(m, primaryTries)
	return excessBound(aligned(m), opts, r, k)
}

// noExcess turns the excess bound off, in LowerBound and in the window
// bound's blocks (tests compare with the bounds without it).
var noExcess bool
