package ddt

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestLongIndexListsMatchReference runs indexed and hindexed types of
// long lists (past the 64 blocks between marks, some past the 1024 from
// which equal lists are shared, each built twice) through every engine
// against the reference engine, whole, in chunks and in pieces unpacked in
// random order (which seek through the marks written on first use).
func TestLongIndexListsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	olds := []*datatype.Type{datatype.Of(datatype.Char), datatype.Of(datatype.Int), datatype.Of(datatype.Double), datatype.ShortInt}
	for trial := range 40 {
		n := 65 + r.IntN(200)
		if trial%4 == 0 {
			n = 1024 + r.IntN(600)
		}
		bls, ds := make([]int64, n), make([]int64, n)
		var d int64
		for i := range n {
			bls[i] = 1 + r.Int64N(4)
			if trial%5 == 0 {
				bls[i] = r.Int64N(3) // empty blocks
			}
			ds[i] = d
			d += bls[i] + r.Int64N(3) // touching or not
		}
		if trial%3 == 0 {
			r.Shuffle(n, func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		}
		old := olds[r.IntN(len(olds))]
		for range 2 {
			var ty *datatype.Type
			var err error
			if trial%2 == 0 {
				ty, err = datatype.Indexed(bls, ds, old)
			} else {
				hd := make([]int64, n)
				for i := range ds {
					hd[i] = ds[i] * old.Extent()
				}
				ty, err = datatype.HIndexed(bls, hd, old)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkEngines(t, r, ty, 1+r.Int64N(2))
		}
	}
}
