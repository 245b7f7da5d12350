package ddt

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/host"
)

// ntLayout is one 16 MB cell of the anchors harness (mpipack.c; the
// same types as cmd/ddt/internal/bench), with its hand-written pack.
type ntLayout struct {
	name   string
	ty     *datatype.Type
	count  int64
	alloc  int64
	packed int64
	hand   func(d, s []byte)
}

// irregular layout L6 of mpipack.c: 4096 blocks of 1-16 doubles with gaps
// of 1-16 doubles (splitmix64 from its seed).
func l6Lists() (lens, disps []int64) {
	s := uint64(0x5eed5eed12345)
	next := func() uint64 {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	var pos int64
	for i := range 4096 {
		if i > 0 {
			pos += 1 + int64(next()%16)
		}
		l := 1 + int64(next()%16)
		lens, disps = append(lens, l), append(disps, pos)
		pos += l
	}
	return lens, disps
}

func ntLayouts(tb testing.TB) []ntLayout {
	dbl := datatype.Of(datatype.Double)
	must := func(t *datatype.Type, err error) *datatype.Type {
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
	var ls []ntLayout
	{ // L5a L: 1448^2 of 1472^2 doubles at 12
		const N, sub, st = 1472, 1448, 12
		ls = append(ls, ntLayout{"L5a_L", must(datatype.Subarray([]int64{N, N}, []int64{sub, sub}, []int64{st, st}, datatype.OrderC, dbl)),
			1, N * N * 8, sub * sub * 8, func(d, s []byte) {
				for r := range sub {
					copy(d[r*sub*8:(r+1)*sub*8], s[((st+r)*N+st)*8:])
				}
			}})
	}
	{ // L5b L: 128^3 of 256^3 doubles at 64
		const N, sub, st = 256, 128, 64
		ls = append(ls, ntLayout{"L5b_L", must(datatype.Subarray([]int64{N, N, N}, []int64{sub, sub, sub}, []int64{st, st, st}, datatype.OrderC, dbl)),
			1, N * N * N * 8, sub * sub * sub * 8, func(d, s []byte) {
				q := d
				for z := range sub {
					for y := range sub {
						copy(q[:sub*8], s[(((st+z)*N+st+y)*N+st)*8:])
						q = q[sub*8:]
					}
				}
			}})
	}
	{ // L8 L: vector(131072, 16, 32, double)
		const n = 131072
		ls = append(ls, ntLayout{"L8_L", must(datatype.Vector(n, 16, 32, dbl)), 1, ((n-1)*32 + 16) * 8, n * 128,
			func(d, s []byte) {
				for i := range n {
					copy(d[i*128:(i+1)*128], s[i*256:])
				}
			}})
	}
	if strings.Contains(os.Getenv("DDT_NTLAYOUTS"), "L8XL") { // L8 at 512 MiB packed: above a 300 MiB LLC
		const n = 4 << 20
		ls = append(ls, ntLayout{"L8XL_L", must(datatype.Vector(n, 16, 32, dbl)), 1, ((n-1)*32 + 16) * 8, n * 128,
			func(d, s []byte) {
				for i := range n {
					copy(d[i*128:(i+1)*128], s[i*256:])
				}
			}})
	}
	{ // L6 L: 60 instances of indexed(4096 random blocks)
		lens, disps := l6Lists()
		var elems int64
		for _, l := range lens {
			elems += l
		}
		ext := (disps[len(disps)-1] + lens[len(lens)-1]) * 8
		ls = append(ls, ntLayout{"L6_L", must(datatype.Indexed(lens, disps, dbl)), 60, 60 * ext, 60 * elems * 8,
			func(d, s []byte) {
				q := d
				for k := range int64(60) {
					b := s[k*ext:]
					for i, l := range lens {
						copy(q[:l*8], b[disps[i]*8:])
						q = q[l*8:]
					}
				}
			}})
	}
	return ls
}

// BenchmarkLargePack packs the 16 MB cells of the anchors harness (L5a,
// L5b, L8, L6 L) with non-temporal stores through the scratch buffer
// (nt) and without (plain), with one goroutine and with Threads 0 (two
// on this machine), next to the hand-written Go loop and copy of the
// packed bytes, in one process. Run with
//
//	go test -run '^$' -bench LargePack -count 6 . | go run ./internal/cmd/ratios ... (see docs/performance.md)
func BenchmarkLargePack(b *testing.B) {
	defer func(m, c int64) { ntMin, ntChunk = m, c }(ntMin, ntChunk)
	// DDT_NTCHUNK=bytes (4 KiB to 1 MiB) sets the piece size for a sweep
	if k, err := strconv.ParseInt(os.Getenv("DDT_NTCHUNK"), 10, 64); err == nil && k >= 4096 && k <= ntBuf {
		ntChunk = k
	}
	for _, l := range ntLayouts(b) {
		src, dst := make([]byte, l.alloc), make([]byte, l.packed)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		ma, mb := make([]byte, l.packed), make([]byte, l.packed)
		copy(ma, src)
		run := func(name string, f func()) {
			f()
			b.Run(l.name+"/"+name, func(b *testing.B) {
				b.SetBytes(l.packed)
				for b.Loop() {
					f()
				}
			})
		}
		run("copy", func() { copy(mb, ma) })
		run("copynt", func() { engine.CopyNT(mb, ma) })
		run("hand", func() { l.hand(dst, src) })
		for _, th := range []int{1, 0} {
			for _, nt := range []bool{false, true} {
				ntMin = math.MaxInt64
				if nt {
					ntMin = 1 << 20
				}
				c, err := CommitWith(l.ty, Options{Threads: th})
				if err != nil {
					b.Fatal(err)
				}
				mode := "plain"
				if nt {
					mode = "nt"
				}
				c.Pack(dst, src, 0, l.count) // builds the engine and its fast path under this ntMin
				run(fmt.Sprintf("ddt-%s-t%d", mode, th), func() {
					if _, err := c.Pack(dst, src, 0, l.count); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

// TestLargePackTable prints, for the 16 MB cells, the best and median
// time of each variant of BenchmarkLargePack over rounds in which every
// variant runs once in turn (so that a noisy, shared machine slows all
// of them alike), and their ratios to copy of the packed bytes. It runs
// only with DDT_NTBENCH=rounds in the environment:
//
//	DDT_NTBENCH=30 go test -run LargePackTable -v .
func TestLargePackTable(t *testing.T) {
	rounds, err := strconv.Atoi(os.Getenv("DDT_NTBENCH"))
	if err != nil || rounds <= 0 {
		t.Skip("DDT_NTBENCH=rounds not set")
	}
	defer func(m, c int64) { ntMin, ntChunk = m, c }(ntMin, ntChunk)
	if k, err := strconv.ParseInt(os.Getenv("DDT_NTCHUNK"), 10, 64); err == nil && k >= 4096 && k <= ntBuf {
		ntChunk = k
	}
	for _, l := range ntLayouts(t) {
		if f := os.Getenv("DDT_NTLAYOUTS"); f != "" && !slices.Contains(strings.Split(f, ","), l.name[:len(l.name)-2]) {
			continue
		}
		src, dst := make([]byte, l.alloc), make([]byte, l.packed)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		ma, mb := make([]byte, l.packed), make([]byte, l.packed)
		copy(ma, src)
		names := []string{"copy", "copynt", "hand"}
		fns := []func(){func() { copy(mb, ma) }, func() { engine.CopyNT(mb, ma) }, func() { l.hand(dst, src) }}
		for _, th := range []int{1, 0} {
			for _, nt := range []bool{false, true} {
				ntMin = math.MaxInt64
				mode := "plain"
				if nt {
					ntMin, mode = 1<<20, "nt"
				}
				c, err := CommitWith(l.ty, Options{Threads: th})
				if err != nil {
					t.Fatal(err)
				}
				c.Pack(dst, src, 0, l.count)
				names = append(names, fmt.Sprintf("ddt-%s-t%d", mode, th))
				fns = append(fns, func() { c.Pack(dst, src, 0, l.count) })
				if nt { // the scratch-buffer path where the native code has its own
					names = append(names, fmt.Sprintf("ddt-ntscratch-t%d", th))
					fns = append(fns, func() {
						ntJIT = false
						c.Pack(dst, src, 0, l.count)
						ntJIT = true
					})
				}
			}
		}
		times := make([][]float64, len(fns))
		for range rounds {
			for i, f := range fns {
				t0 := time.Now()
				f()
				times[i] = append(times[i], time.Since(t0).Seconds()*1e6)
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%d bytes packed, %d rounds; µs best / median, ratio of best to copy's best)\n", l.name, l.packed, rounds)
		best0 := slices.Min(times[0])
		for i, ts := range times {
			slices.Sort(ts)
			fmt.Fprintf(&b, "  %-14s %8.0f %8.0f  %5.2fx\n", names[i], ts[0], ts[len(ts)/2], ts[0]/best0)
		}
		t.Log("\n" + b.String())
	}
}

// TestCopyNTSizes prints the best time of copy and engine.CopyNT of
// buffers of 1 MiB to DDT_NTSIZES MiB (default 256), interleaved over
// DDT_NTBENCH rounds: the size from which non-temporal stores pay for a
// plain copy on this machine, the calibration of NonTemporalMin.
//
//	DDT_NTBENCH=20 DDT_NTSIZES=1024 go test -run CopyNTSizes -v .
func TestCopyNTSizes(t *testing.T) {
	rounds, err := strconv.Atoi(os.Getenv("DDT_NTBENCH"))
	if err != nil || rounds <= 0 {
		t.Skip("DDT_NTBENCH=rounds not set")
	}
	top := int64(256)
	if m, err := strconv.ParseInt(os.Getenv("DDT_NTSIZES"), 10, 64); err == nil && m > 0 {
		top = m
	}
	var b strings.Builder
	fmt.Fprintf(&b, "LLC %d MiB; %d rounds; best µs of copy, CopyNT, their ratio\n", host.LLC()>>20, rounds)
	for mb := int64(1); mb <= top; mb *= 4 {
		n := mb << 20
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i)
		}
		copy(dst, src)
		bc, bn := math.Inf(1), math.Inf(1)
		for range rounds {
			t0 := time.Now()
			copy(dst, src)
			t1 := time.Now()
			engine.CopyNT(dst, src)
			t2 := time.Now()
			bc, bn = min(bc, t1.Sub(t0).Seconds()*1e6), min(bn, t2.Sub(t1).Seconds()*1e6)
		}
		fmt.Fprintf(&b, "  %5d MiB %10.0f %10.0f  %.2f\n", mb, bc, bn, bn/bc)
	}
	t.Log("\n" + b.String())
}
