// The invariants build tag validates programs after every rewrite, which
// allocates.

//go:build !invariants

package bench

import (
	"testing"

	"github.com/ddtlab/ddt"
)

// TestCommitCycleAllocs bounds the allocations of one create+commit cycle
// of the layouts issue 24 found slower than MPICH's create+commit+free
// (bench/RESULTS.md §22): before that work L4c made 15-16, L5a 5 and L7 11;
// the memos of small programs without maps, the struct's, subarray's and
// block list's parts in one allocation each, and the callers' lists no
// longer escaping into clone2, brought them to 5, 6, 3 and 4; the first
// short block list in the commit's own allocation (opt.ListRoom, §23)
// to these; a struct's three nodes in the commit's allocation and its
// large contiguous member's leaf built once (§26) took L4c M to 4.
func TestCommitCycleAllocs(t *testing.T) {
	limit := map[string]float64{
		"L1S": 2, "L2S": 2,
		"L4cS": 4, "L4cM": 4,
		"L5aS": 3, "L5aX": 3,
		"L7S": 3, "L7L": 3,
	}
	seen := 0
	for _, d := range mpCases {
		c := resolve(d)
		max, ok := limit[c.id+c.size]
		if !ok {
			continue
		}
		seen++
		n := testing.AllocsPerRun(50, func() {
			if _, err := ddt.Commit(c.makeType()); err != nil {
				t.Fatal(err)
			}
		})
		if n > max {
			t.Errorf("%s%s: create+commit allocates %v times, want at most %v", c.id, c.size, n, max)
		}
	}
	if seen != len(limit) {
		t.Errorf("found %d of the %d layouts", seen, len(limit))
	}
}
