//go:build mpi

package mpi

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm/commtest"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

func TestDebugDump(t *testing.T) {
	if os.Getenv("DDT_DEBUG") == "" {
		t.Skip()
	}
	r := rand.New(rand.NewPCG(uint64(7), 3))
	for i := range 400 {
		ty := typegen.Random(r, typegen.Options{MaxExtent: 64 << 10, MaxElements: 2048})
		ct, _ := ddt.CommitWith(ty, ddt.Options{Engine: ddt.Reference})
		count := int64(1 + r.IntN(3))
		b, _ := commtest.Image(ct, count, func(k int) byte { return byte(k*5 + i) })
		got, err := testComm.nativePack(b)
		want := make([]byte, count*ty.Size())
		ct.Pack(want, b.Data, b.Origin, count)
		maskLongDoublePadding(ty, count, got, want)
		if bytes.Equal(got, want) {
			continue
		}
		d := -1
		for k := range min(len(got), len(want)) {
			if got[k] != want[k] {
				d = k
				break
			}
		}
		lo, hi := max(d-4, 0), min(d+12, len(want), len(got))
		t.Logf("eq %v len %d/%d first diff at %d: got % x want % x", bytes.Equal(got, want), len(got), len(want), d, got[lo:hi], want[lo:hi])
		t.Logf("count %d err %v lb %d ext %d tlb %d\n%s", count, err, ty.LB(), ty.Extent(), ty.TrueLB(), lang.Format(ty))
	}
}
