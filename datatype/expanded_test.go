package datatype

import "testing"

// TestExpandedNodes checks the construction-time expanded node count
// against Nodes' walk on random types.
func TestExpandedNodes(t *testing.T) {
	for _, ty := range expandedSamples(t) {
		const limit = 1 << 40
		_, e := ty.Nodes(limit)
		if got := min(ty.ExpandedNodes(), limit); got != e {
			t.Errorf("%v: ExpandedNodes %d, Nodes walk %d", ty, got, e)
		}
	}
}

func expandedSamples(t *testing.T) []*Type {
	t.Helper()
	must := func(x *Type, err error) *Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	d, in := Of(Double), Of(Int)
	v := must(Vector(3, 2, 4, d))
	s := must(Struct([]int64{1, 2, 1}, []int64{0, 64, 200}, []*Type{v, in, v}))
	out := []*Type{d, DoubleInt, v, s,
		must(Dup(s)),
		must(Resized(s, -8, 512)),
		must(Subarray([]int64{8, 9, 10}, []int64{2, 3, 4}, []int64{1, 2, 3}, OrderFortran, s)),
		must(Darray(6, 4, []int64{12, 10}, []Distrib{DistributeCyclic, DistributeBlock}, []int64{2, DefaultDarg}, []int64{3, 2}, OrderC, v)),
		must(Indexed([]int64{1, 2}, []int64{0, 9}, s)),
		must(HIndexedBlock(2, []int64{0, 900}, v)),
	}
	x := s
	for range 50 { // t_i = struct of two t_{i-1}: 2^50 expanded nodes
		x = must(Struct([]int64{1, 1}, []int64{0, 0}, []*Type{x, x}))
		out = append(out, x)
	}
	return out
}
