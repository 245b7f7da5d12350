package jit

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestTile checks the rule of tileOf in the listings (with the switch on
// and off) and the code against the reference engine either way: columns
// of single elements whose units are the elements' size apart (FFT2D's
// receive type at its large and medium sizes, counts that leave tiles and
// rows over, elements of 32 bytes, and columns sharing memory: more than a
// row holds) are tiled; elements of 8 or 12 bytes, rows under 1 KiB apart
// and columns of fewer than 16 rows are not.
func TestTile(t *testing.T) {
	defer func(on bool) { tileOn = on }(tileOn)
	must := typeMust(t)
	elem := func(e int64) *datatype.Type {
		if e%8 == 0 {
			return must(datatype.Contiguous(e/8, datatype.Of(datatype.Double)))
		}
		return must(datatype.Contiguous(e/4, datatype.Of(datatype.Float)))
	}
	// A columns of B elements of e bytes, rows S bytes apart, the column
	// index slowest in the packed stream (FFT2D's scatter type)
	cols := func(e, B, A, S int64) *datatype.Type {
		col := must(datatype.HVector(B, 1, S, elem(e)))
		return must(datatype.Contiguous(A, must(datatype.Resized(col, 0, e))))
	}
	for _, tc := range []struct {
		name         string
		ty           *datatype.Type
		pack, unpack bool
		counts       []int64
	}{
		{"FFT2D.recv L", cols(16, 256, 2048, 32768), true, true, []int64{1, 2}},
		{"FFT2D.recv M", cols(16, 16, 512, 8192), true, true, []int64{1, 3}},
		{"tiles and rows left over", cols(16, 33, 13, 1024), true, true, []int64{1, 3}},
		{"32-byte elements", cols(32, 17, 5, 2048), true, true, []int64{1, 3}},
		{"columns sharing memory", cols(16, 64, 300, 1024), true, true, []int64{1, 2}},
		{"doubles", cols(8, 64, 40, 4096), false, false, []int64{1}},
		{"12-byte elements", cols(12, 64, 40, 4096), false, false, []int64{1}},
		{"rows 512 bytes apart", cols(16, 64, 32, 512), false, false, []int64{1}},
		{"8 rows", cols(16, 8, 64, 4096), false, false, []int64{1}},
	} {
		var pk, un [2]string
		for k, on := range []bool{false, true} {
			tileOn = on
			lst, err := listingArch(archAMD64, opt.Compile(tc.ty), 64)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(lst, "\nunpack ")
			// the instructions only: the unpack code's offsets move with
			// the length of the pack code before it
			pk[k], un[k] = insns(lst[strings.Index(lst, "\n"):i]), insns(lst[i:])
		}
		if got := pk[0] != pk[1]; got != tc.pack {
			t.Errorf("%s: pack tiled %v, want %v\n%s", tc.name, got, tc.pack, pk[1])
		}
		if got := un[0] != un[1]; got != tc.unpack {
			t.Errorf("%s: unpack tiled %v, want %v\n%s", tc.name, got, tc.unpack, un[1])
		}
		r := rand.New(rand.NewPCG(11, 12))
		for _, on := range []bool{true, false} {
			tileOn = on
			checkVecs(t, r, tc.ty, tc.counts...)
		}
	}
}

// insns is a listing's instructions without their offsets, encodings and
// jump targets.
func insns(lst string) string {
	lst = regexp.MustCompile(`(?m)^ *[0-9a-f]+  [0-9a-f]+ +`).ReplaceAllString(lst, "")
	return regexp.MustCompile(`(?m)^(j[a-z]+) 0x[0-9a-f]+$`).ReplaceAllString(lst, "$1")
}
