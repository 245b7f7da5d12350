package ddt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/internal/golden"
	"github.com/ddtlab/ddt/lang"
)

// TestPlans compares the plans of every engine on a few types with
// testdata/plans.golden, as dame's tests compare Program.String: which
// kernel runs each primitive is part of the contract (go test -update
// rewrites the file after a deliberate change).
func TestPlans(t *testing.T) {
	var b strings.Builder
	for _, src := range []string{
		"vector(4, 1, 3, int)",
		"contiguous(10, double)",
		"struct([1, 1], [0, 4000], [contiguous(1000, int), vector(999, 1, 1000, int)])",
		"resized(struct([1, 3, 1, 2], [0, 8, 32, 36], [int, double, char, float]), 0, 48)",
		"indexed_block(1, [0, 9, 3, 40, 17], double)",
		"indexed_block(1, [0, 9, 3, 40, 17, 80, 81, 33, 1, 65, 70, 2, 100, 90, 91, 92, 55], double)",
		"indexed([2, 1, 3], [0, 9, 30], double)",
		"indexed([20, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 29, 40, 50, 60, 63, 77, 89, 93, 99, 110, 120, 130, 140, 150, 160, 170, 180], double)",
		"vector(8, 1, 64, vector(8, 1, 1, double))",
		"hvector(16, 1, 4, vector(16, 1, 16, float))",
		"vector(3, 2, 5, struct([1, 1], [0, 8], [int, double]))",
	} {
		ty, err := lang.Parse("plan.ddt", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "== %s\n", src)
		for _, e := range []Engine{Auto, Interpreter, Reference, Native} {
			c, err := CommitWith(ty, Options{Engine: e, Kernels: "go"})
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(c.Plan())
		}
	}
	golden.CheckString(t, "testdata/plans.golden", b.String())
}
