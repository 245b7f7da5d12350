package ddt_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// TestBlockIndexSegments packs block-indexed types whose displacements run
// in a few arithmetic segments (the rows and columns of a matrix, with
// blocks that touch at the ends of segments, strides of zero, negative and
// equal to the block) with the compiled engine and compares the bytes with
// the reference engine's: the compiler follows such segments on the raw
// displacements.
func TestBlockIndexSegments(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	in := datatype.Of(datatype.Int)
	for trial := range 3000 {
		var ds []int64
		bl := 1 + r.Int64N(2)
		for range 1 + r.IntN(3) {
			d := r.Int64N(64) - 16
			if len(ds) > 0 && r.IntN(2) == 0 {
				d = ds[len(ds)-1] + bl // touching the block before
			}
			stride := []int64{0, 1, 2, 3, -2, 5, 17}[r.IntN(7)]
			for range 1 + r.IntN(12) {
				ds = append(ds, d)
				d += stride
			}
		}
		var ty *datatype.Type
		var err error
		if trial%2 == 0 {
			ty, err = datatype.IndexedBlock(bl, ds, in)
		} else {
			hs := make([]int64, len(ds))
			for i, d := range ds {
				hs[i] = d * 4
			}
			ty, err = datatype.HIndexedBlock(bl, hs, in)
		}
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := ty.DataBounds()
		src := make([]byte, hi-lo)
		for i := range src {
			src[i] = byte(i*131 + 7)
		}
		want := packWith(t, ty, ddt.Reference, src, -lo)
		got := packWith(t, ty, ddt.Compiled, src, -lo)
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: blocklength %d, displacements %v: compiled engine differs from the reference", trial, bl, ds)
		}
	}
}

func packWith(t *testing.T, ty *datatype.Type, e ddt.Engine, src []byte, origin int64) []byte {
	t.Helper()
	c, err := ddt.CommitWith(ty, ddt.Options{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, ty.Size())
	if _, err := c.Pack(out, src, origin, 1); err != nil {
		t.Fatal(err)
	}
	return out
}
