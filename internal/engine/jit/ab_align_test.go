package jit

import (
	"fmt"
	"os"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestABAlign times the pack and unpack of long blocks under settings
// of alignBlockMin and repBlockMin, samples interleaved (run with
// DDT_JIT_AB_ALIGN=1 -v; a measurement, not a check).
func TestABAlign(t *testing.T) {
	if os.Getenv("DDT_JIT_AB_ALIGN") != "1" {
		t.Skip("DDT_JIT_AB_ALIGN=1 runs it")
	}
	if !Available() {
		t.Skip("needs generated code")
	}
	dbl := datatype.Of(datatype.Double)
	type cs struct {
		name          string
		n, bl, stride int64          // blocks of bl doubles stride doubles apart
		ty            *datatype.Type // instead, when set
	}
	l5bM, err := datatype.Subarray([]int64{256, 256, 256}, []int64{51, 51, 51}, []int64{16, 16, 16}, datatype.OrderC, dbl)
	if err != nil {
		t.Fatal(err)
	}
	cases := []cs{
		{"rows408", 2570, 51, 256, nil}, {"L5b M", 0, 0, 0, l5bM}, {"rows408 far", 2601, 51, 65536, nil}, {"rows520", 2016, 65, 256, nil}, {"rows776", 1351, 97, 256, nil},
		{"rows1000", 1049, 125, 256, nil}, {"rows1032", 1016, 129, 256, nil}, {"rows1024", 1024, 128, 256, nil},
		{"rows1544", 680, 193, 256, nil}, {"rows2048", 512, 256, 300, nil}, {"L5a M", 362, 362, 386, nil},
		{"rows4096", 256, 512, 600, nil}, {"rows8k", 128, 1024, 1100, nil}, {"FFT2D-like", 64, 2048, 4096, nil},
		{"L5a L", 1448, 1448, 1472, nil}, {"MILC-like L", 32, 24576, 49152, nil},
	}
	type setting struct{ align, rep int64 }
	const off = 1 << 62
	sets := []setting{{off, off}, {512, off}, {off, 4096}, {512, 4096}}
	defer func(a, r int64) { alignBlockMin, repBlockMin = a, r }(alignBlockMin, repBlockMin)
	for _, c := range cases {
		ty := c.ty
		if ty == nil {
			if ty, err = datatype.Vector(c.n, c.bl, c.stride, dbl); err != nil {
				t.Fatal(err)
			}
		}
		p := opt.Compile(ty)
		size, _ := ty.PackSize(1)
		lo, hi, _ := ty.Span(1)
		img := make([]byte, hi-lo)
		pk := make([]byte, size)
		fb := refFallback{ty}
		codes := make([]*Code, len(sets))
		for i, s := range sets {
			alignBlockMin, repBlockMin = s.align, s.rep
			if codes[i], err = compileVec(p, hostVec()); err != nil {
				t.Fatal(err)
			}
		}
		meds := medians(interleaved(codes, fb, pk, img, -lo, 1, size, 4<<20, 31))
		m0, u0 := meds[0][0], meds[0][1]
		line := ""
		for i := 1; i < len(sets); i++ {
			name := ""
			if sets[i].align != off {
				name += fmt.Sprintf("a%d", sets[i].align)
			}
			if sets[i].rep != off {
				name += fmt.Sprintf("r%d", sets[i].rep)
			}
			line += fmt.Sprintf("  %s %.2f/%.2f", name, m0/meds[i][0], u0/meds[i][1])
		}
		t.Logf("%-11s %8d B  plain %7.0f/%7.0f ns  plain/this (pack/unpack):%s", c.name, size, m0, u0, line)
	}
}
