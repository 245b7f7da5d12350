//go:build linux

package ddt

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// guarded is a memory region of whole pages between two PROT_NONE pages:
// a buffer placed at either end faults on the first byte read or written
// outside it.
type guarded struct {
	mem  []byte // the whole mapping
	data []byte // the accessible pages
}

func newGuarded(t *testing.T, pages int) *guarded {
	t.Helper()
	ps := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, (pages+2)*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(mem[len(mem)-ps:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	g := &guarded{mem: mem, data: mem[ps : len(mem)-ps : len(mem)-ps]}
	t.Cleanup(func() { syscall.Munmap(g.mem) })
	return g
}

// buf returns n bytes ending at the guard page after the region (atEnd) or
// starting at the guard page before it, filled with a pattern.
func (g *guarded) buf(n int, atEnd bool, seed byte) []byte {
	b := g.data[:n:n]
	if atEnd {
		b = g.data[len(g.data)-n:]
	}
	for i := range b {
		b[i] = byte(i*13) + seed
	}
	return b
}

// TestGuardPages packs and unpacks random types with every engine, whole
// and in resumable pieces, from and into memory images whose first touched
// byte (the span's start, at origin + lo) is the first byte after a
// PROT_NONE page, or whose last touched byte is the last before one, and
// packed buffers placed the same way. Any access outside the buffers the
// library checked faults; debug.SetPanicOnFault turns the fault into a
// test failure naming the type. Every engine runs with every kernel set,
// in this process (Options.Kernels), and Auto with native code.
func TestGuardPages(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func(m int64) { minPiece = m }(minPiece)
	minPiece = 16 // split the configurations with Threads > 1 in 16-byte ranges and up
	const pages = 80
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	n := 400
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(51, 52))
	configs := guardConfigs()
	tested, native, fast := 0, 0, 0
	for i := 0; tested < n && i < 20*n; i++ {
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		count := int64(1 + r.IntN(3))
		if guardType(t, r, ty, count, 0, configs, img, packed, func(c *Committed) {
			if c.Engine() == Native {
				native++
			}
			if r := c.eng.Load(); r != nil && r.keep != nil {
				fast++ // the second run went straight to the native code (engine.Whole)
			}
		}) {
			tested++
		}
	}
	t.Logf("%d types, %d engine configurations, %d commits ran native code, %d of them by the whole-message fast path", tested, len(configs), native, fast)
	if native > 0 && fast == 0 {
		t.Fatal("no commit took the whole-message fast path to native code")
	}
	if tested < n/2 {
		t.Fatalf("only %d types fit the guarded pages", tested)
	}
}

// guardType runs count instances of ty through every configuration with
// buffers against the guard pages of img and packed (guardRun, both ends)
// and reports whether it did: the span and the packed bytes must fit the
// pages, and the packed bytes be at least minSize. Each commit is passed to
// seen (if not nil) after its runs.
func guardType(t *testing.T, r *rand.Rand, ty *datatype.Type, count, minSize int64, configs []Options, img, packed *guarded, seen func(*Committed)) bool {
	t.Helper()
	limit := int64(len(img.data))
	lo, hi, err := ty.Span(count)
	if err != nil || hi-lo > limit {
		return false
	}
	size, err := ty.PackSize(count)
	if err != nil || size > int64(len(packed.data)) || size < minSize {
		return false
	}
	// the reference result, from ordinary Go memory
	src, origin := image(ty, count, 1)
	want := naivePack(ty, count, src, origin)
	overlapping := overlapsIn(ty, count)
	for _, opts := range configs {
		if opts.Threads > 1 && overlapping {
			continue // unpack order is undefined (as in MPI receives)
		}
		c, err := CommitWith(ty, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, atEnd := range []bool{true, false} {
			guardRun(t, c, opts, ty, count, lo, hi, want, img, packed, atEnd, r)
		}
		if seen != nil {
			seen(c)
		}
	}
	return true
}

// guardConfigs lists every engine (the ones after Compiled included, as
// they are added to engineNames) with every kernel set (capped at what the
// CPU supports), and Auto with native code generated at commit.
func guardConfigs() []Options {
	var cs []Options
	for e := Reference; int(e) < len(engineNames); e++ {
		if e == Reference {
			cs = append(cs, Options{Engine: e})
			continue
		}
		for _, k := range []string{"go", "avx2", "avx512", "neon"} {
			cs = append(cs, Options{Engine: e, Kernels: k})
		}
	}
	return append(cs, Options{Engine: Auto, JITNow: true}, Options{Engine: Auto, JITNow: true, Kernels: "avx2"},
		// several goroutines per message (TestGuardPages lowers minPiece)
		Options{Engine: Auto, JITNow: true, Threads: 3}, Options{Engine: Compiled, Threads: 2},
		Options{Engine: Interpreter, Threads: 4})
}

// guardRun packs and unpacks count instances of ty with c in guarded
// buffers placed at one end of their regions.
func guardRun(t *testing.T, c *Committed, opts Options, ty *datatype.Type, count, lo, hi int64, want []byte, img, packed *guarded, atEnd bool, r *rand.Rand) {
	t.Helper()
	where := "ending at"
	if !atEnd {
		where = "starting after"
	}
	step := ""
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%+v, %d instances of %v (span [%d, %d), buffers %s a guard page), %s: %v",
				opts, count, ty, lo, hi, where, step, p)
		}
	}()
	origin := -lo
	// whole pack
	step = "pack"
	src := img.buf(int(hi-lo), atEnd, 1)
	refImg, refOrigin := image(ty, count, 1)
	copyImage(src, origin, refImg, refOrigin, lo, hi)
	dst := packed.buf(len(want), atEnd, 0)
	if _, err := c.Pack(dst, src, origin, count); err != nil {
		t.Fatalf("%+v: pack: %v", opts, err)
	}
	if !bytes.Equal(dst, want) {
		t.Fatalf("%+v: %d instances of %v: pack in guarded buffers differs from the reference", opts, count, ty)
	}
	// resumable pack in random pieces
	step = "pieces of pack"
	p, err := c.NewPacker(src, origin, count)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		k := 1 + r.IntN(max(len(want)/3, 1))
		piece := packed.buf(k, atEnd, 0)
		m, err := p.Pack(piece)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, piece[:m]...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%+v: %d instances of %v: packing in pieces differs from the reference", opts, count, ty)
	}
	// whole unpack: compare with the reference engine's unpack in Go memory
	step = "unpack"
	refC, _ := CommitWith(ty, Options{Engine: Reference})
	before, expOrigin := image(ty, count, 9)
	exp := bytes.Clone(before)
	if _, err := refC.Unpack(exp, want, expOrigin, count); err != nil {
		t.Fatal(err)
	}
	in := packed.buf(len(want), atEnd, 0)
	copy(in, want)
	out := img.buf(int(hi-lo), atEnd, 9)
	copyImage(out, origin, before, expOrigin, lo, hi)
	if _, err := c.Unpack(out, in, origin, count); err != nil {
		t.Fatal(err)
	}
	if !sameImage(out, origin, exp, expOrigin, lo, hi) {
		t.Fatalf("%+v: %d instances of %v: unpack into a guarded image differs from the reference", opts, count, ty)
	}
	// resumable unpack in random pieces, each piece a guarded buffer
	step = "pieces of unpack"
	out = img.buf(int(hi-lo), atEnd, 9)
	copyImage(out, origin, before, expOrigin, lo, hi)
	u, err := c.NewUnpacker(out, origin, count)
	if err != nil {
		t.Fatal(err)
	}
	for rest := want; len(rest) > 0; {
		k := min(len(rest), 1+r.IntN(max(len(want)/3, 1)))
		piece := packed.buf(k, atEnd, 0)
		copy(piece, rest[:k])
		if _, err := u.Unpack(piece); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	if !sameImage(out, origin, exp, expOrigin, lo, hi) {
		t.Fatalf("%+v: %d instances of %v: unpacking in pieces differs from the reference", opts, count, ty)
	}
}

// copyImage copies the span [lo, hi) of src (origin so) into dst (origin do).
func copyImage(dst []byte, do int64, src []byte, so, lo, hi int64) {
	copy(dst[do+lo:do+hi], src[so+lo:so+hi])
}

// sameImage compares the spans of two images.
func sameImage(a []byte, ao int64, b []byte, bo, lo, hi int64) bool {
	return bytes.Equal(a[ao+lo:ao+hi], b[bo+lo:bo+hi])
}

// TestGuardPagesFault checks that the guard pages work: touching the byte
// just past a buffer placed at either end is a panic, not a silent read.
func TestGuardPagesFault(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	g := newGuarded(t, 1)
	for _, atEnd := range []bool{true, false} {
		b := g.buf(16, atEnd, 0)
		off := 16
		if !atEnd {
			off = -1
		}
		faulted := func() (f bool) {
			defer func() { f = recover() != nil }()
			guardSink = *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), off))
			return false
		}()
		if !faulted {
			t.Errorf("reading byte %d of a guarded buffer (atEnd %v) did not fault", off, atEnd)
		}
	}
}

var guardSink byte
