package ddt

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// TestNativeLongLists checks lists longer than 65,536 entries on native
// code against the reference engine (whole, in chunks and pieces), and
// that amd64 generates code for them (their tables follow the code).
func TestNativeLongLists(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, n := range []int{65_537, 200_000} {
		ds := make([]int64, n)
		var d int64
		for i := range ds {
			ds[i] = d
			d += 8 * (2 + r.Int64N(3))
		}
		if n%2 == 1 {
			r.Shuffle(n, func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		}
		ty, err := datatype.HIndexedBlock(1, ds, datatype.Of(datatype.Double))
		if err != nil {
			t.Fatal(err)
		}
		checkEngines(t, r, ty, 1)
		if native := nativeCode(t, ty); jit.Available() && runtime.GOARCH == "amd64" && !native {
			t.Errorf("no native code for a list of %d entries", n)
		}
	}
}

// nativeCode reports whether ty committed for native code has some.
func nativeCode(t *testing.T, ty *datatype.Type) bool {
	t.Helper()
	c, err := CommitWith(ty, Options{Engine: Native})
	if err != nil {
		t.Fatal(err)
	}
	pl := c.Plan()
	return strings.Contains(pl, "native code: ") && !strings.Contains(pl, "native code: none")
}
