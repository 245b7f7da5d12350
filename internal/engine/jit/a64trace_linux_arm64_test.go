package jit

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/host"
	"github.com/ddtlab/ddt/internal/engine/ref"
)

// Hand loops for TestA64Trace: what a programmer writes for each layout,
// compiled by Go for arm64 (unsafe pointers, no bounds checks, as C).

//go:noinline
func handStrided8(d, s unsafe.Pointer, n int) {
	for i := 0; i < n; i++ {
		*(*uint64)(unsafe.Add(d, 8*i)) = *(*uint64)(unsafe.Add(s, 24*i))
	}
}

//go:noinline
func handRuns128(d, s unsafe.Pointer, n int) {
	for i := 0; i < n; i++ {
		*(*[128]byte)(unsafe.Add(d, 128*i)) = *(*[128]byte)(unsafe.Add(s, 256*i))
	}
}

//go:noinline
func handIndexed8(d, s unsafe.Pointer, offs []int64) {
	for i, o := range offs {
		*(*uint64)(unsafe.Add(d, 8*i)) = *(*uint64)(unsafe.Add(s, o))
	}
}

//go:noinline
func handFace(d, s unsafe.Pointer, rows, cols int) {
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			*(*uint64)(unsafe.Add(d, 8*(r*cols+c))) = *(*uint64)(unsafe.Add(s, 3200*r+160*c))
		}
	}
}

// TestA64Trace runs the generated pack code of a few layouts and the hand
// loops once each, printing the address ranges of the generated code, so
// that a qemu trace (-d exec,nochain -singlestep with -dfilter) counts the
// instructions each executes (scripts in docs/arm64.md). It runs only
// with DDT_A64_TRACE=1 (under qemu-aarch64) and checks the results against
// the reference engine.
func TestA64Trace(t *testing.T) {
	if os.Getenv("DDT_A64_TRACE") != "1" {
		t.Skip("DDT_A64_TRACE=1 not set")
	}
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	const n = 1024
	offs, boffs := make([]int64, n), make([]int64, n) // in doubles, in bytes
	for i := range offs {
		offs[i] = int64((i*769)%n) * 2
		boffs[i] = 8 * offs[i]
	}
	layouts := []struct {
		name string
		ty   *datatype.Type
		hand func(d, s unsafe.Pointer)
	}{
		{"strided8", must(datatype.Vector(n, 1, 3, dbl)), func(d, s unsafe.Pointer) { handStrided8(d, s, n) }},
		{"runs128", must(datatype.Vector(n/16, 16, 32, dbl)), func(d, s unsafe.Pointer) { handRuns128(d, s, n/16) }},
		{"indexed8", must(datatype.IndexedBlock(1, offs, dbl)), func(d, s unsafe.Pointer) { handIndexed8(d, s, boffs) }},
		{"face", must(datatype.HVector(32, 1, 3200, must(datatype.Vector(32, 1, 20, dbl)))), func(d, s unsafe.Pointer) { handFace(d, s, 32, 32) }},
	}
	var keep []*Code
	for _, l := range layouts {
		p := opt.Compile(l.ty)
		c, err := compileVec(p, 32)
		if err != nil || c.wholeMax < 1 {
			t.Fatalf("%s: %v", l.name, err)
		}
		keep = append(keep, c)
		lo, hi, _ := l.ty.Span(1)
		img := make([]byte, hi-lo)
		for i := range img {
			img[i] = byte(i * 7)
		}
		want := make([]byte, l.ty.Size())
		ref.Pack(l.ty, 1, img, -lo, 0, want)
		got := make([]byte, len(want))
		base := uintptr(unsafe.Pointer(&c.mem[0]))
		fmt.Printf("a64trace jit %s %#x %#x %d\n", l.name, base, base+uintptr(c.codeLen), len(want))
		host.Call(c.whole[0], img, -lo, got, 1)
		if string(got) != string(want) {
			t.Fatalf("%s: generated code differs from the reference", l.name)
		}
		clear(got)
		l.hand(unsafe.Pointer(&got[0]), unsafe.Pointer(&img[-lo]))
		if string(got) != string(want) {
			t.Fatalf("%s: hand loop differs from the reference", l.name)
		}
	}
	runtime.KeepAlive(keep)
}

// TestICacheSync runs syncICache over a fresh mapping of code (unaligned
// ends, several lines) and reports whether the kernel offers core
// serializing membarriers (under qemu-user the host kernel answers).
func TestICacheSync(t *testing.T) {
	code := make([]byte, 3*pageSize+100)
	for i := 0; i+4 <= len(code); i += 4 {
		copy(code[i:], []byte{0x1f, 0x20, 0x03, 0xd5}) // nop
	}
	copy(code[len(code)-4:], []byte{0xc0, 0x03, 0x5f, 0xd6}) // ret
	m, err := mapCode(code)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapCode(m)
	base := uintptr(unsafe.Pointer(&m[0]))
	syncICache(base+3, base+uintptr(len(code))-1)
	fv := &funcval{fn: base + uintptr(len(code)) - 4 - 400}
	(*(*func())(unsafe.Pointer(&fv)))() // 100 nops and ret
	t.Logf("membarrier sync-core registered: %v", syncRegistered())
}
