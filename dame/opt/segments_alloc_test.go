package opt

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestLeafSegmentsDeclineAllocFree: a list of random blocks (the anchors'
// L6 layout: varying lengths, varying gaps) has too many segments, and
// leafSegments gives up on it without allocating while the segments it
// found so far fit the segmenter's own buffer (limit at most 33: up to
// 7,679 blocks). Issue 20: its growing slice (and the segmenter it moved to
// the heap) made up most of an L6 commit's 3.8 KB, which fresh heap pages
// turned into 3.1-3.7 times the commit time in the anchors harness.
func TestLeafSegmentsDeclineAllocFree(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 6))
	for _, n := range []int{16, 255, 1024, 4096, 7679} {
		bls, ds := make([]int64, n), make([]int64, n)
		pos := int64(0)
		for i := range n {
			if i > 0 {
				pos += 1 + r.Int64N(16)
			}
			bls[i], ds[i] = 1+r.Int64N(16), pos
			pos += bls[i]
		}
		ty, err := datatype.Indexed(bls, ds, datatype.Of(datatype.Double))
		if err != nil {
			t.Fatal(err)
		}
		a := ty.Args()
		var z builder
		if _, _, ok := z.leafSegments(a, 8, 0, 8); ok {
			t.Fatalf("%d random blocks: leafSegments found a few segments", n)
		}
		if got := testing.AllocsPerRun(20, func() { z.leafSegments(a, 8, 0, 8) }); got != 0 {
			t.Errorf("%d random blocks: leafSegments allocates %v times declining", n, got)
		}
	}
}
