package jit

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// abVariant is a setting of the generator's width choices.
type abVariant struct {
	name       string
	vec        int
	gatherMax  int64
	prefetch   bool
	listUnroll bool
	uvec       int  // unpack's widest move (unpackVec)
	noTail     bool // prefetches to the end of every loop (prefetchTail off)
}

// TestAB times the generated code of a few layouts under several
// generator settings in one process, samples interleaved (run with
// DDT_JIT_AB=1 -v; a measurement, not a check): the median time of each
// setting relative to the first.
func TestAB(t *testing.T) {
	if os.Getenv("DDT_JIT_AB") != "1" {
		t.Skip("DDT_JIT_AB=1 runs it")
	}
	if !Available() || hostVec() < 64 {
		t.Skip("needs generated code with 64-byte vectors")
	}
	dbl, fl := datatype.Of(datatype.Double), datatype.Of(datatype.Float)
	must := typeMust(t)
	r := rand.New(rand.NewPCG(1, 2))
	perm := func(n, k int, scale int64) []int64 {
		p := r.Perm(n)[:k]
		d := make([]int64, k)
		for i := range d {
			d[i] = int64(p[i]) * scale
		}
		return d
	}
	// LAMMPS_full.send L: x[3] and five more doubles of 65536 random atoms
	// out of arrays of 4*65536
	const atoms, dim = 65536, 4 * 65536
	list := perm(dim, atoms, 1)
	l3 := make([]int64, atoms)
	for i, a := range list {
		l3[i] = 3 * a
	}
	idx1, idx3 := must(datatype.IndexedBlock(1, list, dbl)), must(datatype.IndexedBlock(3, l3, dbl))
	off := []int64{0}
	for k := range 5 {
		off = append(off, int64(3*dim*8+k*dim*8))
	}
	lammps := must(datatype.Struct([]int64{1, 1, 1, 1, 1, 1}, off, []*datatype.Type{idx3, idx1, idx1, idx1, idx1, idx1}))
	cases := []struct {
		name string
		ty   *datatype.Type
	}{
		{"NAS_MG_x M", must(datatype.HVector(128, 1, 258*130*8, must(datatype.Vector(128, 1, 258, dbl))))},
		{"L3 M", must(datatype.HVector(362, 1, 362*362*8, must(datatype.Vector(362, 1, 362, dbl))))},
		{"L1 M", must(datatype.Vector(131072, 1, 24, dbl))},
		{"L5b M", must(datatype.Subarray([]int64{256, 256, 256}, []int64{51, 51, 51}, []int64{16, 16, 16}, datatype.OrderC, dbl))},
		{"L8 M", must(datatype.Vector(8192, 16, 32, dbl))},
		{"rows816", must(datatype.Vector(1300, 102, 256, dbl))},
		{"rows1024", must(datatype.Vector(1024, 128, 256, dbl))},
		{"rows200", must(datatype.Vector(5000, 25, 64, dbl))},
		{"rows192", must(datatype.Vector(5000, 24, 64, dbl))},
		{"rows408", must(datatype.Vector(2601, 51, 256, dbl))},
		{"rows520", must(datatype.Vector(2016, 65, 256, dbl))},
		{"rows1000", must(datatype.Vector(1049, 125, 256, dbl))},
		{"rows64", must(datatype.Vector(16384, 8, 16, dbl))},
		{"rows96", must(datatype.Vector(10923, 12, 20, dbl))},
		{"rows4096", must(datatype.Vector(256, 512, 600, dbl))},
		{"L5a M", must(datatype.Subarray([]int64{600, 600}, []int64{362, 362}, []int64{100, 100}, datatype.OrderC, dbl))},
		{"SPECFEM3D_oc M", must(datatype.HIndexedBlock(1, perm(409600, 25600, 4), fl))},
		{"LAMMPS_full L", lammps},
	}
	old := abVariant{"old", 64, 1 << 40, true, false, 64, false}
	variants := []abVariant{old,
		{"new", 64, gatherMaxStride, true, true, 64, false},
		{"new PF=0", 64, gatherMaxStride, false, true, 64, false},
		{"vec32", 32, gatherMaxStride, true, true, 32, false},
		{"vec16", 16, gatherMaxStride, true, true, 16, false},
		{"unpack32", 64, gatherMaxStride, true, true, 32, false},
		{"unpack16", 64, gatherMaxStride, true, true, 16, false},
	}
	if os.Getenv("DDT_JIT_AB_WIDTHS") == "1" {
		// unpack widths against the defaults (64)
		old = abVariant{"u64", 64, gatherMaxStride, true, true, 64, false}
		variants = []abVariant{old, variants[5], variants[6], {"u64 PF=0", 64, gatherMaxStride, false, true, 64, false}}
	}
	if os.Getenv("DDT_JIT_AB_PF") == "1" {
		// prefetches to the end of each loop, against the loop's tail
		// without them (prefetchTail) and no prefetches at all
		old = abVariant{"to end", 64, gatherMaxStride, true, true, unpackVec, true}
		variants = []abVariant{old, {"tail", 64, gatherMaxStride, true, true, unpackVec, false},
			{"PF=0", 64, gatherMaxStride, false, true, unpackVec, false}}
	}
	defer func(g int64, p, l bool, u int, t bool) {
		gatherMaxStride, prefetchOn, listUnrollOn, unpackVec, prefetchTail = g, p, l, u, t
	}(gatherMaxStride, prefetchOn, listUnrollOn, unpackVec, prefetchTail)
	for _, c := range cases {
		p := opt.Compile(c.ty)
		size, _ := c.ty.PackSize(1)
		lo, hi, _ := c.ty.Span(1)
		img := make([]byte, hi-lo)
		pk := make([]byte, size)
		fb := refFallback{c.ty}
		codes := make([]*Code, len(variants))
		for i, v := range variants {
			gatherMaxStride, prefetchOn, listUnrollOn, unpackVec, prefetchTail = v.gatherMax, v.prefetch, v.listUnroll, v.uvec, !v.noTail
			code, err := compileVec(p, v.vec)
			if err != nil {
				t.Fatal(err)
			}
			codes[i] = code
		}
		meds := medians(interleaved(codes, fb, pk, img, -lo, 1, size, 4<<20, 41))
		for i, v := range variants {
			m := meds[i]
			if i == 0 {
				t.Logf("%-15s %9d B  %-9s pack %9.0f ns  unpack %9.0f ns", c.name, size, v.name, m[0], m[1])
				continue
			}
			o := meds[0]
			t.Logf("%-15s %9d B  %-9s pack %9.0f ns  unpack %9.0f ns  old/this: pack %.2f unpack %.2f", c.name, size, v.name, m[0], m[1], o[0]/m[0], o[1]/m[1])
		}
	}
}

// interleaved times packs and unpacks of count instances (size packed
// bytes, img's origin at origin) by each of codes, about bytes packed
// bytes per sample, rounds samples each, the codes' samples interleaved
// and their order turned every round: the ns per call of each code's
// packs and unpacks.
func interleaved(codes []*Code, fb Fallback, pk, img []byte, origin, count, size, bytes int64, rounds int) [][2][]float64 {
	iters := max(1, int(bytes/size))
	ts := make([][2][]float64, len(codes))
	for rd := range rounds {
		for k := range codes {
			i := (k + rd) % len(codes)
			for d := range 2 {
				t0 := time.Now()
				for range iters {
					codes[i].run(d == 0, fb, pk, img, origin, count, 0)
				}
				ts[i][d] = append(ts[i][d], float64(time.Since(t0).Nanoseconds())/float64(iters))
			}
		}
	}
	return ts
}

// medians are the median pack and unpack times of each code of ts.
func medians(ts [][2][]float64) [][2]float64 {
	meds := make([][2]float64, len(ts))
	for i := range ts {
		for d := range 2 {
			s := slices.Clone(ts[i][d])
			slices.Sort(s)
			meds[i][d] = s[len(s)/2]
		}
	}
	return meds
}
