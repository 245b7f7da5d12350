package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The kernel tests place the blocks at the very ends of their slices (the
// slices hold exactly the bytes the kernels may touch), with guard bytes
// around them in a larger allocation, and check that the guards survive.

const guard = 256

// fenced returns a buffer of n bytes with guard bytes on both sides, all
// filled with a pattern, and the whole allocation.
func fenced(r *rand.Rand, n int) (mid, all []byte) {
	all = make([]byte, n+2*guard)
	for i := range all {
		all[i] = byte(r.Uint32())
	}
	return all[guard : guard+n : guard+n], all
}

func checkGuards(t *testing.T, what string, all, before []byte) {
	t.Helper()
	n := len(all) - 2*guard
	if !bytes.Equal(all[:guard], before[:guard]) || !bytes.Equal(all[guard+n:], before[guard+n:]) {
		t.Fatalf("%s: wrote outside the slice", what)
	}
}

// kernelsBoth runs f with the Go loops and with each assembly kernel set
// the CPU supports.
func kernelsBoth(t *testing.T, f func(t *testing.T, lv Level)) {
	for l := LevelGo; l <= DefaultLevel(); l++ {
		f(t, l)
	}
}

func TestBlockKernels(t *testing.T) { kernelsBoth(t, testBlockKernels) }

func testBlockKernels(t *testing.T, lv Level) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		nb := 1 + r.IntN(40)
		maxL := []int{8, 64, 130, 300}[iter%4]
		// the kernels take lengths in units of es bytes
		es := []int{1, 1, 2, 3, 8, 16}[r.IntN(6)]
		offs, lens := make([]int64, nb), make([]int64, nb)
		pos, total := 0, 0
		for i := range nb {
			pos += r.IntN(20)
			if r.IntN(8) == 0 && pos > 40 {
				pos -= r.IntN(40) // overlapping blocks
			}
			L := es * r.IntN(maxL/es+1)
			offs[i], lens[i] = int64(pos), int64(L)
			pos += L
			total += L
		}
		lo, hi := pos, 0
		for i := range nb {
			if lens[i] > 0 {
				lo, hi = min(lo, int(offs[i])), max(hi, int(offs[i]+lens[i]))
			}
		}
		if total == 0 {
			lo = 0
		}
		for i := range nb {
			if lens[i] == 0 {
				offs[i] = int64(lo) // anywhere inside: nothing moves
			}
		}
		units := make([]int64, nb)
		for i, l := range lens {
			units[i] = l / int64(es)
		}
		// memory covers exactly [lo, hi)
		mem, memAll := fenced(r, hi-lo)
		pk, pkAll := fenced(r, total)
		for i := range offs {
			offs[i] -= int64(lo)
		}
		// reference pack
		want := make([]byte, 0, total)
		for i, o := range offs {
			want = append(want, mem[o:o+lens[i]]...)
		}
		pb, mb := append([]byte(nil), pkAll...), append([]byte(nil), memAll...)
		if total > 0 {
			h := len(mem) / 2 // a base inside the slice and a negative offset
			gatherBlocks(lv, unsafe.Pointer(&pk[0]), unsafe.Pointer(&mem[h]), -h, offs, units, es)
		}
		if !bytes.Equal(pk, want) {
			t.Fatalf("iter %d level=%v es=%d: gather mismatch", iter, lv, es)
		}
		checkFixed(t, lv, r, offs, mem)
		checkGuards(t, "gather", pkAll, pb)
		if !bytes.Equal(memAll, mb) {
			t.Fatalf("gather wrote its source")
		}
		// reference unpack
		for i := range pk {
			pk[i] = byte(r.Uint32())
		}
		wantM := append([]byte(nil), mem...)
		q := 0
		for i, o := range offs {
			copy(wantM[o:o+lens[i]], pk[q:q+int(lens[i])])
			q += int(lens[i])
		}
		mb = append(mb[:0], memAll...)
		if len(mem) > 0 {
			h := len(mem) / 2
			scatterBlocks(lv, unsafe.Pointer(&mem[h]), -h, unsafe.Pointer(unsafe.SliceData(pk)), offs, units, es)
		}
		if !bytes.Equal(mem, wantM) {
			t.Fatalf("iter %d level=%v es=%d: scatter mismatch", iter, lv, es)
		}
		checkGuards(t, "scatter", memAll, mb)
	}
}

func TestStridedKernel(t *testing.T) {
	kernelsBoth(t, func(t *testing.T, lv Level) {
		r := rand.New(rand.NewPCG(3, 4))
		for iter := range 3000 {
			L := 1 + r.IntN([]int{16, 70, 200, 600}[iter%4])
			n := r.IntN(12)
			ss := L + r.IntN(100)
			ds := L + r.IntN(3)*r.IntN(50)
			sl, dl := 0, 0
			if n > 0 {
				sl, dl = (n-1)*ss+L, (n-1)*ds+L
			}
			src, _ := fenced(r, sl)
			dst, dstAll := fenced(r, dl)
			want := append([]byte(nil), dst...)
			for i := range n {
				copy(want[i*ds:i*ds+L], src[i*ss:i*ss+L])
			}
			before := append([]byte(nil), dstAll...)
			if n > 0 {
				strided(lv, unsafe.Pointer(&dst[0]), ds, unsafe.Pointer(&src[0]), ss, n, L)
			}
			if !bytes.Equal(dst, want) {
				t.Fatalf("iter %d level=%v L=%d n=%d: mismatch", iter, lv, L, n)
			}
			checkGuards(t, "strided", dstAll, before)
		}
	})
}

// checkFixed runs gatherFixed and scatterFixed on blocks of one length at
// the displacements offs (clamped to mem), against copy.
func checkFixed(t *testing.T, lv Level, r *rand.Rand, offs []int64, mem []byte) {
	t.Helper()
	if len(mem) == 0 {
		return
	}
	L := 1 + r.IntN(min(len(mem), 200))
	os := make([]int64, len(offs))
	for i, o := range offs {
		os[i] = min(o, int64(len(mem)-L))
	}
	pk, pkAll := fenced(r, L*len(os))
	before := append([]byte(nil), pkAll...)
	want := make([]byte, 0, len(pk))
	for _, o := range os {
		want = append(want, mem[o:o+int64(L)]...)
	}
	gatherFixed(lv, unsafe.Pointer(&pk[0]), unsafe.Pointer(&mem[0]), 0, os, L)
	if !bytes.Equal(pk, want) {
		t.Fatalf("level=%v L=%d: gatherFixed mismatch", lv, L)
	}
	checkGuards(t, "gatherFixed", pkAll, before)
	m2, m2All := fenced(r, len(mem))
	wantM := append([]byte(nil), m2...)
	for i, o := range os {
		copy(wantM[o:o+int64(L)], pk[i*L:(i+1)*L])
	}
	before = append(before[:0], m2All...)
	scatterFixed(lv, unsafe.Pointer(&m2[0]), 0, unsafe.Pointer(&pk[0]), os, L)
	if !bytes.Equal(m2, wantM) {
		t.Fatalf("level=%v L=%d: scatterFixed mismatch", lv, L)
	}
	checkGuards(t, "scatterFixed", m2All, before)
}

// TestGather8 checks gather8 (the strided-word pack of line) against the
// Go word loop at every kernel level: strides of both signs, counts
// around the groups of four, the packed bytes at the very end of their
// slice with guards around both buffers.
func TestGather8(t *testing.T) { kernelsBoth(t, testGather8) }

func testGather8(t *testing.T, lv Level) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 2000 {
		n := r.IntN(40)
		ss := (1 + r.IntN(64)) * []int{1, 8}[r.IntN(2)]
		if r.IntN(4) == 0 {
			ss = -ss
		}
		span := 8
		if n > 0 {
			span = (n-1)*max(ss, -ss) + 8
		}
		src, srcAll := fenced(r, span)
		first := 0 // element 0's offset in src
		if ss < 0 {
			first = span - 8
		}
		want := make([]byte, 8*n)
		for i := range n {
			copy(want[8*i:], src[first+i*ss:first+i*ss+8])
		}
		dst, dstAll := fenced(r, 8*n)
		before := bytes.Clone(dstAll)
		srcBefore := bytes.Clone(srcAll)
		if n > 0 {
			gather8(lv, unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[first]), ss, n)
		}
		if !bytes.Equal(dst, want) {
			t.Fatalf("level %v iter %d: n %d stride %d: packed bytes differ", lv, iter, n, ss)
		}
		checkGuards(t, "gather8", dstAll, before)
		if !bytes.Equal(srcAll, srcBefore) {
			t.Fatalf("level %v iter %d: source written", lv, iter)
		}
	}
}

func TestFewSets(t *testing.T) {
	for _, c := range []struct {
		n, ss int
		want  bool
	}{{1024, 256, true}, {128, 256, false}, {1024, -256, true}, {1024, 192, false}, {1 << 20, 24, false}, {65, 512, true}} {
		if got := fewSets(c.n, c.ss); got != c.want {
			t.Errorf("fewSets(%d, %d) = %v, want %v", c.n, c.ss, got, c.want)
		}
	}
}
