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

// TestEnginesBlockKernels covers the compiled engine's block kernels
// against the reference: index lists of random byte blocks (the gather and
// scatter kernels), lists of blocks of one length (the fixed-length ones), vectors of blocks of every length up to 300 bytes (the
// strided kernel) and matrix transposes of 4- and 8-byte elements (the
// tiled transpose), whole, in chunks and with several instances. The
// engine tests build memory images that end exactly at the type's span.
func TestEnginesBlockKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	byteT := datatype.Of(datatype.Byte)
	for range 200 {
		n := 1 + r.IntN(60)
		bls, ds := make([]int64, n), make([]int64, n)
		pos := int64(r.IntN(16))
		for i := range n {
			bls[i] = r.Int64N(200)
			ds[i] = pos
			pos += bls[i] + 1 + r.Int64N(40)
		}
		ty, err := datatype.Indexed(bls, ds, byteT)
		if err != nil {
			t.Fatal(err)
		}
		checkEngines(t, r, ty, r.Int64N(4))
	}
	for range 200 {
		// blocks of one length (the fixed-length gather), possibly
		// overlapping or out of order
		n, L := 1+r.IntN(40), 1+r.Int64N(100)
		ds := make([]int64, n)
		for i := range ds {
			ds[i] = r.Int64N(int64(n) * (L + 8))
		}
		ty, err := datatype.HIndexedBlock(L, ds, byteT)
		if err != nil {
			t.Fatal(err)
		}
		checkEngines(t, r, ty, r.Int64N(4))
	}
	for L := int64(1); L <= 300; L += 1 + L/16 {
		ty, err := datatype.Vector(1+r.Int64N(20), L, L+r.Int64N(64), byteT)
		if err != nil {
			t.Fatal(err)
		}
		checkEngines(t, r, ty, r.Int64N(4))
	}
	for _, b := range []datatype.Basic{datatype.Int, datatype.Double} {
		for range 40 {
			rows, cols := 1+r.Int64N(40), 1+r.Int64N(40)
			el := datatype.Of(b)
			ext := el.Extent()
			col, err := datatype.HVector(rows, 1, (cols+r.Int64N(3))*ext, el)
			if err != nil {
				t.Fatal(err)
			}
			ds := make([]int64, cols)
			for i := range ds {
				ds[i] = int64(i) * ext
			}
			ty, err := datatype.HIndexedBlock(1, ds, col)
			if err != nil {
				t.Fatal(err)
			}
			checkEngines(t, r, ty, r.Int64N(3))
		}
	}
}
