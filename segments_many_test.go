package ddt

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestManySegmentLists compiles indexed types of k strided segments of 256
// blocks each (k·256 blocks: the segmenter's limit 4 + k admits them), so
// that the segmenter keeps its first 32 segments in its own buffer and the
// others (k > 32) beside it, and holds every engine to the reference.
func TestManySegmentLists(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 20))
	for _, k := range []int{2, 31, 32, 33, 34, 40} {
		var bls, ds []int64
		pos := int64(0)
		for s := range k {
			L, stride := int64(1+s%5), int64(2+s%5+s%3)
			for range 256 {
				bls, ds = append(bls, L), append(ds, pos)
				pos += stride
			}
			pos += 3
		}
		ty, err := datatype.Indexed(bls, ds, datatype.Of(datatype.Double))
		if err != nil {
			t.Fatal(err)
		}
		c, err := CommitWith(ty, Options{Engine: Compiled, Normalize: NormalizeNever})
		if err != nil {
			t.Fatal(err)
		}
		if p := c.Program().String(); strings.Count(p, "VECTOR") < k {
			t.Fatalf("k=%d: not compiled to %d segments:\n%s", k, k, p)
		}
		checkEngines(t, r, ty, 1)
		checkEngines(t, r, ty, 2)
	}
}
