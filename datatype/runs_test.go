package datatype_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

func TestNumBlocksMatchesBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		ty := typegen.Random(r, typegen.Options{MaxElements: 300})
		count := int64(i % 4)
		var n int64
		ty.Blocks(count, func(off, l int64) bool { n++; return true })
		if got := ty.NumBlocks(count); got != n {
			t.Fatalf("type %d, count %d: NumBlocks = %d, Blocks yields %d", i, count, got, n)
		}
	}
}

func TestNumBlocksIsFastForHugeCounts(t *testing.T) {
	v, _ := datatype.Vector(1<<40, 1, 2, datatype.ShortInt)
	// 2 runs per short_int; the last int of one vector instance touches the
	// first short of the next, so 2^10-1 runs merge
	if got, want := v.NumBlocks(1<<10), int64(1)<<51-(1<<10-1); got != want {
		t.Errorf("NumBlocks = %d, want %d", got, want)
	}
	// 2^20 instances of about 2^44 bytes do not fit in int64 offsets
	if got := v.NumBlocks(1 << 20); got != 0 {
		t.Errorf("NumBlocks of an overflowing count = %d, want 0", got)
	}
}
