package jit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/ref"
)

// TestPrefetchEmitted checks where the generator prefetches: the unpack
// loop over blocks of 64 bytes to prefetchAhead, apart from each other,
// gets one PREFETCHW per line moved, rows ahead of the block; pack code,
// blocks going down, below a line or longer, and loops spanning less than
// prefetchMinSpan none.
func TestPrefetchEmitted(t *testing.T) {
	if !prefetchOn || !hostPrefW() {
		t.Skip("DDT_JIT_PF=0 or no PREFETCHW")
	}
	dbl := datatype.Of(datatype.Double)
	rows, _ := datatype.Vector(100, 128, 256, dbl) // 1 KiB rows, 2 KiB apart
	long, _ := datatype.Vector(100, 1448, 1472, dbl)
	short, _ := datatype.Vector(1000, 16, 32, dbl) // 128-byte blocks
	l8s, _ := datatype.Vector(16, 16, 32, dbl)     // L8 S: 4 KiB, below prefetchMinSpan
	tiny, _ := datatype.Vector(100, 4, 8, dbl)     // 32-byte blocks
	neg, _ := datatype.Vector(100, 128, -256, dbl) // rows going down
	// single doubles 256 bytes apart: a loop over 8 MiB (as L3 L's
	// face, whose block entry has 512 MiB: 8 elements ahead) and L3 S's
	// (256 KiB: none)
	faceL, _ := datatype.Vector(32768, 1, 32, dbl)
	faceS, _ := datatype.Vector(1024, 1, 32, dbl)
	column, _ := datatype.Vector(2048, 1, 1024, dbl) // a page apart: none
	// L3 M's face: doubles 2,896 bytes apart over 380 MB (beyond
	// farPrefetchMaxStride: none)
	faceM0, _ := datatype.Vector(362, 1, 362, dbl)
	faceM, _ := datatype.HVector(362, 1, 362*362*8, faceM0)
	// NAS_MG_x L: rows of 724 doubles 144 bytes apart (104 KB), 724 rows
	// over 75 MB: the rows' loop prefetches 8 elements ahead; rows of 16
	// (below farPrefetchMinCount) over as much do not
	mgRow, _ := datatype.Vector(724, 1, 18, dbl)
	mgL, _ := datatype.HVector(724, 1, 104544, mgRow)
	shortRow, _ := datatype.Vector(16, 1, 18, dbl)
	shortRows, _ := datatype.HVector(20000, 1, 4096, shortRow)
	// the same rows over 1.5 MB (below farPrefetchMinSpan): none
	mgS, _ := datatype.HVector(15, 1, 104544, mgRow)
	// blocks beyond blockPrefetchMaxStride apart (MILC_su3_zd M's 3 KiB
	// blocks 48 KiB apart): none; 1 KiB rows a page apart: 4 rows ahead
	milc, _ := datatype.Vector(100, 384, 6144, dbl)
	rows4k, _ := datatype.Vector(100, 128, 512, dbl)
	for _, c := range []struct {
		name string
		ty   *datatype.Type
		vec  int
		want string // a prefetch the unpack code must hold, "" for none
	}{
		{"rows64", rows, 64, "prefetchw [rbx+rdx+0x2400]"}, // 4 rows of 2 KiB ahead of the loop's end offset 0x400
		{"rows32", rows, 32, "prefetchw [rbx+rdx+0x2400]"},
		{"rows16", rows, 16, "prefetchw [rbx+rdx+0x2400]"},
		{"long64", long, 64, ""},
		{"short64", short, 64, "prefetchw [rbx+0x840]"}, // 8 blocks of 256 bytes ahead, the second line
		{"short16", short, 16, "prefetchw [rbx+0x840]"},
		{"tiny64", tiny, 64, ""},
		{"l8s64", l8s, 64, ""},
		{"neg64", neg, 64, ""},
		{"faceL64", faceL, 64, "prefetchw [rbx+0x800]"},
		{"faceL16", faceL, 16, "prefetchw [rbx+0x800]"},
		{"faceS64", faceS, 64, ""},
		{"column64", column, 64, ""},
		{"faceM64", faceM, 64, ""},
		{"mgL64", mgL, 64, "prefetchw [rbx+0x480]"},
		{"mgL16", mgL, 16, "prefetchw [rbx+0x480]"},
		{"shortRows64", shortRows, 64, ""},
		{"mgS64", mgS, 64, ""},
		{"milc64", milc, 64, ""},
		{"rows4k64", rows4k, 64, "prefetchw [rbx+rdx+0x4400]"},
	} {
		lst, err := listingArch(archAMD64, opt.Compile(c.ty), c.vec)
		if err != nil {
			t.Fatal(err)
		}
		up := strings.Index(lst, "\nunpack ")
		if up < 0 {
			t.Fatalf("%s: no unpack code in\n%s", c.name, lst)
		}
		if strings.Contains(lst[:up], "prefetch") {
			t.Errorf("%s: prefetch in the pack code:\n%s", c.name, lst)
		}
		if c.want == "" {
			if strings.Contains(lst, "prefetch") {
				t.Errorf("%s: unexpected prefetch:\n%s", c.name, lst)
			}
			continue
		}
		if !strings.Contains(lst[up:], c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, lst)
		}
		// one prefetch per 64-byte line of a loop iteration (4 vector moves)
		if n, want := strings.Count(lst, "prefetchw"), 2; n < want {
			t.Errorf("%s: %d prefetches, want at least %d", c.name, n, want)
		}
	}
}

// TestPrefetchTable measures the long-block loops with and without
// software prefetch, one goroutine (DDT_PFTHREADS=n: n), each variant once per round, against
// Go's copy of the packed bytes (DDT_PFBENCH=rounds; skipped otherwise):
//
//	DDT_PFBENCH=20 go test -run PrefetchTable -v ./internal/engine/jit
func TestPrefetchTable(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("DDT_PFBENCH"))
	if rounds <= 0 || !supported {
		t.Skip("DDT_PFBENCH=rounds not set")
	}
	dbl := datatype.Of(datatype.Double)
	sub := func(sizes, subs, starts []int64) *datatype.Type {
		ty, err := datatype.Subarray(sizes, subs, starts, datatype.OrderC, dbl)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	l8, err := datatype.Vector(131072, 16, 32, dbl)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ty   *datatype.Type
	}{
		{"L5a-L", sub([]int64{1472, 1472}, []int64{1448, 1448}, []int64{12, 12})},
		{"L5b-L", sub([]int64{256, 256, 256}, []int64{128, 128, 128}, []int64{64, 64, 64})},
		{"L8-L", l8},
	}
	if f := os.Getenv("DDT_PFLAYOUTS"); f != "" {
		cases = slices.DeleteFunc(cases, func(c struct {
			name string
			ty   *datatype.Type
		}) bool {
			return !strings.Contains(f, c.name)
		})
	}
	save := prefetchOn
	defer func() { prefetchOn = save }()
	for _, c := range cases {
		p := opt.Compile(c.ty)
		prefetchOn = true
		on, err := compileVec(p, defaultVec)
		if err != nil {
			t.Fatal(err)
		}
		prefetchOn = false
		off, err := compileVec(p, defaultVec)
		if err != nil {
			t.Fatal(err)
		}
		prefetchOn = true
		var far []*Code // other distances (DDT_PFAHEAD=bytes,bytes)
		var farNames []string
		saveAhead := prefetchAhead
		for _, f := range strings.Split(os.Getenv("DDT_PFAHEAD"), ",") {
			if n, err := strconv.Atoi(f); err == nil && n > 0 {
				prefetchAhead = int64(n)
				c, err := compileVec(p, defaultVec)
				if err != nil {
					t.Fatal(err)
				}
				far, farNames = append(far, c), append(farNames, f)
			}
		}
		prefetchAhead = saveAhead
		size, _ := c.ty.PackSize(1)
		lo, hi, _ := c.ty.Span(1)
		img := make([]byte, hi-lo)
		for i := range img {
			img[i] = byte(i)
		}
		pk, cp := make([]byte, size), make([]byte, size)
		fb := refFallback{c.ty}
		// with DDT_PFTHREADS=n, every run is n goroutines on n equal
		// ranges of the packed stream (as package ddt splits messages)
		nt := 1
		if n, err := strconv.Atoi(os.Getenv("DDT_PFTHREADS")); err == nil && n > 1 {
			nt = n
		}
		par := func(c *Code, pack bool) func() {
			return func() {
				var wg sync.WaitGroup
				step := (size/int64(nt) + 63) &^ 63
				for lo0 := int64(0); lo0 < size; lo0 += step {
					hi0 := min(lo0+step, size)
					wg.Go(func() {
						if pack {
							c.run(true, fb, pk[lo0:hi0], img, -lo, 1, lo0)
						} else {
							c.run(false, fb, pk[lo0:hi0], img, -lo, 1, lo0)
						}
					})
				}
				wg.Wait()
			}
		}
		names := []string{"copy", "pack pf", "pack nopf", "unpack pf", "unpack nopf"}
		runs := []func(){
			func() { copy(cp, pk) },
			par(on, true),
			par(off, true),
			par(on, false),
			par(off, false),
		}
		for i, c := range far {
			names = append(names, "pack pf"+farNames[i], "unpack pf"+farNames[i])
			runs = append(runs, par(c, true), par(c, false))
		}
		ts := make([][]time.Duration, len(runs))
		for r := range rounds {
			for k := range runs {
				k := (k + r) % len(runs)
				t0 := time.Now()
				runs[k]()
				ts[k] = append(ts[k], time.Since(t0))
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%d bytes, vec %d, %d goroutines, %d rounds) min/median µs:", c.name, size, defaultVec, nt, rounds)
		for k, n := range names {
			slices.Sort(ts[k])
			fmt.Fprintf(&b, "  %s %.0f/%.0f", n, us(ts[k][0]), us(ts[k][len(ts[k])/2]))
		}
		t.Log(b.String())
	}
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// TestPrefetchAligned checks the unpack entries that prefetch only for
// blocks on a line boundary (pfAligned): L8 M's 128-byte blocks 256
// bytes apart test RDI's alignment and hold a prefetching loop (taken
// on a line boundary) and a plain one; pack code, 256-byte blocks and strides not a multiple of 64
// do not. Then the code of such a type runs against the reference
// engine with the image 0, 16, 48 and 56 bytes off a line boundary, whole
// and cut.
func TestPrefetchAligned(t *testing.T) {
	if !prefetchOn || !hostPrefW() {
		t.Skip("DDT_JIT_PF=0 or no PREFETCHW")
	}
	dbl := datatype.Of(datatype.Double)
	l8m, _ := datatype.Vector(8192, 16, 32, dbl)
	b256, _ := datatype.Vector(8192, 32, 64, dbl)
	s200, _ := datatype.Vector(8192, 16, 25, dbl)
	for _, c := range []struct {
		name string
		ty   *datatype.Type
		want bool
	}{{"l8m", l8m, true}, {"b256", b256, false}, {"s200", s200, false}} {
		for _, vec := range []int{16, 32, 64} {
			lst, err := listingArch(archAMD64, opt.Compile(c.ty), vec)
			if err != nil {
				t.Fatal(err)
			}
			up := strings.Index(lst, "\nunpack ")
			if up < 0 {
				t.Fatalf("%s: no unpack code in\n%s", c.name, lst)
			}
			if strings.Contains(lst[:up], "test rdi") {
				t.Errorf("%s/%d: alignment test in the pack code", c.name, vec)
			}
			got := strings.Contains(lst[up:], "test rdi, 0x3f")
			if got != c.want {
				t.Errorf("%s/%d: alignment test %v, want %v:\n%s", c.name, vec, got, c.want, lst[up:])
			}
			if c.want {
				// two copies of the loop, one with prefetches: two rets
				u := lst[up:]
				if n := strings.Count(u, "ret"); n != 2 {
					t.Errorf("%s/%d: %d rets in the unpack code, want 2", c.name, vec, n)
				}
				first := strings.Index(u, "ret")
				if !strings.Contains(u[:first], "prefetchw") || strings.Contains(u[first:], "prefetchw") {
					t.Errorf("%s/%d: want prefetches in the first loop only:\n%s", c.name, vec, u)
				}
			}
		}
	}
	if !supported {
		return
	}
	r := rand.New(rand.NewPCG(7, 8))
	ty, _ := datatype.Vector(2100, 16, 32, dbl) // above unitMax: the block entry
	p := opt.Compile(ty)
	size, _ := ty.PackSize(1)
	lo, hi, _ := ty.Span(1)
	pk := guarded(t, int(size))
	fill(pk, r)
	for _, vec := range vecs() {
		c, err := compileVec(p, vec)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{0, 8, 16, 48} {
			img := guarded(t, int(hi-lo)+off)[:hi-lo]
			// the span is a multiple of 64: the image starts off bytes
			// before a line boundary
			if a := uintptr(unsafe.Pointer(&img[0])) % 64; a != uintptr(64-off)%64 {
				t.Fatalf("image %d bytes off a line, want %d", a, (64-off)%64)
			}
			fill(img, r)
			want := bytes.Clone(img)
			ref.Unpack(ty, 1, want, -lo, 0, pk)
			base := bytes.Clone(img)
			for _, k := range cutsFor(size, r) {
				copy(img, base)
				if k > 0 {
					c.run(false, refFallback{ty}, pk[:k], img, -lo, 1, 0)
				}
				if k < size {
					c.run(false, refFallback{ty}, pk[k:], img, -lo, 1, k)
				}
				if !bytes.Equal(img, want) {
					t.Fatalf("vec %d, image %d bytes off a line, cut at %d: differs at %d", vec, off, k, firstDiff(img, want))
				}
			}
		}
	}
}

// TestPrefetchTail checks prefetchTail: the unpack loop over L5b M's
// rows (51 rows of 408 bytes, 2 KiB apart, in each plane of a subarray)
// prefetches 8 rows ahead, so its last 8 rows run in a loop of their own
// without prefetches; with prefetchTail off, no loop follows the last
// prefetch. The same for a loop over single doubles 144 bytes apart (far
// prefetches, 8 elements ahead). Then loops whose counts put the tail on
// every side of the unrolled iterations run against the reference
// engine.
func TestPrefetchTail(t *testing.T) {
	if !prefetchOn || !hostPrefW() {
		t.Skip("DDT_JIT_PF=0 or no PREFETCHW")
	}
	defer func(on bool) { prefetchTail = on }(prefetchTail)
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	l5b := must(datatype.Subarray([]int64{8, 256, 256}, []int64{3, 51, 51}, []int64{1, 16, 16}, datatype.OrderC, dbl))
	mg := must(datatype.HVector(48, 1, 110000, must(datatype.Vector(723, 1, 18, dbl)))) // far prefetches
	for i, on := range []bool{true, false, true, false} {
		prefetchTail = on
		ty, name := l5b, "L5b"
		if i >= 2 {
			ty, name = mg, "doubles"
		}
		lst, err := listingArch(archAMD64, opt.Compile(ty), 64)
		if err != nil {
			t.Fatal(err)
		}
		lst = lst[strings.Index(lst, "\nunpack "):]
		last := strings.LastIndex(lst, "prefetchw")
		if last < 0 {
			t.Fatalf("%s, tail %v: no prefetch in\n%s", name, on, lst)
		}
		at := func(line string) int64 { // a listing line's address
			f := strings.Fields(line)
			v, _ := strconv.ParseInt(f[0], 16, 64)
			return v
		}
		lines := strings.Split(lst[last:], "\n")
		lines[0] = lst[strings.LastIndex(lst[:last], "\n")+1:last] + lines[0]
		pf := at(lines[0])
		loop := false // a backward jump after the last prefetch to past it
		for _, l := range lines[1:] {
			if j := strings.Index(l, "jne 0x"); j >= 0 {
				to, _ := strconv.ParseInt(l[j+len("jne 0x"):], 16, 64)
				loop = loop || to > pf
			}
		}
		if loop != on {
			t.Errorf("%s, tail %v: a loop without prefetches after the last one at %#x: %v\n%s", name, on, pf, loop, lst)
		}
	}
	prefetchTail = true
	r := rand.New(rand.NewPCG(5, 6))
	// rows of 64 and 408 bytes (block prefetches), and single doubles
	// 144 bytes apart in 48 rows over 5 MB (NAS_MG_x L's far prefetches)
	for _, n := range []int64{8, 51, 1} {
		counts, outer, stride := []int64{32, 33, 35, 38, 39, 40, 41, 51}, int64(2), int64(256)
		if n == 1 {
			counts, outer, stride = []int64{720, 721, 723, 727, 728, 729, 735}, 48, 18
		}
		for _, count := range counts {
			ty := must(datatype.HVector(outer, 1, 110000, must(datatype.Vector(count, n, stride, dbl))))
			p := opt.Compile(ty)
			for _, vec := range vecs() {
				c, err := compileVec(p, vec)
				if err != nil {
					t.Fatalf("rows of %d, %d of them, vec %d: %v", n, count, vec, err)
				}
				size, _ := ty.PackSize(1)
				check(t, r, ty, p, c, 1, cutsFor(size, r))
			}
		}
	}
}

// TestFarUnits checks the far rule at run time (farUnits): the unpack of
// instances of a double 192 bytes apart (L2) compares the count with the
// units that span farPrefetchMinSpan and prefetches only in the loop it
// takes from there on; with the switch off there is no prefetch. Counts
// on both sides of that bound, and at it, unpack (and pack) as the
// reference does.
func TestFarUnits(t *testing.T) {
	if !prefetchOn || !hostPrefW() {
		t.Skip("DDT_JIT_PF=0 or no PREFETCHW")
	}
	defer func(on bool) { farUnits = on }(farUnits)
	dbl := datatype.Of(datatype.Double)
	must := typeMust(t)
	const stride = 192
	ty := must(datatype.Resized(dbl, 0, stride))
	bound := farUnitsMin(stride)
	for _, on := range []bool{true, false} {
		farUnits = on
		lst, err := listingArch(archAMD64, opt.Compile(ty), 64)
		if err != nil {
			t.Fatal(err)
		}
		un := lst[strings.Index(lst, "\nunpack "):]
		cmp := fmt.Sprintf("cmp rcx, %#x", bound)
		if got := strings.Contains(un, cmp) && strings.Contains(un, "prefetchw"); got != on {
			t.Errorf("farUnits %v: %q and a prefetch in the unpack code: %v\n%s", on, cmp, got, un)
		}
		if pk := lst[:strings.Index(lst, "\nunpack ")]; strings.Contains(pk, "prefetchw") || strings.Contains(pk, cmp) {
			t.Errorf("farUnits %v: the pack code prefetches\n%s", on, pk)
		}
	}
	farUnits = true
	r := rand.New(rand.NewPCG(7, 8))
	p := opt.Compile(ty)
	for _, count := range []int64{1, 9, bound - 1, bound, bound + 5} {
		for _, vec := range vecs() {
			c, err := compileVec(p, vec)
			if err != nil {
				t.Fatalf("count %d, vec %d: %v", count, vec, err)
			}
			check(t, r, ty, p, c, count, []int64{0, 8 * count / 3})
		}
	}
}
