package jit

import (
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestABGather times gather8's two forms (blendGather on and off) on the
// anchors' layouts of strided single doubles, in one process, the
// variants' order rotated each round (run with DDT_JIT_AB=1 -v; a
// measurement, not a check): the median time of each variant and old/new.
func TestABGather(t *testing.T) {
	if os.Getenv("DDT_JIT_AB") != "1" {
		t.Skip("DDT_JIT_AB=1 runs it")
	}
	if !Available() || hostVec() < 32 {
		t.Skip("needs generated code with 32-byte vectors")
	}
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	cases := []struct {
		name  string
		ty    *datatype.Type
		count int64
	}{
		{"L1 S", must(datatype.Vector(256, 1, 24, dbl)), 1},
		{"L2 S", must(datatype.Resized(dbl, 0, 192)), 256},
		{"L3 S", must(datatype.HVector(32, 1, 32*32*8, must(datatype.Vector(32, 1, 32, dbl)))), 1},
		{"L1 M", must(datatype.Vector(131072, 1, 24, dbl)), 1},
		{"stride 64", must(datatype.Vector(4096, 1, 8, dbl)), 1},
		{"stride 16", must(datatype.Vector(4096, 1, 2, dbl)), 1},
		{"L8 S (no gathers)", must(datatype.Vector(16, 16, 32, dbl)), 1},
	}
	type variant struct {
		name  string
		vec   int
		blend bool
	}
	variants := []variant{{"old", 64, false}, {"new", 64, true}}
	if hostVec() >= 64 {
		variants = append(variants, variant{"vec32 old", 32, false}, variant{"vec32 new", 32, true})
	} else {
		variants = []variant{{"vec32 old", 32, false}, {"vec32 new", 32, true}}
	}
	defer func(b bool) { blendGather = b }(blendGather)
	rounds := int(envInt("DDT_JIT_AB_ROUNDS", 41))
	for _, c := range cases {
		p := opt.Compile(c.ty)
		size, _ := c.ty.PackSize(c.count)
		lo, hi, _ := c.ty.Span(c.count)
		img := make([]byte, hi-lo)
		pk := make([]byte, size)
		fb := refFallback{c.ty}
		codes := make([]*Code, len(variants))
		for i, v := range variants {
			blendGather = v.blend
			code, err := compileVec(p, v.vec)
			if err != nil {
				t.Fatal(err)
			}
			codes[i] = code
		}
		ts := interleaved(codes, fb, pk, img, -lo, c.count, size, envInt("DDT_JIT_AB_BYTES", 8<<20), rounds)
		meds := medians(ts)
		med := func(i, d int) float64 { return meds[i][d] }
		low := func(i, d int) float64 { return slices.Min(ts[i][d]) }
		for i, v := range variants {
			line := ""
			if i%2 == 1 {
				line = "  old/new: pack " + f2(med(i-1, 0)/med(i, 0)) + " unpack " + f2(med(i-1, 1)/med(i, 1))
			}
			t.Logf("%-18s %8d B  %-9s pack %9.1f ns (min %9.1f)  unpack %9.1f ns (min %9.1f)%s", c.name, size, v.name, med(i, 0), low(i, 0), med(i, 1), low(i, 1), line)
		}
	}
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
