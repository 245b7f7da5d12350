package bench

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// TestJITCompileTimes reports (go test -v -run JITCompile) the time to
// generate and map the native code of every layout of the suite: the
// median of 9 compiles without the code cache, with the bytes of code
// and tables, or why the layout is not compiled (seed 003's DAME-X takes
// 0.2-5 ms). It fails on a compile error; times are reported, not
// asserted: the CI machines are shared and noisy.
func TestJITCompileTimes(t *testing.T) {
	if !jit.Available() {
		t.Skip("no code generation here")
	}
	ls, err := suite()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		p := opt.Compile(l.typ())
		var ds []time.Duration
		n := 0
		for range 9 {
			d, k, err := jit.Measure(p)
			if err != nil {
				if !errors.Is(err, jit.ErrUnsupported) {
					t.Fatal(err)
				}
				t.Logf("%-50s %s  not compiled: %v", l.name, l.size, err)
				break
			}
			ds, n = append(ds, d), k
		}
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		med := ds[len(ds)/2]
		t.Logf("%-50s %s  %8.1f µs  %7d bytes", l.name, l.size, float64(med.Nanoseconds())/1e3, n)
	}
}
