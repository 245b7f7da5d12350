package jit

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestSteps checks Code.Steps on types whose instance is larger than a
// unit (so the root has no whole-message entry and the Go side walks its
// blocks): how many steps one instance takes, and (check) that the steps
// move what the reference engine moves, pack and unpack, one instance and
// three.
func TestSteps(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	must := typeMust(t)
	dbl, flt := datatype.Of(datatype.Double), datatype.Of(datatype.Float)
	su3 := must(datatype.Contiguous(6, flt))
	half := must(datatype.Vector(12, 2048, 4096, su3))
	row := must(datatype.Vector(40, 128, 150, dbl)) // 40 KiB
	disps := make([]int64, 100)
	lens := make([]int64, 100)
	for i := range disps {
		disps[i] = int64(i)*700 + int64(i%7)*13
		lens[i] = 512 + int64(i%5)
	}
	cases := []struct {
		name  string
		ty    *datatype.Type
		steps int // per direction
	}{
		// NAS_MG_y's rows: a vector of long blocks, one call of its block entry
		{"vector", must(datatype.Vector(40, 1024, 1100, dbl)), 1},
		// MILC_su3_zd: two halves of rows, each a call of the rows' block entry
		{"hvector of vectors", must(datatype.HVector(2, 1, 24*4096*13, half)), 2},
		// a list of more blocks than the Go side walks: one call of the index entry
		{"indexed", must(datatype.Indexed(lens, disps, dbl)), 1},
		// listed blocks of one length, which the compiler finds to be two
		// strided runs: one call of each one's block entry
		{"indexed block", must(datatype.IndexedBlock(600, disps, dbl)), 2},
		// instances of a unit end to end
		{"contiguous", must(datatype.Contiguous(9, row)), 1},
		// a struct of big members
		{"struct", must(datatype.Struct([]int64{1, 2, 1}, []int64{0, 2_000_000, 600_000},
			[]*datatype.Type{must(datatype.Vector(40, 1024, 1100, dbl)), row, must(datatype.Indexed(lens, disps, dbl))})), 3},
	}
	r := rand.New(rand.NewPCG(3, 6))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ty.Size() <= unitMax {
				t.Fatalf("type of %d bytes: not above a unit", tc.ty.Size())
			}
			p := opt.Compile(tc.ty)
			for _, vec := range vecs() {
				c, err := compileVec(p, vec)
				if errors.Is(err, ErrUnsupported) && hostArch == archARM64 {
					t.Skip(err) // the arm64 generator's lists are shorter
				}
				if err != nil {
					t.Fatal(err)
				}
				if c.wholeMax != 0 {
					t.Fatalf("root has a whole-message entry:\n%s", p)
				}
				pk, un, ok := c.Steps()
				if !ok || len(pk) != tc.steps || len(un) != tc.steps {
					t.Fatalf("vec %d: steps %v / %v (ok %v), want %d each; program:\n%s", vec, pk, un, ok, tc.steps, p)
				}
				before := stepRuns
				for _, count := range []int64{1, 3} {
					size, _ := tc.ty.PackSize(count)
					check(t, r, tc.ty, p, c, count, []int64{0, size / 3})
				}
				if stepRuns != before+2 {
					t.Fatalf("the steps ran %d times, want 2", stepRuns-before)
				}
			}
		})
	}
}

// TestStepsMany checks that a type whose instance would take more than
// maxSteps steps has none (the Go side walks it), without moving a byte.
func TestStepsMany(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	must := typeMust(t)
	// 40 members of 40 members, each a vector above a unit (1,600
	// calls); never packed here (about 700 MB)
	leaf := must(datatype.Vector(40, 1024, 1100, datatype.Of(datatype.Double)))
	bl, ds, ts := make([]int64, 40), make([]int64, 40), make([]*datatype.Type, 40)
	for i := range bl {
		bl[i], ds[i], ts[i] = 1, int64(i)*leaf.Extent(), leaf
	}
	mid := must(datatype.Struct(bl, ds, ts))
	for i := range bl {
		ds[i], ts[i] = int64(i)*mid.Extent(), mid
	}
	top := must(datatype.Struct(bl, ds, ts))
	c, err := Compile(opt.Compile(top))
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if pk, un, ok := c.Steps(); ok || pk != nil || un != nil {
		t.Fatalf("steps of %d and %d calls, want none", len(pk), len(un))
	}
}
