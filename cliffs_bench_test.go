package ddt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
)

// A cliff is a type shape that runs far slower than its type map written
// as one flat hindexed list of bytes: before programs shared sub-programs,
// any type whose expanded tree had more than 2^20 nodes fell to the
// reference engine. cliffShapes are the shapes issue 21 names (and the
// ones the native generator handled by falling back); BenchmarkCliffs
// measures each against its flat list in one run.

// cliffShape is one benchmarked shape: its name and its type.
type cliffShape struct {
	name string
	ty   func() *datatype.Type
}

var cliffShapes = []cliffShape{
	// issue 21's cliff: a struct of 1100 copies of a struct of 1024
	// members (expanded: 1.1 M nodes)
	{"struct1100x1024", func() *datatype.Type { return structOfStructs(1100, 1024) }},
	// a chain of structs each holding its predecessor twice (once
	// resized): the expanded tree doubles per level
	{"sharedchain20", func() *datatype.Type { return sharedChain(20, 8) }},
	// a long hindexed list of varying block lengths (L6's shape, longer
	// than the native generator's 65,536 entries)
	{"hindexed100k", func() *datatype.Type { return longVarying(100_000) }},
	// a struct of 70,000 members of two basic types
	{"struct70k", func() *datatype.Type { return longStruct(70_000) }},
	// the anchors' L6: 4096 blocks of 1-16 doubles with gaps (an index
	// list above the native code's 256 KiB units)
	{"L6", func() *datatype.Type {
		lens, disps := l6Lists()
		return mustT(datatype.Indexed(lens, disps, datatype.Of(datatype.Double)))
	}},
}

// structOfStructs is a struct of n copies of a struct of m doubles and
// ints at irregular displacements.
func structOfStructs(n, m int) *datatype.Type {
	r := rand.New(rand.NewPCG(5, 6))
	bls, ds, ts := make([]int64, m), make([]int64, m), make([]*datatype.Type, m)
	var d int64
	for i := range m {
		bls[i], ds[i] = 1, d
		ts[i] = datatype.Of(datatype.Double)
		if i%3 == 1 {
			ts[i] = datatype.Of(datatype.Int)
		}
		d += ts[i].Size() + 8*r.Int64N(3)
	}
	inner := mustT(datatype.Struct(bls, ds, ts))
	bls, ds, ts = make([]int64, n), make([]int64, n), make([]*datatype.Type, n)
	for i := range n {
		bls[i], ds[i], ts[i] = 1, int64(i)*(inner.Extent()+16), inner
	}
	return mustT(datatype.Struct(bls, ds, ts))
}

// sharedChain is t_k with t_0 = a double and t_i = struct(t_{i-1},
// resized(t_{i-1})) at displacements 0 and extent(t_{i-1})+gap.
func sharedChain(k int, gap int64) *datatype.Type {
	t := datatype.Of(datatype.Double)
	for range k {
		r := mustT(datatype.Resized(t, 0, t.Extent()+gap))
		t = mustT(datatype.Struct([]int64{1, 1}, []int64{0, t.Extent() + gap}, []*datatype.Type{t, r}))
	}
	return t
}

// longVarying is a hindexed list of n blocks of 1 to 8 doubles with gaps.
func longVarying(n int) *datatype.Type {
	r := rand.New(rand.NewPCG(7, 8))
	bls, ds := make([]int64, n), make([]int64, n)
	var d int64
	for i := range n {
		bls[i], ds[i] = 1+r.Int64N(8), d
		d += 8*bls[i] + 8*(1+r.Int64N(4))
	}
	return mustT(datatype.HIndexed(bls, ds, datatype.Of(datatype.Double)))
}

// longStruct is a struct of n members, doubles and ints, with gaps.
func longStruct(n int) *datatype.Type {
	bls, ds, ts := make([]int64, n), make([]int64, n), make([]*datatype.Type, n)
	var d int64
	for i := range n {
		bls[i], ds[i] = 1, d
		ts[i] = datatype.Of(datatype.Double)
		if i%2 == 1 {
			ts[i] = datatype.Of(datatype.Int)
		}
		d += 16
	}
	return mustT(datatype.Struct(bls, ds, ts))
}

func mustT(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

// runsOn names the engine that moves c's data: its kind, "native" only
// when native code was generated (else the compiled fallback).
func runsOn(c *Committed) string {
	if c.Engine() == Native && strings.Contains(c.Plan(), "native code: none") {
		return "compiled"
	}
	return c.Engine().String()
}

// flatList is ty's type map (one instance) as one hindexed list of bytes,
// touching elements merged into one block.
func flatList(ty *datatype.Type) *datatype.Type {
	var bls, ds []int64
	ty.Walk(1, func(b datatype.Basic, d int64) bool {
		if k := len(ds) - 1; k >= 0 && ds[k]+bls[k] == d {
			bls[k] += b.Size()
			return true
		}
		bls, ds = append(bls, b.Size()), append(ds, d)
		return true
	})
	flat := mustT(datatype.HIndexed(bls, ds, datatype.Of(datatype.Byte)))
	return mustT(datatype.Resized(flat, ty.LB(), ty.Extent()))
}

// BenchmarkCliffs packs each cliff shape, its flat list and the shape on
// the compiled engine alternately (one pack of each per iteration) and
// reports the shape's best time (GB/s: of one pack) over the
// flat list's (x-flat: 1 is parity, the target is at most 2), over the
// compiled engine's on the same type (x-compiled), and the
// engine each runs on (in the name: shape/engine-of-type/engine-of-flat;
// "compiled" also when native code was asked for and not generated).
// The machine is shared: only the ratio, measured in one run, means
// anything.
//
//	go test -run '^$' -bench Cliffs -benchtime 200x .
func BenchmarkCliffs(b *testing.B) {
	for _, s := range cliffShapes {
		ty := s.ty()
		flat := flatList(ty)
		c, err := CommitWith(ty, Options{JITNow: true})
		if err != nil {
			b.Fatal(err)
		}
		f, err := CommitWith(flat, Options{JITNow: true})
		if err != nil {
			b.Fatal(err)
		}
		cc, err := CommitWith(ty, Options{Engine: Compiled})
		if err != nil {
			b.Fatal(err)
		}
		src, origin := image(ty, 1, 3)
		dst, want := make([]byte, ty.Size()), make([]byte, ty.Size())
		if _, err := f.Pack(want, src, origin, 1); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Pack(dst, src, origin, 1); err != nil || string(dst) != string(want) {
			b.Fatalf("%s: pack differs from the flat list's (%v)", s.name, err)
		}
		name := fmt.Sprintf("%s/%s/%s", s.name, runsOn(c), runsOn(f))
		b.Run(name, func(b *testing.B) {
			// the best time of each over the iterations: robust to the
			// other load of a shared machine
			tt, tf, tc := time.Duration(1<<62), time.Duration(1<<62), time.Duration(1<<62)
			b.SetBytes(ty.Size())
			for range b.N {
				t0 := time.Now()
				c.Pack(dst, src, origin, 1)
				t1 := time.Now()
				f.Pack(dst, src, origin, 1)
				t2 := time.Now()
				cc.Pack(dst, src, origin, 1)
				tt, tf, tc = min(tt, t1.Sub(t0)), min(tf, t2.Sub(t1)), min(tc, time.Since(t2))
			}
			b.ReportMetric(float64(tt)/float64(tf), "x-flat")
			b.ReportMetric(float64(tt)/float64(tc), "x-compiled")
			b.ReportMetric(float64(ty.Size())/tt.Seconds()/1e9, "GB/s")
		})
	}
}
