package jit

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"weak"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/host"
	"github.com/ddtlab/ddt/internal/engine/ref"
	"github.com/ddtlab/ddt/internal/typegen"
)

// vecs are the vector widths this machine runs.
func vecs() []int {
	var v []int
	for _, w := range []int{16, 32, 64} {
		if w <= hostVec() {
			v = append(v, w)
		}
	}
	return v
}

// guarded returns a slice of n bytes that ends right before a PROT_NONE
// page, so that any access past its end faults.
func guarded(t testing.TB, n int) []byte {
	t.Helper()
	ps := os.Getpagesize()
	np := (n+ps-1)/ps + 1
	m, err := syscall.Mmap(-1, 0, np*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(m[(np-1)*ps:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	return m[(np-1)*ps-n : (np-1)*ps : (np-1)*ps]
}

func fill(b []byte, r *rand.Rand) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

// typeMust returns a function that passes a type constructor's result
// through, failing t on its error: must(datatype.Vector(...)).
func typeMust(t testing.TB) func(*datatype.Type, error) *datatype.Type {
	return func(x *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
}

// refFallback adapts the reference engine to Fallback.
type refFallback struct{ t *datatype.Type }

func (f refFallback) Pack(dst, src []byte, origin, count, from int64) {
	ref.Pack(f.t, count, src, origin, from, dst)
}
func (f refFallback) Unpack(dst, src []byte, origin, count, from int64) {
	ref.Unpack(f.t, count, dst, origin, from, src)
}
func (f refFallback) Segments(count, from int64, yield func(off, n int64) bool) {}
func (f refFallback) String() string                                            { return "reference\n" }

// check runs count instances of t through code c (whole, and split into
// pieces at the given cuts) against the reference engine, pack and
// unpack, with the memory image and the packed buffer each ending at a
// guard page.
func check(t *testing.T, r *rand.Rand, ty *datatype.Type, p *dame.Program, c *Code, count int64, cuts []int64) {
	t.Helper()
	size, err := ty.PackSize(count)
	if err != nil || size == 0 {
		return
	}
	lo, hi, err := ty.Span(count)
	if err != nil {
		t.Fatal(err)
	}
	img := guarded(t, int(hi-lo))
	fill(img, r)
	origin := -lo
	want := make([]byte, size)
	ref.Pack(ty, count, img, origin, 0, want)
	fb := refFallback{ty}
	got := guarded(t, int(size))
	for _, k := range cuts {
		clear(got)
		if k > 0 {
			c.run(true, fb, got[:k], img, origin, count, 0)
		}
		if k < size {
			c.run(true, refFallback{ty}, got[k:], img, origin, count, k)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("pack cut at %d of %d (count %d): got\n%x\nwant\n%x\nprogram:\n%s", k, size, count, got, want, p)
		}
	}
	// the whole-message entry, given the instance's origin (as package
	// ddt's fast path calls it)
	whole := c.wholeMax >= count
	if whole {
		clear(got)
		host.Call(c.whole[0], img, origin, got, count)
		if !bytes.Equal(got, want) {
			t.Fatalf("pack by the whole-message entry (count %d): got\n%x\nwant\n%x\nprogram:\n%s", count, got, want, p)
		}
	}
	// the steps, instance by instance (as the interposition library's C
	// layer runs them)
	stepsP, stepsU, steps := c.Steps()
	if steps {
		clear(got)
		runSteps(c, stepsP, true, img, origin, got, count, ty.Size(), ty.Extent())
		if !bytes.Equal(got, want) {
			t.Fatalf("pack by the steps %v (count %d): got\n%x\nwant\n%x\nprogram:\n%s", stepsP, count, got, want, p)
		}
	}
	// unpack: random packed bytes into a random image
	pk := guarded(t, int(size))
	fill(pk, r)
	wantImg := make([]byte, len(img))
	fill(wantImg, r)
	base := bytes.Clone(wantImg)
	ref.Unpack(ty, count, wantImg, origin, 0, pk)
	for _, k := range cuts {
		copy(img, base)
		if k > 0 {
			c.run(false, fb, pk[:k], img, origin, count, 0)
		}
		if k < size {
			c.run(false, refFallback{ty}, pk[k:], img, origin, count, k)
		}
		if !bytes.Equal(img, wantImg) {
			t.Fatalf("unpack cut at %d of %d (count %d): images differ at %d\nprogram:\n%s", k, size, count, firstDiff(img, wantImg), p)
		}
	}
	if steps {
		copy(img, base)
		runSteps(c, stepsU, false, img, origin, pk, count, ty.Size(), ty.Extent())
		if !bytes.Equal(img, wantImg) {
			t.Fatalf("unpack by the steps %v (count %d): images differ at %d\nprogram:\n%s", stepsU, count, firstDiff(img, wantImg), p)
		}
		stepRuns++
	}
	if whole {
		copy(img, base)
		host.Call(c.whole[1], img, origin, pk, count)
		if !bytes.Equal(img, wantImg) {
			t.Fatalf("unpack by the whole-message entry (count %d): images differ at %d\nprogram:\n%s", count, firstDiff(img, wantImg), p)
		}
		wholeRuns.all++
		if p.Off != 0 {
			wholeRuns.offset++
		}
	}
}

// runSteps moves count instances by the steps of Code.Steps, instance k's
// origin at origin+k*ext of mem, its packed bytes at k*size of pk.
func runSteps(c *Code, steps []host.Step, pack bool, mem []byte, origin int64, pk []byte, count, size, ext int64) {
	for k := range count {
		for _, s := range steps {
			mo, po := origin+k*ext+s.Mem, k*size+s.Packed
			switch {
			case s.Fn != nil:
				c.call(s.Fn, mem, mo, pk[po:], s.N, s.B0)
			case pack:
				copy(pk[po:po+s.N], mem[mo:mo+s.N])
			default:
				copy(mem[mo:mo+s.N], pk[po:po+s.N])
			}
		}
	}
}

// stepRuns counts the checks that ran Code.Steps.
var stepRuns int

// wholeRuns counts the checks that ran the whole-message entries, and
// those of programs with an offset (whose entries start with a prologue).
var wholeRuns struct{ all, offset int }

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func cutsFor(size int64, r *rand.Rand) []int64 {
	if size <= 300 {
		c := make([]int64, size+1)
		for i := range c {
			c[i] = int64(i)
		}
		return c
	}
	c := []int64{0, size, size / 2}
	for range 8 {
		c = append(c, r.Int64N(size+1))
	}
	return c
}

func TestRandomTypes(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	n := 800
	if testing.Short() {
		n = 300
	}
	compiled, skipped := 0, map[string]int{}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		p := opt.Compile(ty)
		for _, vec := range vecs() {
			c, err := compileVec(p, vec)
			if err != nil {
				if !errors.Is(err, ErrUnsupported) {
					t.Fatal(err)
				}
				skipped[strings.SplitN(err.Error(), ": ", 3)[2]]++
				break
			}
			compiled++
			for _, count := range []int64{1, 2, 5} {
				size, _ := ty.PackSize(count)
				check(t, r, ty, p, c, count, cutsFor(size, r))
			}
		}
	}
	t.Logf("%d compiled programs checked; not compiled: %v; whole-message entries run %d times, %d with an offset",
		compiled, skipped, wholeRuns.all, wholeRuns.offset)
	if wholeRuns.offset == 0 {
		t.Error("no program with an offset ran its whole-message entry")
	}
	if compiled < n/2 {
		t.Errorf("only %d of %d random programs compiled", compiled, n)
	}
}

// TestShapes runs the shapes the generator treats specially: long
// blocks (vector loops), long vectors (unrolled loops with remainders),
// long lists (displacement tables), deep nests, big counts (chunked
// calls), resized instances that overlap.
func TestShapes(t *testing.T) {
	// sortedlists below runs the sorted unpack of Intel's cores on every host
	defer func(r dame.SortRule) { sortRule = r }(sortRule)
	sortRule = dame.DefaultSortRule
	if !supported {
		t.Skip("no code generation on this platform")
	}
	dbl, i32, ch := datatype.Of(datatype.Double), datatype.Of(datatype.Int), datatype.Of(datatype.Char)
	must := typeMust(t)
	r := rand.New(rand.NewPCG(1, 2))
	disps := make([]int64, 3000)
	for i := range disps {
		disps[i] = r.Int64N(50000)
	}
	s7 := must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{i32, dbl, ch, datatype.Of(datatype.Float)}))
	types := map[string]*datatype.Type{
		"vector24":    must(datatype.Vector(1000, 1, 3, dbl)),
		"resized":     must(datatype.Resized(dbl, 0, 192)),
		"rows":        must(datatype.Vector(37, 1000, 1200, ch)),
		"rows-long":   must(datatype.Vector(5, 5000, 9001, ch)),
		"vecblk":      must(datatype.Vector(100, 16, 32, dbl)),
		"face":        must(datatype.HVector(20, 1, 8*400, must(datatype.Vector(30, 1, 20, dbl)))),
		"blockindex":  must(datatype.IndexedBlock(3, disps, ch)),
		"blockindex8": must(datatype.IndexedBlock(1, disps, dbl)),
		"struct7":     must(datatype.Resized(s7, 0, 48)),
		"struct7x":    must(datatype.Contiguous(5, must(datatype.Resized(s7, 0, 48)))),
		"overlap":     must(datatype.Resized(must(datatype.Vector(3, 2, 1, i32)), 0, 4)),
		"deep":        must(datatype.Vector(3, 1, 2, must(datatype.Vector(3, 1, 2, must(datatype.Vector(3, 1, 2, must(datatype.Vector(3, 1, 2, must(datatype.Vector(3, 1, 2, dbl)))))))))),
		"negstride":   must(datatype.Vector(50, 1, -3, dbl)),
		"gather15":    must(datatype.Vector(15, 1, 3, dbl)),                                          // a group, a pair and one, unrolled
		"gather37":    must(datatype.Vector(37, 1, 24, dbl)),                                         // loop of 16 and a remainder of 5
		"gathernest":  must(datatype.Vector(20, 1, 50, must(datatype.Vector(3, 1, 7, dbl)))),         // gathers inside a loop body
		"gatherneg":   must(datatype.Resized(must(datatype.Vector(2, 1, -5, dbl)), -40, 200)),        // instances of two elements
		"farelems":    must(datatype.Vector(37, 1, 258, dbl)),                                        // 2064 bytes apart: scalar moves, not gathered
		"farneg":      must(datatype.Vector(21, 1, -200, dbl)),                                       // 1600 bytes apart, backwards
		"farneg2k":    must(datatype.Vector(21, 1, -300, dbl)),                                       // 2400 bytes apart, backwards: pack stores thrice
		"far16k":      must(datatype.Vector(19, 1, 2048, dbl)),                                       // 16 KiB apart: pack stores thrice
		"farface":     must(datatype.HVector(3, 1, 8*258*5, must(datatype.Vector(37, 1, 258, dbl)))), // NAS_MG_x's shape
		"rows816":     must(datatype.Vector(9, 102, 130, dbl)),                                       // loops over long rows, overlapping tails
		"rows257":     must(datatype.Vector(7, 257, 300, ch)),                                        // unpack: 32-byte moves (unpackNarrowMin < 257)
		"rows1025":    must(datatype.Vector(5, 1025, 1100, ch)),                                      // unpack: 64-byte moves again
		// table loops of 8 blocks per iteration and a remainder
		"list1005": must(datatype.HIndexedBlock(1, bigDisps(r, 1005), datatype.Of(datatype.Float))),
		"list2003": must(datatype.IndexedBlock(3, scaled(bigDisps(r, 2003), 3, 8), dbl)),
		// lists below the root that unpack in sorted order (sortRule):
		// 8- and 4-byte blocks, and a list of overlapping blocks (list
		// order)
		"sortedlists": must(datatype.Struct([]int64{1, 1, 1}, []int64{0, 100000, 200000}, []*datatype.Type{
			must(datatype.HIndexedBlock(1, bigDisps(r, 5001), dbl)),
			must(datatype.HIndexedBlock(1, bigDisps(r, 5003), datatype.Of(datatype.Float))),
			must(datatype.HIndexedBlock(1, overlapping(bigDisps(r, 5007)), dbl))})),
		// instances above the unit size: the Go side walks the blocks
		"bigstruct": must(datatype.Struct([]int64{1, 1}, []int64{0, 300000},
			[]*datatype.Type{must(datatype.Contiguous(70001, i32)), must(datatype.Vector(70000, 1, 3, i32))})),
		"biglist":    must(datatype.HIndexedBlock(1, bigDisps(r, 40000), dbl)),
		"biglist3":   must(datatype.IndexedBlock(3, scaled(bigDisps(r, 30001), 3, 8), dbl)), // block entries of 8 blocks per iteration and one by one
		"bigvecs":    must(datatype.Vector(3, 1, 20000, must(datatype.Vector(9000, 1, 2, dbl)))),
		"bigrows":    must(datatype.Vector(70, 1000, 1200, dbl)),
		"bigstruct7": must(datatype.Contiguous(9000, must(datatype.Resized(s7, 0, 48)))),
		// far members: offsets beyond the instructions' immediates (arm64
		// builds their addresses: ADD with LSL 12 up to 16 MiB, MOVZ/MOVK
		// beyond), instances overlapping
		"far": must(datatype.Resized(must(datatype.Struct([]int64{1, 3, 5}, []int64{0, 9<<20 + 5, 16<<20 + 77},
			[]*datatype.Type{dbl, dbl, must(datatype.Vector(40, 1, 3, i32))})), 0, 24)),
	}
	for name, ty := range types {
		if lo, hi, _ := ty.Span(1); hi-lo > 1<<28 {
			// bigvecs spans 5.8 GB: amd64 code declines its displacements
			// (beyond 32 bits), the arm64 code takes them, and filling the
			// image would take minutes (hours under emulation)
			t.Logf("%s: span of %d bytes, not run", name, hi-lo)
			continue
		}
		p := opt.Compile(ty)
		for _, vec := range vecs() {
			c, err := compileVec(p, vec)
			if err != nil {
				t.Logf("%s: %v", name, err)
				continue
			}
			for _, count := range []int64{1, 3, 17, 300} {
				size, _ := ty.PackSize(count)
				if lo, hi, _ := ty.Span(count); (size > 1<<20 || hi-lo > 1<<24) && count > 1 {
					continue
				}
				check(t, r, ty, p, c, count, cutsFor(size, r))
			}
		}
	}
}

// bigStructForTest is a struct of two blocks above the unit size.
func bigStructForTest(t *testing.T) *datatype.Type {
	i32 := datatype.Of(datatype.Int)
	a, _ := datatype.Contiguous(70001, i32)
	b, _ := datatype.Vector(70000, 1, 3, i32)
	s, err := datatype.Struct([]int64{1, 1}, []int64{0, 300000}, []*datatype.Type{a, b})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bigDisps returns n distinct random multiples of 8.
// scaled returns d times m divided by q.
func scaled(d []int64, m, q int64) []int64 {
	for i := range d {
		d[i] = d[i] * m / q
	}
	return d
}

// overlapping makes the blocks of 8 bytes at d overlap: the first one
// moved 4 bytes onto the second.
func overlapping(d []int64) []int64 {
	d[0] = d[1] + 4
	return d
}

func bigDisps(r *rand.Rand, n int) []int64 {
	p := r.Perm(2 * n)
	d := make([]int64, n)
	for i := range d {
		d[i] = int64(p[i]) * 8
	}
	return d
}

// TestEngineTiers checks that the tiered engine compiles after enough
// use, at once with Now, never with Off, and moves the same bytes.
func TestEngineTiers(t *testing.T) {
	ty, _ := datatype.Vector(100, 1, 3, datatype.Of(datatype.Double))
	p := opt.Compile(ty)
	fb := refFallback{ty}
	src := make([]byte, 8*300)
	fill(src, rand.New(rand.NewPCG(3, 4)))
	want := make([]byte, 800)
	ref.Pack(ty, 1, src, 0, 0, want)
	e := New(p, fb, Options{})
	if e.Code() != nil {
		t.Fatal("compiled at commit")
	}
	calls := TieredCalls(p, 800)
	for k := range calls {
		if k > 0 && e.Code() != nil {
			t.Fatalf("compiled after %d calls, TieredCalls says %d", k, calls)
		}
		got := make([]byte, 800)
		e.Pack(got, src, 0, 1, 0)
		if !bytes.Equal(got, want) {
			t.Fatal("tiered pack differs")
		}
	}
	if Available() && e.Code() == nil {
		t.Fatalf("not compiled after %d calls: %v", calls, e)
	}
	if e := New(p, fb, Options{Now: true}); Available() && e.Code() == nil {
		t.Fatalf("Now did not compile: %v", e)
	}
	if e := New(p, fb, Options{Off: true}); e.Code() != nil {
		t.Fatal("Off compiled")
	}
	// identical programs share their code
	if Available() {
		for _, ty := range []*datatype.Type{ty, bigStructForTest(t)} {
			p1, p2 := opt.Compile(ty), opt.Compile(ty)
			c1, err1 := Compile(p1)
			c2, err2 := Compile(p2)
			if err1 != nil || err2 != nil || &c1.mem[0] != &c2.mem[0] {
				t.Fatalf("identical programs do not share code: %v %v", err1, err2)
			}
			r := rand.New(rand.NewPCG(5, 6))
			size, _ := ty.PackSize(2)
			check(t, r, ty, p2, c2, 2, cutsFor(size, r))
		}
	}
}

// TestEncoding decodes the generated code with objdump (when installed)
// and compares instruction boundaries and mnemonics with the listing, and
// the operands of vector instructions.
func TestEncoding(t *testing.T) {
	od, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump not installed")
	}
	dbl := datatype.Of(datatype.Double)
	disps := make([]int64, 2000)
	for i := range disps {
		disps[i] = int64(i*i%7919) * 8
	}
	bi, _ := datatype.IndexedBlock(1, disps, dbl)
	v, _ := datatype.Vector(1000, 3, 7, datatype.Of(datatype.Char))
	big, _ := datatype.Vector(10, 700, 1000, datatype.Of(datatype.Char))
	s7, _ := datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{datatype.Of(datatype.Int), dbl, datatype.Of(datatype.Char), datatype.Of(datatype.Float)})
	strided, _ := datatype.Vector(1000, 1, 3, dbl) // gathers in a loop
	short, _ := datatype.Vector(15, 1, 3, dbl)     // gathers unrolled: a group, a pair, one
	inner, _ := datatype.Vector(3, 1, 7, dbl)
	nested, _ := datatype.Vector(20, 1, 50, inner) // gathers of inner loops
	rows2, _ := datatype.HVector(5, 1, 100000, big)
	rows3, _ := datatype.HVector(3, 1, 1<<20, rows2) // prefetching long blocks, loops in R8 and up
	re := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S+)(.*)$`)
	ptr := regexp.MustCompile(`[A-Z]+ PTR |\s`)
	for _, ty := range []*datatype.Type{bi, v, big, s7, strided, short, nested, rows3} {
		for _, vec := range []int{16, 32, 64} {
			pr, err := generateArch(archAMD64, opt.Compile(ty), vec, true)
			if err != nil {
				t.Fatal(err)
			}
			a := &pr.g.a
			code := a.txt[len(a.txt)-1]
			end := code.off + code.n
			f := filepath.Join(t.TempDir(), "code.bin")
			if err := os.WriteFile(f, a.b[:end], 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(od, "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", f).Output()
			if err != nil {
				t.Fatal(err)
			}
			got, ops := map[int]string{}, map[int]string{}
			for _, l := range strings.Split(string(out), "\n") {
				if m := re.FindStringSubmatch(l); m != nil {
					off, _ := strconv.ParseInt(m[1], 16, 64)
					got[int(off)] = m[2]
					ops[int(off)] = strings.ReplaceAll(ptr.ReplaceAllString(m[3], ""), "*1", "")
				}
			}
			for _, l := range a.txt {
				f := strings.Fields(l.text)
				mn := f[0]
				if got[l.off] != mn {
					t.Errorf("vec %d: at %#x we wrote %q (%x), objdump decodes %q\n%s", vec, l.off, l.text, a.b[l.off:l.off+l.n], got[l.off], out)
					break
				}
				if op := strings.Join(f[1:], ""); (mn[0] == 'v' || strings.HasPrefix(mn, "prefetch")) && !strings.Contains(op, "rip") && ops[l.off] != op {
					t.Errorf("vec %d: at %#x we wrote %q (%x), objdump decodes operands %q", vec, l.off, l.text, a.b[l.off:l.off+l.n], ops[l.off])
					break
				}
			}
		}
	}
}

// FuzzJIT runs random types (typegen seeded by the fuzzer) through the
// generated code against the reference engine, split at a fuzzed byte.
func FuzzJIT(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(2), uint32(7))
	f.Add(uint64(99), uint64(5), uint8(1), uint32(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, count uint8, cut uint32) {
		if !supported {
			t.Skip("no code generation on this platform")
		}
		r := rand.New(rand.NewPCG(s1, s2))
		ty := typegen.Random(r, typegen.Options{MaxElements: 256, MaxExtent: 1 << 12})
		p := opt.Compile(ty)
		c, err := compileVec(p, vecs()[r.IntN(len(vecs()))])
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatal(err)
			}
			return
		}
		n := int64(count%8) + 1
		size, _ := ty.PackSize(n)
		check(t, r, ty, p, c, n, []int64{0, size, int64(cut) % (size + 1)})
	})
}

// TestCodeFreed checks that the pages of code no engine uses any more
// are unmapped (their cache entries go with them).
func TestCodeFreed(t *testing.T) {
	if !Available() {
		t.Skip("no code generation here")
	}
	// the cache entries of this test's programs (weak pointers to the same
	// Code are equal), counted while other tests' code comes and goes
	mine := map[weak.Pointer[Code]]bool{}
	live := func() int {
		cache.Lock()
		defer cache.Unlock()
		n := 0
		for _, ws := range cache.m {
			for _, w := range ws {
				if mine[w] {
					n++
				}
			}
		}
		return n
	}
	codes := make([]*Code, 40) // held until counted: a GC in between must not free them
	for i := range codes {
		// Programs no other test makes: Compile hands an identical
		// program's live code back as a new Code sharing its pages
		// (rebind), whose weak pointer the cache does not hold.
		ty, _ := datatype.Vector(int64(100003+i), 3, 11, datatype.Of(datatype.Short))
		c, err := Compile(opt.Compile(ty))
		if err != nil {
			t.Fatal(err)
		}
		codes[i] = c
		mine[weak.Make(c)] = true
	}
	if n := live(); n != len(codes) {
		t.Fatalf("%d of the %d programs cached", n, len(codes))
	}
	runtime.KeepAlive(codes)
	codes = nil
	for range 100 {
		runtime.GC()
		if live() == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d code mappings still live", live())
}

// TestRegisterABI asserts that this Go passes an Entry's arguments in
// the registers the generated code reads (abiOK), so that a Go release
// changing its register ABI fails here instead of silently turning code
// generation off.
func TestRegisterABI(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	if !abiOK() {
		t.Fatal("abiOK: Go's register ABI no longer puts an Entry's arguments in RAX, RBX, RCX, RDI, RSI, R8")
	}
}

// TestEntryKeepsCode drops every reference to a program's Code but its
// whole-message entries, collects garbage, and runs the entries: an Entry
// alone keeps its pages mapped (package ddt's fast path holds nothing
// else across the call), and the pages go once the entries go too.
func TestEntryKeepsCode(t *testing.T) {
	if !Available() {
		t.Skip("no code generation here")
	}
	ty, _ := datatype.Vector(37, 2, 5, datatype.Of(datatype.Int)) // made by no other test
	c, err := Compile(opt.Compile(ty))
	if err != nil {
		t.Fatal(err)
	}
	w := weak.Make(c)
	entries, size := c.whole, c.size
	c = nil
	for range 5 {
		runtime.GC()
	}
	if w.Value() == nil {
		t.Fatal("the Code was collected while its entries were reachable")
	}
	lo, hi, _ := ty.Span(1)
	img := guarded(t, int(hi-lo))
	fill(img, rand.New(rand.NewPCG(5, 6)))
	want := make([]byte, size)
	ref.Pack(ty, 1, img, -lo, 0, want)
	got := guarded(t, int(size))
	host.Call(entries[0], img, -lo, got, 1)
	if !bytes.Equal(got, want) {
		t.Fatalf("pack after GC: got %x, want %x", got, want)
	}
	clear(img)
	host.Call(entries[1], img, -lo, got, 1)
	wantImg := make([]byte, len(img))
	ref.Unpack(ty, 1, wantImg, -lo, 0, want)
	if !bytes.Equal(img, wantImg) {
		t.Fatalf("unpack after GC: images differ at %d", firstDiff(img, wantImg))
	}
	entries = [2]Entry{}
	for range 100 {
		runtime.GC()
		if w.Value() == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the Code outlived its entries")
}

// TestReservedRegisters lists the code of random programs at every vector
// width and checks that no instruction names a register Go's register
// ABI keeps for the caller (RSP, RBP, R14, X15) or a vector register
// beyond the six the generator uses: an Entry is called as a Go func
// value, so the code must leave them as they were.
func TestReservedRegisters(t *testing.T) {
	reserved := regexp.MustCompile(`\b(rsp|rbp|r14|[xyz]mm([6-9]|1[0-9]|2[0-9]|3[01]))\b`)
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		p := opt.Compile(ty)
		for _, vec := range []int{16, 32, 64} {
			l, err := listingArch(archAMD64, p, vec)
			if err != nil {
				break
			}
			for _, line := range strings.Split(l, "\n") {
				if m := reserved.FindString(line); m != "" && !strings.HasPrefix(line, ";") {
					t.Fatalf("vec %d: the code of %v uses %s: %s", vec, ty, m, line)
				}
			}
		}
	}
}

// TestThreshold: the tiering threshold grows with the program (compiling
// a larger one costs more), small messages compile after hundreds of
// calls and 1 MB ones after a few, and DDT_JIT_AFTER (afterEnv) replaces
// the model.
func TestThreshold(t *testing.T) {
	small, _ := datatype.Vector(100, 1, 3, datatype.Of(datatype.Double))
	ds := make([]int64, 4096)
	for i, p := range rand.New(rand.NewPCG(1, 2)).Perm(len(ds)) {
		ds[i] = int64(p) * 24
	}
	large, _ := datatype.HIndexedBlock(1, ds, datatype.Of(datatype.Double))
	ps, pl := opt.Compile(small), opt.Compile(large)
	if threshold(ps) >= threshold(pl) {
		t.Errorf("threshold %d of a 2-node program >= %d of a 4096-entry one", threshold(ps), threshold(pl))
	}
	if c := TieredCalls(ps, 2048); c < 100 || c > 1000 {
		t.Errorf("2 KB messages compile after %d calls", c)
	}
	if c := TieredCalls(ps, 1<<20); c < 2 || c > 20 {
		t.Errorf("1 MB messages compile after %d calls", c)
	}
	// lists of short blocks: their entries count (byteWeight); SPECFEM3D_oc
	// M, 25,600 single floats out of 409,600, compiled after 4,669 calls
	fs := make([]int64, 25600)
	for i, p := range rand.New(rand.NewPCG(3, 4)).Perm(409600)[:len(fs)] {
		fs[i] = int64(p) * 4
	}
	oc, _ := datatype.HIndexedBlock(1, fs, datatype.Of(datatype.Float))
	if c := TieredCalls(opt.Compile(oc), 102400); c < 200 || c > 500 {
		t.Errorf("a list of 25,600 floats compiles after %d calls", c)
	}
	// a list that a struct holds three times (LAMMPS_full.send): its
	// entries weigh per entry moved, as in the list alone
	l3 := make([]*datatype.Type, 3)
	for i := range l3 {
		l3[i] = large
	}
	st3, _ := datatype.Struct([]int64{1, 1, 1}, []int64{0, 1 << 20, 2 << 20}, l3)
	p3 := opt.Compile(st3)
	if n, m := listEntries(p3.Root, map[*dame.Node]bool{}, 0), movedEntries(p3.Root, map[*dame.Node]int64{}); n > 4096+3 || m < 3*4096 || m > 3*4096+3 {
		t.Errorf("a struct of a list of 4096 entries three times: %d entries, %d moved, want 4096 and 12288 (and the struct's 3)", n, m)
	}
	if w3, w1 := byteWeight(p3), byteWeight(pl); w3 < w1-1 || w3 > w1+1 {
		t.Errorf("byteWeight of the list three times %d, of the list %d", w3, w1)
	}
	if c3, c1 := TieredCalls(p3, 3*pl.Root.Size), TieredCalls(pl, pl.Root.Size); c3 > c1/2 {
		t.Errorf("the list three times compiles after %d calls, the list after %d", c3, c1)
	}
	c20, err := datatype.Contiguous(1<<20, large)
	if err == nil {
		c20, err = datatype.Contiguous(1<<20, c20)
	}
	if err != nil {
		t.Fatal(err)
	}
	if m := movedEntries(opt.Compile(c20).Root, map[*dame.Node]int64{}); m != movedMax {
		t.Errorf("2^40 instances of a list: %d entries moved, want movedMax", m)
	}
	// more entries than entryGainMax: bytes only, as before
	fl := make([]int64, entryGainMax+1)
	for i, p := range rand.New(rand.NewPCG(5, 6)).Perm(2 * len(fl))[:len(fl)] {
		fl[i] = int64(p) * 8
	}
	big, _ := datatype.HIndexedBlock(1, fl, datatype.Of(datatype.Float))
	pb := opt.Compile(big)
	if n := listEntries(pb.Root, map[*dame.Node]bool{}, 0); n <= entryGainMax {
		t.Fatalf("the long list has %d entries", n)
	}
	if w := byteWeight(pb); w != 16 {
		t.Errorf("byteWeight of %d entries = %d, want 16", len(fl), w)
	}
	if w := byteWeight(ps); w != 16 {
		t.Errorf("byteWeight of a vector = %d, want 16", w)
	}
	for s, want := range map[string]int64{"0": 0, "1": 1, "4K": 4096, "": -1, "x": -1, "-3": -1} {
		if got := parseAfter(s); got != want {
			t.Errorf("parseAfter(%q) = %d, want %d", s, got, want)
		}
	}
	defer func(a int64) { afterEnv = a }(afterEnv)
	afterEnv = 0
	if c := TieredCalls(pl, 8); c != 1 {
		t.Errorf("DDT_JIT_AFTER=0: compiled after %d calls", c)
	}
	afterEnv = 1 << 20
	if th := threshold(pl); th != 1<<20 {
		t.Errorf("DDT_JIT_AFTER=1M: threshold %d", th)
	}
}

// TestMoveWidths checks the width choices of the amd64 code: 8-byte
// elements gathered into vectors only when less than gatherMaxStride
// apart.
func TestFitsL1(t *testing.T) {
	for _, c := range []struct {
		count, stride int64
		want          bool
	}{
		{1024, 256, false}, {128, 256, true}, {129, 256, false}, {1024, -256, false},
		{64, 512, true}, {65, 512, false}, {1 << 20, 192, true}, {1 << 20, 320, true},
		{1 << 20, 16, true}, {1 << 20, 768, false}, {0, 256, true},
	} {
		if got := fitsL1(c.count, c.stride); got != c.want {
			t.Errorf("fitsL1(%d, %d) = %v, want %v", c.count, c.stride, got, c.want)
		}
	}
}

func TestMoveWidths(t *testing.T) {
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	count := func(ty *datatype.Type, vec int, match func(text string) bool) int {
		pr, err := generateArch(archAMD64, opt.Compile(ty), vec, true)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range pr.g.a.txt {
			if match(l.text) {
				n++
			}
		}
		return n
	}
	gathered := func(s string) bool { return strings.HasPrefix(s, "vmovhpd") || strings.HasPrefix(s, "vbroadcastsd") }
	near := must(datatype.Vector(1000, 1, 24, dbl))
	far := must(datatype.Vector(1000, 1, gatherMaxStride/8, dbl))
	farNeg := must(datatype.Vector(1000, 1, -gatherMaxStride/8, dbl))
	// 256 bytes apart: 16 of the L1's sets; 1,024 overflow them (fitsL1)
	face := must(datatype.HVector(32, 1, 32*32*8, must(datatype.Vector(32, 1, 32, dbl))))
	few := must(datatype.Vector(64, 1, 32, dbl))
	for _, vec := range []int{32, 64} {
		if n := count(face, vec, gathered); n != 0 {
			t.Errorf("vec %d: 1024 elements 256 bytes apart gathered (%d gathering loads)", vec, n)
		}
		if n := count(few, vec, gathered); n == 0 {
			t.Errorf("vec %d: 64 elements 256 bytes apart not gathered", vec)
		}
		if n := count(near, vec, gathered); n == 0 {
			t.Errorf("vec %d: elements 192 bytes apart not gathered", vec)
		}
		if n := count(far, vec, gathered); n != 0 {
			t.Errorf("vec %d: elements %d bytes apart gathered (%d gathering loads)", vec, gatherMaxStride, n)
		}
		if n := count(farNeg, vec, gathered); n != 0 {
			t.Errorf("vec %d: elements %d bytes apart backwards gathered (%d gathering loads)", vec, gatherMaxStride, n)
		}
	}
}

// TestSortedUnpack checks that unpack of lists below the root follows
// the sort rule (sortedList: a table of displacement and packed offset
// pairs) where it fires, list order where it does not (pack, blocks that
// overlap, blocks longer than 8 bytes), and that the code moves the
// reference engine's bytes (TestShapes' "sortedlists" checks the pieces
// and guard pages).
func TestSortedUnpack(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	// the rule Intel's cores apply, whatever this host (dame.HostSortRule)
	defer func(r dame.SortRule) { sortRule = r }(sortRule)
	sortRule = dame.DefaultSortRule
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	r := rand.New(rand.NewPCG(7, 8))
	in := func(l *datatype.Type) *datatype.Type {
		return must(datatype.Struct([]int64{1, 1}, []int64{0, 1 << 20}, []*datatype.Type{l, dbl}))
	}
	cases := []struct {
		name string
		ty   *datatype.Type
		want bool
	}{
		{"doubles", in(must(datatype.HIndexedBlock(1, bigDisps(r, 9005), dbl))), true},
		{"floats", in(must(datatype.HIndexedBlock(1, bigDisps(r, 9003), datatype.Of(datatype.Float)))), true},
		{"overlap", in(must(datatype.HIndexedBlock(1, overlapping(bigDisps(r, 9000)), dbl))), false},
		{"blocks of 3 doubles", in(must(datatype.IndexedBlock(3, scaled(bigDisps(r, 9000), 3, 8), dbl))), false},
		{"in order", in(must(datatype.HIndexedBlock(1, slices.Sorted(slices.Values(bigDisps(r, 9000))), dbl))), false},
		// above the units (320 KB packed): the walk calls the sorted entry
		// for the whole list, the block entries for pieces
		{"above units", in(must(datatype.HIndexedBlock(1, bigDisps(r, 40003), dbl))), true},
		{"root above units", must(datatype.HIndexedBlock(1, bigDisps(r, 40001), dbl)), true},
	}
	for _, c := range cases {
		p := opt.Compile(c.ty)
		pr, err := generateArch(archAMD64, p, 64, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(pr.g.sortedOf) > 0; got != c.want {
			t.Errorf("%s: sorted unpack %v, want %v", c.name, got, c.want)
		}
		entry := false
		for _, pn := range pr.nodes {
			entry = entry || pn.sorted >= 0
		}
		if above := strings.Contains(c.name, "above"); entry != above {
			t.Errorf("%s: sorted entry %v, want %v", c.name, entry, above)
		}
		code, err := compileVec(p, 64)
		if err != nil {
			if runtime.GOARCH != "amd64" && errors.Is(err, ErrUnsupported) {
				continue // the arm64 generator has no long INDEX lists yet
			}
			t.Fatal(err)
		}
		for _, count := range []int64{1, 3} {
			size, _ := c.ty.PackSize(count)
			check(t, r, c.ty, p, code, count, cutsFor(size, r))
		}
	}
}

// TestUnpackNarrow checks the unpack width rule: blocks of more than
// unpackNarrowMin and at most unpackNarrowMax bytes unpack with 32-byte
// moves at vector width 64 (pack keeps 64-byte ones), blocks outside the
// band with 64-byte moves.
func TestUnpackNarrow(t *testing.T) {
	ch := datatype.Of(datatype.Char)
	zmm := func(L int64) (pack, unpack int) {
		ty, err := datatype.Vector(9, L, L+40, ch)
		if err != nil {
			t.Fatal(err)
		}
		text, err := listingArch(archAMD64, opt.Compile(ty), 64)
		if err != nil {
			t.Fatal(err)
		}
		n := &pack
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "unpack ") {
				n = &unpack
			}
			if strings.Contains(l, "zmm") {
				*n++
			}
		}
		return pack, unpack
	}
	for _, c := range []struct {
		L      int64
		narrow bool
	}{{128, false}, {256, false}, {257, true}, {408, true}, {816, true}, {1024, true}, {1025, false}, {2896, false}} {
		if hostERMS() && c.L >= repBlockMin {
			continue // REP MOVSB (blockRep), not vector moves
		}
		p, u := zmm(c.L)
		if p == 0 {
			t.Errorf("rows of %d bytes: pack has no 64-byte moves", c.L)
		}
		if (u == 0) != c.narrow {
			t.Errorf("rows of %d bytes: unpack has %d 64-byte moves (narrow: %v)", c.L, u, c.narrow)
		}
	}
}

// TestThrottle checks where pack stores an element three times
// (throttleOf): single doubles 2 KiB to 16 KiB apart, forwards and
// backwards, in loops and unrolled, at every vector width; not closer or
// farther, not other element sizes, never in unpack code with AMD's
// unpack rule off (TestUnpackThrottle checks that one). It reads the
// code text, so it does not depend on the CPU.
func TestThrottle(t *testing.T) {
	defer func(on bool) { unpackThrottleOn = on }(unpackThrottleOn)
	unpackThrottleOn = false
	dbl, flt := datatype.Of(datatype.Double), datatype.Of(datatype.Float)
	// runs returns the lengths of the runs of identical consecutive
	// stores to the packed bytes (mov [rsi...], r) in the pack code and
	// in the unpack code's stores to memory
	runs := func(ty *datatype.Type, vec int) (pack, unpack map[int]int) {
		text, err := listingArch(archAMD64, opt.Compile(ty), vec)
		if err != nil {
			t.Fatal(err)
		}
		pack, unpack = map[int]int{}, map[int]int{}
		n, prev, k := pack, "", 0
		for _, l := range append(strings.Split(text, "\n"), "") {
			f := strings.Fields(l)
			ins := ""
			if len(f) >= 3 && f[2] == "mov" && strings.HasPrefix(f[3], "[") {
				ins = strings.Join(f[2:], " ")
			}
			if ins != prev || ins == "" {
				if k > 0 {
					n[k]++
				}
				k = 0
			}
			if ins != "" {
				k++
			}
			prev = ins
			if strings.HasPrefix(l, "unpack ") {
				n = unpack
			}
		}
		return pack, unpack
	}
	for _, c := range []struct {
		count, stride int64 // in elements
		el            *datatype.Type
		want          bool
	}{
		{300, 128, dbl, false}, {300, 255, dbl, false}, {300, 256, dbl, true}, {300, 258, dbl, true},
		{300, -258, dbl, true}, {5, 258, dbl, true}, {100, 2048, dbl, true}, {100, 2049, dbl, false},
		{300, 1024, flt, false}, {300, 516, flt, false},
	} {
		ty, err := datatype.Vector(c.count, 1, c.stride, c.el)
		if err != nil {
			t.Fatal(err)
		}
		for _, vec := range []int{16, 32, 64} {
			p, u := runs(ty, vec)
			name := fmt.Sprintf("vector(%d, 1, %d) of %d-byte elements, %d-byte moves", c.count, c.stride, c.el.Size(), vec)
			if len(u) != 1 || u[1] == 0 {
				t.Errorf("%s: unpack stores in runs %v", name, u)
			}
			want := 1
			if c.want {
				want = 1 + throttleRepeats
			}
			if len(p) != 1 || p[want] == 0 {
				t.Errorf("%s: pack stores in runs %v, want all of %d", name, p, want)
			}
		}
	}
	// the elements of a call, over the loops around (throttleMaxElems):
	// NAS_MG_x M's 128 rows of 128 doubles 2,064 bytes apart repeat, L3
	// M's 131,044 doubles 2,896 apart (a vector of vectors) do not, nor
	// 70,000 in one loop; 65,536 in 256 rows of 256 do, 257 rows not
	must := typeMust(t)
	for _, c := range []struct {
		name string
		ty   *datatype.Type
		want bool
	}{
		{"NAS_MG_x M", must(datatype.HVector(128, 1, 130*2064, must(datatype.Vector(128, 1, 258, dbl)))), true},
		{"L3 M", must(datatype.HVector(362, 1, 362*362*8, must(datatype.Vector(362, 1, 362, dbl)))), false},
		{"70000", must(datatype.Vector(70000, 1, 362, dbl)), false},
		{"256x256", must(datatype.HVector(256, 1, 260*2064, must(datatype.Vector(256, 1, 258, dbl)))), true},
		{"257x256", must(datatype.HVector(257, 1, 260*2064, must(datatype.Vector(256, 1, 258, dbl)))), false},
		// a block entry of 4 (3) units, each 130 rows of 130: 67,600
		// (50,700) elements, counted through both loops
		{"4x130x130", must(datatype.HVector(4, 1, 1<<28, must(datatype.HVector(130, 1, 132*2064, must(datatype.Vector(130, 1, 258, dbl)))))), false},
		{"3x130x130", must(datatype.HVector(3, 1, 1<<28, must(datatype.HVector(130, 1, 132*2064, must(datatype.Vector(130, 1, 258, dbl)))))), true},
	} {
		for _, vec := range []int{16, 32, 64} {
			p, _ := runs(c.ty, vec)
			want := 1
			if c.want {
				want = 1 + throttleRepeats
			}
			if len(p) != 1 || p[want] == 0 {
				t.Errorf("%s, %d-byte moves: pack stores in runs %v, want all of %d", c.name, vec, p, want)
			}
		}
	}
}

// TestNoCode: a program whose blocks are all runs longer than the units
// (a struct of a few long runs, DDTBench's LAMMPS receive types at L)
// has no code to generate: Compile says so with ErrUnsupported, instead
// of failing to map zero bytes.
func TestNoCode(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	run, err := datatype.Contiguous(200000, datatype.Of(datatype.Double))
	if err != nil {
		t.Fatal(err)
	}
	ty, err := datatype.Struct([]int64{1, 1, 1}, []int64{0, 2000000, 4000000}, []*datatype.Type{run, run, run})
	if err != nil {
		t.Fatal(err)
	}
	_, err = compileVec(opt.Compile(ty), defaultVec)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "no code to generate") {
		t.Fatalf("Compile of three runs of 1.6 MB: %v", err)
	}
}
