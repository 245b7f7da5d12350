package jit

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
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
