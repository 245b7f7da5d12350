package opt

import (
	"github.com/ddtlab/ddt/dame"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestRunSegmentsMatchLists compiles indexed types whose lists the type
// keeps as runs both from the runs (indexedRuns) and from the lists written
// out (leafSegments), and requires the same program, or both to decline.
func TestRunSegmentsMatchLists(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	olds := []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Char), datatype.Of(datatype.Double)}
	if rs, err := datatype.Resized(datatype.Of(datatype.Int), 0, 12); err == nil {
		olds = append(olds, rs)
	}
	compared, declined := 0, 0
	for trial := range 4000 {
		var ds, bls []int64
		for range 1 + r.IntN(5) {
			d := r.Int64N(200) - 50
			if len(ds) > 0 && r.IntN(3) == 0 {
				d = ds[len(ds)-1] + bls[len(bls)-1] // touching the block before (units of old)
			}
			step := []int64{0, 1, 2, 3, -2, 7, 40}[r.IntN(7)]
			bl, bstep := r.Int64N(3), []int64{0, 0, 0, 1}[r.IntN(4)]
			for range 1 + r.IntN(40) {
				ds, bls = append(ds, d), append(bls, bl)
				d += step
				bl += bstep
			}
		}
		old := olds[r.IntN(len(olds))]
		var ty *datatype.Type
		var err error
		switch trial % 4 {
		case 0:
			ty, err = datatype.Indexed(bls, ds, old)
		case 1:
			ty, err = datatype.HIndexed(bls, ds, old)
		case 2:
			ty, err = datatype.IndexedBlock(1+int64(trial%3), ds, old)
		default:
			ty, err = datatype.HIndexedBlock(1+int64(trial%2), ds, old)
		}
		if err != nil || ty.Size() == 0 {
			continue
		}
		if _, _, ok := ty.Runs(); !ok {
			continue
		}
		var zr, zl builder
		nr, offr, okr := zr.indexedRuns(ty, new(builtMemo))
		a := ty.Args()
		c, off := zl.build(ty.Old(), new(builtMemo))
		scale := int64(1)
		if k := ty.Combiner(); k == datatype.CombinerIndexed || k == datatype.CombinerIndexedBlock {
			scale = ty.Old().Extent()
		}
		if c.Op != dame.ContigFinal || (c.Extent != c.Size && maxBlocklen(a) > 1) {
			if okr {
				t.Fatalf("trial %d: runs compiled a type the lists path does not handle as leaves", trial)
			}
			continue
		}
		nl, offl, okl := zl.leafSegments(a, scale, off, c.Size)
		if okr != okl {
			t.Fatalf("trial %d %v: runs %v, lists %v", trial, ty.Args(), okr, okl)
		}
		if !okr {
			declined++
			continue
		}
		compared++
		pr := &dame.Program{Root: nr, Off: offr}
		pl := &dame.Program{Root: nl, Off: offl}
		if offr != offl || pr.String() != pl.String() {
			t.Fatalf("trial %d: bls %v ds %v of %v:\nruns (off %d):\n%v\nlists (off %d):\n%v", trial, bls, ds, old, offr, pr, offl, pl)
		}
	}
	if compared < 300 {
		t.Errorf("only %d types compared (%d declined)", compared, declined)
	}
}
