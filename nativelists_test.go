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

// TestNativeIndexLists checks index lists of varying block lengths, longer
// than the generator unrolls, on native code against the reference engine:
// blocks of bytes (one copy of a length known at run time: 1 byte to a
// few vectors) and blocks of strided children, inside one unit and above
// units (the block entry, the Go side finding blocks), and that amd64
// generates code for them.
func TestNativeIndexLists(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	vec := mustT(datatype.Vector(3, 1, 2, datatype.Of(datatype.Int)))
	olds := []*datatype.Type{datatype.Of(datatype.Char), datatype.Of(datatype.Double), datatype.Of(datatype.Int), vec}
	for trial := range 24 {
		old := olds[trial%len(olds)]
		n := 100 + r.IntN(400)
		maxBL := int64(1 + r.IntN(300))
		if trial%3 == 2 {
			n = 20_000 + r.IntN(20_000) // above the 256 KiB units (doubles)
			maxBL = min(maxBL, 8)
		}
		if trial%5 == 0 {
			maxBL = 3
		}
		bls, ds := make([]int64, n), make([]int64, n)
		var d int64
		for i := range n {
			bls[i], ds[i] = 1+r.Int64N(maxBL), d
			d += bls[i]*old.Extent() + old.Extent()*r.Int64N(3)
		}
		if trial%4 == 1 { // blocks in random order, not overlapping (unpack with several goroutines)
			r.Shuffle(n, func(i, j int) { ds[i], ds[j], bls[i], bls[j] = ds[j], ds[i], bls[j], bls[i] })
		}
		ty, err := datatype.HIndexed(bls, ds, old)
		if err != nil {
			t.Fatal(err)
		}
		checkEngines(t, r, ty, 1+r.Int64N(2))
		if native := nativeCode(t, ty); jit.Available() && runtime.GOARCH == "amd64" && !native {
			c, _ := CommitWith(ty, Options{Engine: Native})
			t.Errorf("no native code for a list of %d blocks of %v:\n%.300s", n, old, c.Plan())
		}
	}
}
