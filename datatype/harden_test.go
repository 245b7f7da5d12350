package datatype_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
)

const minI, maxI = math.MinInt64, math.MaxInt64

// mustT returns a function that unwraps a constructor's result or fails the test.
func mustT(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
}

// TestOverflowNamesConstructor checks that every int64 overflow in
// construction is an *ArgError naming the constructor, wrapping
// ErrOverflow, and mentioning the offending argument.
func TestOverflowNamesConstructor(t *testing.T) {
	i := datatype.Of(datatype.Int)
	d := datatype.Of(datatype.Double)
	t0 := mustT(t)(datatype.HIndexedBlock(1, []int64{-4, 4}, i))
	wide := mustT(t)(datatype.Resized(i, 0, 1<<62))
	neg := mustT(t)(datatype.Resized(i, 0, -(1 << 62)))
	cases := []struct {
		name, ctor, arg string
		build           func() (*datatype.Type, error)
	}{
		// the reproducers
		{"hindexed_block MinInt64 displacement", "hindexed_block", "displacement=-9223372036854775808",
			func() (*datatype.Type, error) { return datatype.HIndexedBlock(1, []int64{0, minI}, t0) }},
		{"hvector MinInt64 stride", "hvector", "stride=-9223372036854775808",
			func() (*datatype.Type, error) { return datatype.HVector(2, 1, minI, i) }},
		{"hvector MaxInt64 stride", "hvector", "stride=9223372036854775807",
			func() (*datatype.Type, error) { return datatype.HVector(2, 1, maxI, i) }},
		{"contiguous count*extent", "contiguous", "count=9223372036854775807",
			func() (*datatype.Type, error) { return datatype.Contiguous(maxI, i) }},
		{"contiguous negative extent", "contiguous", "count=3",
			func() (*datatype.Type, error) { return datatype.Contiguous(3, neg) }},
		{"vector stride*extent", "vector", "stride=4611686018427387904",
			func() (*datatype.Type, error) { return datatype.Vector(2, 1, 1<<62, i) }},
		{"vector blocklength*extent", "vector", "blocklength=3",
			func() (*datatype.Type, error) { return datatype.Vector(1, 3, 1, wide) }},
		{"vector size", "vector", "count=4611686018427387904",
			func() (*datatype.Type, error) { return datatype.Vector(1<<62, 1<<2, 0, d) }},
		{"indexed displacement*extent", "indexed", "displacement=-9223372036854775808",
			func() (*datatype.Type, error) { return datatype.Indexed([]int64{1, 1}, []int64{0, minI}, i) }},
		{"indexed displacement+lb", "indexed", "block 1",
			func() (*datatype.Type, error) {
				return datatype.Indexed([]int64{1, 1}, []int64{0, math.MaxInt64 / 4}, i)
			}},
		{"hindexed MinInt64", "hindexed", "displacement=-9223372036854775808",
			func() (*datatype.Type, error) { return datatype.HIndexed([]int64{1, 1}, []int64{0, minI}, t0) }},
		{"hindexed MaxInt64", "hindexed", "displacement=9223372036854775807",
			func() (*datatype.Type, error) { return datatype.HIndexed([]int64{1}, []int64{maxI}, i) }},
		{"hindexed extent", "hindexed", "blocks",
			func() (*datatype.Type, error) {
				return datatype.HIndexed([]int64{1, 1}, []int64{math.MinInt64 / 2, math.MaxInt64/2 + 8}, i)
			}},
		{"indexed_block scaled", "indexed_block", "displacement=4611686018427387904",
			func() (*datatype.Type, error) { return datatype.IndexedBlock(1, []int64{1 << 62}, i) }},
		{"indexed_block zero blocklength", "indexed_block", "displacement=4611686018427387904",
			func() (*datatype.Type, error) { return datatype.IndexedBlock(0, []int64{1 << 62}, i) }},
		{"hindexed_block zero blocklength extent", "hindexed_block", "2 displacements",
			func() (*datatype.Type, error) { return datatype.HIndexedBlock(0, []int64{minI + 8, maxI - 8}, i) }},
		{"struct MinInt64", "struct", "displacement=-9223372036854775808",
			func() (*datatype.Type, error) {
				return datatype.Struct([]int64{1, 1}, []int64{0, minI}, []*datatype.Type{i, t0})
			}},
		{"struct extent", "struct", "blocks",
			func() (*datatype.Type, error) {
				return datatype.Struct([]int64{1, 1}, []int64{minI, maxI - 4}, []*datatype.Type{i, i})
			}},
		{"struct padding", "struct", "alignment=8",
			func() (*datatype.Type, error) {
				return datatype.Struct([]int64{1, 1}, []int64{0, maxI - 1}, []*datatype.Type{d, datatype.Of(datatype.Char)})
			}},
		{"struct elements", "struct", "block 1",
			func() (*datatype.Type, error) {
				big := mustT(t)(datatype.Contiguous(1<<40, datatype.Of(datatype.Char)))
				return datatype.Struct([]int64{1, 1 << 30}, []int64{0, 0}, []*datatype.Type{i, big})
			}},
		{"resized lb+extent", "resized", "lb=9223372036854775807",
			func() (*datatype.Type, error) { return datatype.Resized(i, maxI, 1) }},
		{"resized MinInt64", "resized", "extent=-9223372036854775808",
			func() (*datatype.Type, error) { return datatype.Resized(i, -1, minI) }},
		{"subarray extent", "subarray", "sizes=[4294967296 4294967296]",
			func() (*datatype.Type, error) {
				return datatype.Subarray([]int64{1 << 32, 1 << 32}, []int64{1, 1}, []int64{0, 0}, datatype.OrderC, i)
			}},
		{"subarray starts", "subarray", "starts=[",
			func() (*datatype.Type, error) {
				return datatype.Subarray([]int64{1 << 31, 1 << 31}, []int64{1, 1}, []int64{1<<31 - 1, 0}, datatype.OrderC, d)
			}},
		{"darray extent", "darray", "gsize=2147483648",
			func() (*datatype.Type, error) {
				return datatype.Darray(1, 0, []int64{1 << 31, 1 << 31}, []datatype.Distrib{datatype.DistributeNone, datatype.DistributeNone},
					[]int64{datatype.DefaultDarg, datatype.DefaultDarg}, []int64{1, 1}, datatype.OrderC, d)
			}},
		{"darray cyclic", "darray", "gsize",
			func() (*datatype.Type, error) {
				return datatype.Darray(2, 1, []int64{1 << 62}, []datatype.Distrib{datatype.DistributeCyclic},
					[]int64{1 << 61}, []int64{2}, datatype.OrderC, d)
			}},
	}
	for _, c := range cases {
		ty, err := c.build()
		if err == nil {
			t.Errorf("%s: built %v (extent %d, true extent %d), want an overflow error", c.name, ty, ty.Extent(), ty.TrueExtent())
			continue
		}
		var ae *datatype.ArgError
		if !errors.As(err, &ae) || ae.Constructor != c.ctor || !errors.Is(err, datatype.ErrOverflow) {
			t.Errorf("%s: error %q (%T) is not an overflow *ArgError of %s", c.name, err, err, c.ctor)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.ctor+": ") || !strings.Contains(err.Error(), "overflows int64") || !strings.Contains(err.Error(), c.arg) {
			t.Errorf("%s: error %q does not name %s, the overflow and %q", c.name, err, c.ctor, c.arg)
		}
	}
}

// TestBoundsNeverWrap checks, on types built at the int64 edges, that
// the bounds of every type that builds have differences that fit in int64
// and that its data lies inside its data bounds.
func TestBoundsNeverWrap(t *testing.T) {
	i := datatype.Of(datatype.Int)
	// displacements that nearly overflow, but do not
	for _, d := range []int64{minI, minI + 4, maxI - 4, maxI - 3, -1 << 62, 1 << 62} {
		for _, build := range []func() (*datatype.Type, error){
			func() (*datatype.Type, error) { return datatype.HIndexed([]int64{1}, []int64{d}, i) },
			func() (*datatype.Type, error) { return datatype.HIndexedBlock(1, []int64{0, d}, i) },
			func() (*datatype.Type, error) { return datatype.HIndexedBlock(0, []int64{0, d}, i) },
			func() (*datatype.Type, error) { return datatype.HVector(2, 1, d, i) },
			func() (*datatype.Type, error) { return datatype.Struct([]int64{1}, []int64{d}, []*datatype.Type{i}) },
			func() (*datatype.Type, error) { return datatype.Resized(i, d, 4) },
			func() (*datatype.Type, error) { return datatype.Resized(i, 0, d) },
		} {
			ty, err := build()
			if err != nil {
				if !errors.Is(err, datatype.ErrOverflow) {
					t.Errorf("displacement %d: error %v is not an overflow", d, err)
				}
				continue
			}
			checkLayout(t, ty)
		}
	}
}

// checkLayout asserts the invariants the engines' single bounds check
// rests on: bound differences fit in int64, data bounds inside the true
// bounds, and (for small types) every element inside the data bounds.
func checkLayout(t *testing.T, ty *datatype.Type) {
	t.Helper()
	lb, ub := ty.LB(), ty.UB()
	if (ub-lb >= 0) != (ub >= lb) || ty.Extent() != ub-lb {
		t.Errorf("%v: extent of [%d, %d) wraps", ty, lb, ub)
	}
	tlb, tub := ty.TrueLB(), ty.TrueUB()
	if (tub-tlb >= 0) != (tub >= tlb) {
		t.Errorf("%v: true extent of [%d, %d) wraps", ty, tlb, tub)
	}
	lo, hi := ty.DataBounds()
	if lo > hi || (ty.Size() == 0) != (lo == hi) {
		t.Errorf("%v: data bounds [%d, %d) for size %d", ty, lo, hi, ty.Size())
	}
	if ty.Size() > 0 && (lo < tlb || hi > tub) {
		t.Errorf("%v: data bounds [%d, %d) outside the true bounds [%d, %d)", ty, lo, hi, tlb, tub)
	}
	if ty.Elements() > 1<<16 {
		return
	}
	var size, n int64
	ty.Walk(1, func(b datatype.Basic, d int64) bool {
		if d < lo || d > hi-b.Size() {
			t.Errorf("%v: element %s at %d outside the data bounds [%d, %d)", ty, b, d, lo, hi)
			return false
		}
		size += b.Size()
		n++
		return true
	})
	if size != ty.Size() || n != ty.Elements() {
		t.Errorf("%v: walk gives %d bytes in %d elements, want %d in %d", ty, size, n, ty.Size(), ty.Elements())
	}
}

// TestZeroSizeHugeCounts checks that members without data repeated 2^62
// times cost nothing to walk: the hang.
func TestZeroSizeHugeCounts(t *testing.T) {
	i := datatype.Of(datatype.Int)
	z := mustT(t)(datatype.Contiguous(0, i))
	const huge = 1 << 62
	var types []*datatype.Type
	s := mustT(t)(datatype.Struct([]int64{1, huge}, []int64{0, 0}, []*datatype.Type{i, z}))
	types = append(types, s)
	v := mustT(t)(datatype.Vector(huge, 3, 1, z))
	types = append(types, mustT(t)(datatype.Struct([]int64{1, huge, 1}, []int64{0, 0, 4}, []*datatype.Type{i, v, i})))
	zi := mustT(t)(datatype.Indexed([]int64{huge, 0}, []int64{0, 1}, z))
	types = append(types, mustT(t)(datatype.Struct([]int64{huge, 2}, []int64{0, 8}, []*datatype.Type{zi, i})))
	types = append(types, mustT(t)(datatype.Contiguous(3, types[1])))
	sub := mustT(t)(datatype.Subarray([]int64{4}, []int64{2}, []int64{1}, datatype.OrderC, z))
	types = append(types, mustT(t)(datatype.Struct([]int64{huge, 1}, []int64{0, 0}, []*datatype.Type{sub, i})))
	for _, ty := range types {
		start := time.Now()
		checkLayout(t, ty)
		m := ty.TypeMap(2)
		blocks := 0
		ty.Blocks(2, func(off, n int64) bool { blocks++; return true })
		if int64(len(m)) != 2*ty.Elements() || int64(blocks) != ty.NumBlocks(2) {
			t.Errorf("%v: %d map entries and %d blocks, want %d and %d", ty, len(m), blocks, 2*ty.Elements(), ty.NumBlocks(2))
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%v: walking took %v", ty, d)
		}
	}
}

// TestDepthLimit checks that every constructor refuses to build a type
// deeper than MaxDepth, with an error naming it, and builds one at the limit.
func TestDepthLimit(t *testing.T) {
	i := datatype.Of(datatype.Int)
	deep := i
	for range datatype.MaxDepth - 1 {
		deep = mustT(t)(datatype.Contiguous(1, deep))
	}
	if deep.Depth() != datatype.MaxDepth-1 {
		t.Fatalf("depth %d", deep.Depth())
	}
	atLimit := mustT(t)(datatype.Dup(deep))
	if atLimit.Depth() != datatype.MaxDepth {
		t.Fatalf("depth %d", atLimit.Depth())
	}
	checkLayout(t, atLimit)
	one := []datatype.Distrib{datatype.DistributeBlock}
	for _, c := range []struct {
		ctor  string
		build func(old *datatype.Type) (*datatype.Type, error)
	}{
		{"contiguous", func(o *datatype.Type) (*datatype.Type, error) { return datatype.Contiguous(1, o) }},
		{"vector", func(o *datatype.Type) (*datatype.Type, error) { return datatype.Vector(1, 1, 1, o) }},
		{"hvector", func(o *datatype.Type) (*datatype.Type, error) { return datatype.HVector(1, 1, 1, o) }},
		{"indexed", func(o *datatype.Type) (*datatype.Type, error) { return datatype.Indexed([]int64{1}, []int64{0}, o) }},
		{"hindexed", func(o *datatype.Type) (*datatype.Type, error) { return datatype.HIndexed([]int64{1}, []int64{0}, o) }},
		{"indexed_block", func(o *datatype.Type) (*datatype.Type, error) { return datatype.IndexedBlock(1, []int64{0}, o) }},
		{"hindexed_block", func(o *datatype.Type) (*datatype.Type, error) { return datatype.HIndexedBlock(1, []int64{0}, o) }},
		{"struct", func(o *datatype.Type) (*datatype.Type, error) {
			return datatype.Struct([]int64{1, 1}, []int64{0, 0}, []*datatype.Type{i, o})
		}},
		{"subarray", func(o *datatype.Type) (*datatype.Type, error) {
			return datatype.Subarray([]int64{2}, []int64{1}, []int64{0}, datatype.OrderC, o)
		}},
		{"darray", func(o *datatype.Type) (*datatype.Type, error) {
			return datatype.Darray(1, 0, []int64{2}, one, []int64{datatype.DefaultDarg}, []int64{1}, datatype.OrderC, o)
		}},
		{"resized", func(o *datatype.Type) (*datatype.Type, error) { return datatype.Resized(o, 0, 4) }},
		{"dup", datatype.Dup},
	} {
		ty, err := c.build(atLimit)
		var ae *datatype.ArgError
		if err == nil || !errors.As(err, &ae) || ae.Constructor != c.ctor || !errors.Is(err, datatype.ErrTooDeep) ||
			!strings.Contains(err.Error(), "MaxDepth") {
			t.Errorf("%s over a type of depth MaxDepth: %v, %v; want a depth error naming %s", c.ctor, ty, err, c.ctor)
		}
	}
	// the limit counts the simpler types a subarray stands for
	if _, err := datatype.Subarray([]int64{2, 2, 2}, []int64{1, 1, 1}, []int64{0, 0, 0}, datatype.OrderC, deep); !errors.Is(err, datatype.ErrTooDeep) {
		t.Errorf("subarray of 3 dimensions over depth MaxDepth-1: %v, want ErrTooDeep", err)
	}
}

// TestEqualSharedSubtypes checks that Equal costs O(nodes) on DAGs whose
// expanded trees are exponentially large.
func TestEqualSharedSubtypes(t *testing.T) {
	build := func(last int64) *datatype.Type {
		ty := datatype.Of(datatype.Char)
		for range 55 { // 2^55 leaves when expanded
			r := mustT(t)(datatype.Resized(ty, 0, 1))
			ty = mustT(t)(datatype.Struct([]int64{1, 1}, []int64{0, 0}, []*datatype.Type{r, r}))
			ty = mustT(t)(datatype.Resized(ty, 0, 1))
		}
		return mustT(t)(datatype.HVector(2, 1, last, ty))
	}
	a, b, c := build(3), build(3), build(4)
	start := time.Now()
	if !datatype.Equal(a, b) || datatype.Equal(a, c) {
		t.Error("Equal of shared-subtype chains")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Equal took %v", d)
	}
}

// TestArrayConstructorsEdgeSweep calls subarray and darray (one dimension,
// every distribution and order) with every combination of edge values for
// their integer arguments: no panic, errors name the constructor, and
// types that build have consistent bounds.
func TestArrayConstructorsEdgeSweep(t *testing.T) {
	vals := []int64{0, 1, 2, 3, -1, 1 << 31, 1 << 62, maxI, minI}
	if testing.Short() {
		vals = vals[:6]
	}
	olds := []*datatype.Type{datatype.Of(datatype.Char), mustT(t)(datatype.Resized(datatype.Of(datatype.Int), 0, -8))}
	check := func(c string, ty *datatype.Type, err error) {
		t.Helper()
		if err != nil {
			var ae *datatype.ArgError
			if !errors.As(err, &ae) || ae.Constructor != c {
				t.Fatalf("%s: error %v does not name it", c, err)
			}
			return
		}
		checkLayout(t, ty)
	}
	for _, old := range olds {
		for _, a := range vals {
			for _, b := range vals {
				for _, s := range vals {
					for _, o := range []datatype.Order{datatype.OrderC, datatype.OrderFortran} {
						ty, err := datatype.Subarray([]int64{a, 2}, []int64{b, 1}, []int64{s, 1}, o, old)
						check("subarray", ty, err)
					}
				}
			}
		}
		for _, size := range vals[:5] {
			for _, rank := range vals[:5] {
				for _, g := range vals {
					for _, darg := range vals {
						for _, p := range vals {
							for _, d := range []datatype.Distrib{datatype.DistributeBlock, datatype.DistributeCyclic, datatype.DistributeNone} {
								ty, err := datatype.Darray(size, rank, []int64{g, 3}, []datatype.Distrib{d, datatype.DistributeCyclic},
									[]int64{darg, datatype.DefaultDarg}, []int64{p, 1}, datatype.OrderC, old)
								check("darray", ty, err)
							}
						}
					}
				}
			}
		}
	}
	// a block distribution whose darg*psize overflows covers any gsize
	ty := mustT(t)(datatype.Darray(2, 1, []int64{10}, []datatype.Distrib{datatype.DistributeBlock}, []int64{1 << 62}, []int64{2}, datatype.OrderC, olds[0]))
	if ty.Size() != 0 || ty.Extent() != 10 {
		t.Errorf("darray block 2^62 rank 1: size %d extent %d, want 0 and 10", ty.Size(), ty.Extent())
	}
}

// TestConstructorsEdgeSweep calls every list and vector constructor with
// every combination of edge values for two blocks over old types with
// negative, huge and zero extents and sizes: no panic, errors name the
// constructor, and types that build have consistent bounds.
func TestConstructorsEdgeSweep(t *testing.T) {
	vals := []int64{0, 1, 2, -1, 1 << 31, 1 << 62, -1 << 62, maxI, minI}
	if testing.Short() {
		vals = vals[:5]
	}
	i := datatype.Of(datatype.Int)
	olds := []*datatype.Type{
		datatype.Of(datatype.Char), datatype.TwoInt,
		mustT(t)(datatype.Resized(i, 0, -8)),
		mustT(t)(datatype.Resized(i, -1<<62, 1<<62)),
		mustT(t)(datatype.Contiguous(0, i)),
		mustT(t)(datatype.HIndexedBlock(0, []int64{1 << 40}, i)),
	}
	check := func(c string, ty *datatype.Type, err error) {
		t.Helper()
		if err != nil {
			var ae *datatype.ArgError
			if !errors.As(err, &ae) || ae.Constructor != c {
				t.Fatalf("%s: error %v does not name it", c, err)
			}
			return
		}
		checkLayout(t, ty)
	}
	for _, old := range olds {
		for _, a := range vals {
			ty, err := datatype.Contiguous(a, old)
			check("contiguous", ty, err)
			for _, b := range vals {
				ty, err := datatype.Resized(old, a, b)
				check("resized", ty, err)
				for _, c := range vals {
					ty, err := datatype.Vector(a, b, c, old)
					check("vector", ty, err)
					ty, err = datatype.HVector(a, b, c, old)
					check("hvector", ty, err)
					ty, err = datatype.IndexedBlock(a, []int64{b, c}, old)
					check("indexed_block", ty, err)
					ty, err = datatype.HIndexedBlock(a, []int64{b, c}, old)
					check("hindexed_block", ty, err)
					for _, d := range vals {
						ty, err := datatype.Indexed([]int64{a, b}, []int64{c, d}, old)
						check("indexed", ty, err)
						ty, err = datatype.HIndexed([]int64{a, b}, []int64{c, d}, old)
						check("hindexed", ty, err)
						ty, err = datatype.Struct([]int64{a, b}, []int64{c, d}, []*datatype.Type{old, olds[(int(a)&3)%len(olds)]})
						check("struct", ty, err)
					}
				}
			}
		}
	}
}

func TestNodes(t *testing.T) {
	i := datatype.Of(datatype.Int)
	v := mustT(t)(datatype.Vector(2, 1, 2, i))
	s := mustT(t)(datatype.Struct([]int64{1, 1, 1}, []int64{0, 16, 32}, []*datatype.Type{v, v, i}))
	if d, e := s.Nodes(1 << 20); d != 3 || e != 6 {
		t.Errorf("Nodes = %d, %d; want 3 distinct, 6 expanded", d, e)
	}
	ty := i
	for range 50 { // size 4*2^50
		ty = mustT(t)(datatype.Struct([]int64{1, 1}, []int64{0, 0}, []*datatype.Type{ty, mustT(t)(datatype.Dup(ty))}))
		ty = mustT(t)(datatype.Resized(ty, 0, 4))
	}
	if d, e := ty.Nodes(1 << 40); d != 151 || e != 1<<40 {
		t.Errorf("Nodes of a shared chain = %d, %d; want 151 and the limit", d, e)
	}
}
