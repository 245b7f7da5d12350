package bench

import (
	"fmt"
	"os"
	"testing"

	"github.com/ddtlab/ddt"
)

// TestJITRatios (DDT_JIT_RATIOS=1 go test -run JITRatios -v
// ./cmd/ddt/internal/bench) measures, in one process and interleaved, pack and
// unpack of the mpipack layouts (S and M) with the native code (Auto,
// JITNow), the compiled engine, the hand-written Go loop and copy, and
// prints the minimum time of each over 24 samples of at least 0.5 ms:
// minima are the figures a loaded machine disturbs least.
func TestJITRatios(t *testing.T) {
	if os.Getenv("DDT_JIT_RATIOS") != "1" {
		t.Skip("set DDT_JIT_RATIOS=1 to measure")
	}
	fmt.Printf("%-4s %-2s %8s | %-6s %9s %9s %9s %9s | %7s %7s\n", "id", "sz", "bytes", "op", "jit ns", "comp ns", "Go ns", "copy ns", "comp/jit", "Go/jit")
	for _, d := range mpCases {
		if d.size != "S" && d.size != "M" {
			continue
		}
		c := resolve(d)
		src, freeSrc, err := region(c.alloc, c.sparse)
		if err != nil {
			t.Fatal(err)
		}
		dst, freeDst, err := region(c.alloc, c.sparse)
		if err != nil {
			t.Fatal(err)
		}
		if !c.sparse {
			fillDense(src)
		}
		ty := c.makeType()
		jit, err1 := ddt.CommitWith(ty, ddt.Options{JITNow: true})
		comp, err2 := ddt.CommitWith(ty, ddt.Options{Engine: ddt.Compiled})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		pk := make([]byte, c.packed)
		a, b := make([]byte, c.packed), make([]byte, c.packed)
		st := benchMulti([]func(){
			func() { jit.Pack(pk, src, 0, c.count) },
			func() { comp.Pack(pk, src, 0, c.count) },
			func() { c.manualPack(src, pk) },
			func() { jit.Unpack(dst, pk, 0, c.count) },
			func() { comp.Unpack(dst, pk, 0, c.count) },
			func() { c.manualUnpack(pk, dst) },
			func() { copy(b, a) },
		}, 24, 0.5e-3)
		ns := func(i int) float64 { return st[i].min * 1e9 }
		for k, op := range []string{"pack", "unpack"} {
			j := 3 * k
			fmt.Printf("%-4s %-2s %8d | %-6s %9.0f %9.0f %9.0f %9.0f | %7.2f %7.2f\n", d.id, d.size, c.packed, op,
				ns(j), ns(j+1), ns(j+2), ns(6), ns(j+1)/ns(j), ns(j+2)/ns(j))
		}
		freeSrc()
		freeDst()
	}
}

// TestJITRatiosDDTBench is TestJITRatios on the DDTBench layouts of the
// suite (S and M): native code vs compiled engine vs the hand-written Go
// loop vs copy, minimum times.
func TestJITRatiosDDTBench(t *testing.T) {
	if os.Getenv("DDT_JIT_RATIOS") != "1" {
		t.Skip("set DDT_JIT_RATIOS=1 to measure")
	}
	ls, err := suite()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%-24s %-2s %8s | %-6s %9s %9s %9s %9s | %7s %7s\n", "layout", "sz", "bytes", "op", "jit ns", "comp ns", "Go ns", "copy ns", "comp/jit", "Go/jit")
	for _, l := range ls {
		if len(l.name) < 9 || l.name[:9] != "ddtbench/" || (l.size != "S" && l.size != "M") || l.manPack == nil {
			continue
		}
		ty := l.typ()
		src, freeSrc, err := region(l.alloc, l.sparse)
		if err != nil {
			t.Fatal(err)
		}
		dst, freeDst, err := region(l.alloc, l.sparse)
		if err != nil {
			t.Fatal(err)
		}
		if l.fill != nil {
			l.fill(src)
		} else {
			fillDense(src)
		}
		packed, _ := ty.PackSize(l.count)
		jit, err1 := ddt.CommitWith(ty, ddt.Options{JITNow: true})
		comp, err2 := ddt.CommitWith(ty, ddt.Options{Engine: ddt.Compiled})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		pk := make([]byte, packed)
		a, b := make([]byte, packed), make([]byte, packed)
		st := benchMulti([]func(){
			func() { jit.Pack(pk, src, l.origin, l.count) },
			func() { comp.Pack(pk, src, l.origin, l.count) },
			func() { l.manPack(src, pk) },
			func() { jit.Unpack(dst, pk, l.origin, l.count) },
			func() { comp.Unpack(dst, pk, l.origin, l.count) },
			func() { l.manUnpack(pk, dst) },
			func() { copy(b, a) },
		}, 24, 0.5e-3)
		ns := func(i int) float64 { return st[i].min * 1e9 }
		for k, op := range []string{"pack", "unpack"} {
			j := 3 * k
			fmt.Printf("%-24s %-2s %8d | %-6s %9.0f %9.0f %9.0f %9.0f | %7.2f %7.2f\n", l.name[9:], l.size, packed, op,
				ns(j), ns(j+1), ns(j+2), ns(6), ns(j+1)/ns(j), ns(j+2)/ns(j))
		}
		freeSrc()
		freeDst()
	}
}
