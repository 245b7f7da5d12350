package optimal

import (
	"fmt"

	"github.com/ddtlab/ddt/internal/recon"
)

// MaxPeriodicWork bounds the steps of the exact program for periodic maps
// (recon.PeriodicWork: about p·n²/2 for n elements of period p) that
// ReconstructLarge and Reconstruct run: 2^34, about 15–20 s on the shared
// 2-core machine (the strided-bucket map of 32,768 elements, period 28,
// takes 1.5·10^10).
const MaxPeriodicWork = 1 << 34

// periodicExact is the exact least-cost tree of a map whose letters have a
// least period p that is also a period of its types (recon.LetterPeriod),
// by recon.SolvePeriodic in O(p·n²) time and O(p·n) memory, when its work
// is within maxWork and its memory within MaxLargeMemory and the set has
// no sbuc; ok is false otherwise. The tree is checked against the map.
func periodicExact(m TypeMap, opts Options, maxWork int64) (tree *Node, cost int64, p int, ok bool) {
	n := len(m)
	if n < 4 || opts.Constructors.Has(AllowSBuc) {
		return nil, 0, 0, false
	}
	seq, names := toSeq(m, opts)
	p, periodic := recon.LetterPeriod(seq)
	if !periodic || p > n/2 || recon.PeriodicWork(n, p) > maxWork || recon.PeriodicBytes(n, p) > MaxLargeMemory {
		return nil, 0, 0, false
	}
	t, c, err := recon.SolvePeriodic(seq, recon.Cost(opts.Cost), recon.Set(opts.Constructors))
	if err != nil {
		return nil, 0, 0, false
	}
	tree = fromRecon(t, names)
	if !flattensTo(tree, m) {
		return nil, 0, 0, false
	}
	return tree, c, p, true
}

// LargeAnswer is ReconstructLarge's answer with how it was found.
type LargeAnswer struct {
	Tree        *Node
	Cost, Lower int64 // the optimum lies in [Lower, Cost]
	Exact       bool  // Cost is the optimum
	// Period is the period of the map when the exact program for periodic
	// maps found the answer (then Exact is true and Lower is Cost), else 0.
	Period int
	// Bound is LowerBound's certificate when the approximation ran.
	Bound int64
}

// How says on one line how the answer was found, for ddt reconstruct.
func (a LargeAnswer) How() string {
	switch {
	case a.Period > 0:
		return fmt.Sprintf("optimal, by the exact program for periodic maps (period %d elements, O(p·n²)); the lower bound alone gives %d", a.Period, a.Bound)
	case a.Exact:
		return fmt.Sprintf("by the approximation; optimal (the cost meets the lower bound %d)", a.Lower)
	}
	return fmt.Sprintf("by the approximation; the optimal cost lies in [%d, %d] (within %.2f× of optimal)", a.Lower, a.Cost, float64(a.Cost)/float64(a.Lower))
}
