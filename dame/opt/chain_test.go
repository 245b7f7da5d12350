package opt_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// rowsListed is rows rows of cols elements of b, step bytes apart, at
// random row starts (in planes planes, each after the last), listed element by
// element as one hindexed_block.
func rowsListed(r *rand.Rand, planes, rows, cols int, step int64, b datatype.Basic) *datatype.Type {
	starts := r.Perm(rows * 8)[:rows]
	slices.Sort(starts)
	var ds []int64
	for p := range planes {
		for _, s := range starts {
			for j := range cols {
				ds = append(ds, int64(p)*(int64(rows)*16*int64(cols)*step+4096)+int64(s)*int64(cols)*step*2+int64(j)*step)
			}
		}
	}
	return must(datatype.HIndexedBlock(1, ds, datatype.Of(b)))
}

// TestSimplifyChainLists: lists of one child longer than MaxSeq (rows at
// random starts listed element by element, in one or several planes) are
// reconstructed by the restricted solver into indexed lists of vectors (a
// vector of them over planes), cheaper, and pack and unpack as the
// reference engine does (under AutoBudget too, whose gate takes only some
// of them).
func TestSimplifyChainLists(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	cheaper := 0
	for trial := range 40 {
		planes, rows, cols := 1+r.IntN(3), 2+r.IntN(120), 2+r.IntN(30)
		step := int64(8 * (1 + r.IntN(3)))
		ty := rowsListed(r, planes, rows, cols, step, datatype.Double)
		p := opt.Compile(ty)
		for _, b := range []opt.Budget{opt.CommitBudget, opt.AutoBudget} {
			q := opt.Simplify(p, b)
			checkSimplified(t, r, ty, p, q, "chain")
			if opt.Cost(q) > opt.Cost(p) {
				t.Fatalf("trial %d: cost %d, compiled %d", trial, opt.Cost(q), opt.Cost(p))
			}
			if b.Auto || planes*rows*cols <= 64 {
				continue // Auto: only lists its gate takes
			}
			if opt.Cost(q) < opt.Cost(p) {
				cheaper++
			}
			// the list is now one entry per row (per plane)
			for nd := q.Root; nd != nil && nd.Op != dame.ContigFinal; nd = nd.Child {
				if nd.Op == dame.BlockIndex && len(nd.Disps) > rows {
					t.Fatalf("trial %d: a list of %d entries remains for %d rows\n%v", trial, len(nd.Disps), rows, q)
				}
			}
		}
	}
	if cheaper < 10 {
		t.Errorf("only %d of 40 lists simplified", cheaper)
	}
	// a random list splits nowhere: left as it is, nothing allocated
	// (TestSimplifyNoWorkNoAlloc)
}
