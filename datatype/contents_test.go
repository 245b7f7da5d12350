package datatype_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestContentsRebuild: rebuilding every node of random types from its
// contents gives an Equal type with the same layout and type map.
func TestContentsRebuild(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1500 {
		ty := typegen.Random(r, typegen.Options{MaxElements: 256})
		if ty.IsPredefined() {
			if ni, na, nt, c := ty.Envelope(); ni+na+nt != 0 || c != datatype.CombinerNamed {
				t.Fatalf("predefined %s: envelope %d %d %d %v", ty, ni, na, nt, c)
			}
			continue
		}
		c := ty.Contents()
		if ni, na, nt, comb := ty.Envelope(); ni != len(c.Ints) || na != len(c.Addrs) || nt != len(c.Types) || comb != ty.Combiner() {
			t.Fatalf("type %d: envelope disagrees with contents", i)
		}
		back, err := datatype.Rebuild(c)
		if err != nil {
			t.Fatalf("type %d (%v): rebuild: %v", i, ty.Combiner(), err)
		}
		if !datatype.Equal(back, ty) {
			t.Fatalf("type %d (%v): rebuilt type is not Equal", i, ty.Combiner())
		}
		got := [6]int64{back.Size(), back.LB(), back.UB(), back.TrueLB(), back.TrueUB(), back.Elements()}
		want := [6]int64{ty.Size(), ty.LB(), ty.UB(), ty.TrueLB(), ty.TrueUB(), ty.Elements()}
		if got != want || !slices.Equal(back.TypeMap(2), ty.TypeMap(2)) {
			t.Fatalf("type %d: rebuilt layout %v differs from %v", i, got, want)
		}
	}
}

func TestContentsOfEachConstructor(t *testing.T) {
	i := datatype.Of(datatype.Int)
	v, _ := datatype.HVector(3, 2, -16, i)
	c := v.Contents()
	if c.Combiner != datatype.CombinerHVector || !slices.Equal(c.Ints, []int64{3, 2}) || !slices.Equal(c.Addrs, []int64{-16}) || c.Types[0] != i {
		t.Errorf("hvector contents %+v", c)
	}
	s, _ := datatype.Struct([]int64{1, 0}, []int64{0, 8}, []*datatype.Type{i, v})
	c = s.Contents()
	if !slices.Equal(c.Ints, []int64{2, 1, 0}) || !slices.Equal(c.Addrs, []int64{0, 8}) || len(c.Types) != 2 {
		t.Errorf("struct contents %+v", c)
	}
	d, _ := datatype.Darray(4, 1, []int64{8, 8}, []datatype.Distrib{datatype.DistributeBlock, datatype.DistributeCyclic},
		[]int64{datatype.DefaultDarg, 2}, []int64{2, 2}, datatype.OrderFortran, i)
	c = d.Contents()
	want := []int64{4, 1, 2, 8, 8, int64(datatype.DistributeBlock), int64(datatype.DistributeCyclic), datatype.DefaultDarg, 2, 2, 2, int64(datatype.OrderFortran)}
	if !slices.Equal(c.Ints, want) {
		t.Errorf("darray contents %v, want %v", c.Ints, want)
	}
	// contents are the arguments as given, even for a zero-size result
	z, _ := datatype.Indexed([]int64{0, 0}, []int64{5, -5}, i)
	if c = z.Contents(); !slices.Equal(c.Ints, []int64{2, 0, 0, 5, -5}) || z.Size() != 0 || z.Extent() != 0 {
		t.Errorf("all-zero indexed: contents %v, size %d, extent %d", c.Ints, z.Size(), z.Extent())
	}
}

func TestOverflowIsAnError(t *testing.T) {
	d := datatype.Of(datatype.Double)
	if _, err := datatype.Contiguous(1<<61, d); err == nil {
		t.Error("contiguous(2^61, double) must overflow")
	}
	if _, err := datatype.HVector(3, 1, 1<<62, d); err == nil {
		t.Error("hvector with stride 2^62 must overflow")
	}
	if _, err := datatype.Resized(d, 1<<62, 1<<62); err == nil {
		t.Error("resized ub 2^63 must overflow")
	}
	big, _ := datatype.Contiguous(1<<40, d)
	if _, err := datatype.Vector(1<<22, 1, 2, big); err == nil {
		t.Error("vector of 2^22 x 2^43-byte blocks must overflow")
	}
	for _, bad := range []func() (*datatype.Type, error){
		func() (*datatype.Type, error) { return datatype.Contiguous(-1, d) },
		func() (*datatype.Type, error) { return datatype.Vector(1, -1, 1, d) },
		func() (*datatype.Type, error) { return datatype.Indexed([]int64{1}, []int64{1, 2}, d) },
		func() (*datatype.Type, error) {
			return datatype.Subarray([]int64{4}, []int64{5}, []int64{0}, datatype.OrderC, d)
		},
		func() (*datatype.Type, error) {
			return datatype.Darray(4, 4, []int64{8}, []datatype.Distrib{datatype.DistributeBlock}, []int64{datatype.DefaultDarg}, []int64{4}, datatype.OrderC, d)
		},
		func() (*datatype.Type, error) { return datatype.Struct([]int64{1}, []int64{0}, []*datatype.Type{nil}) },
	} {
		if _, err := bad(); err == nil {
			t.Error("erroneous arguments must be an error")
		}
	}
}
