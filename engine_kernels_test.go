package ddt

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestEnginesManyInstances runs the engines on counts beyond the column
// chunk of the move-list kernels, so that the fast pack list, its exact
// tail and the column order are all exercised, against the reference.
func TestEnginesManyInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 300 {
		checkEngines(t, r, randType(r, 1+i%3), 33+r.Int64N(40))
	}
	basics := []datatype.Basic{datatype.Char, datatype.Short, datatype.Int, datatype.Float, datatype.Double}
	for range 600 {
		// a small struct of mixed basic types, resized to a random extent
		// (instances may overlap or run backwards)
		k := 1 + r.IntN(6)
		bls, ds := make([]int64, k), make([]int64, k)
		ts := make([]*datatype.Type, k)
		for j := range k {
			bls[j], ds[j] = 1+r.Int64N(4), r.Int64N(48)
			ts[j] = datatype.Of(basics[r.IntN(len(basics))])
		}
		s, err := datatype.Struct(bls, ds, ts)
		if err != nil {
			t.Fatal(err)
		}
		ty, err := datatype.Resized(s, 0, r.Int64N(96)-16)
		if err != nil {
			continue
		}
		checkEngines(t, r, ty, r.Int64N(80))
	}
}
