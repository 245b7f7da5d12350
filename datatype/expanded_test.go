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

// TestClone2 checks that clone2 copies: changing the copies leaves the
// originals as they were, and the other way round.
func TestClone2(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000} {
		a, b := make([]int64, n), make([]int64, n)
		for i := range n {
			a[i], b[i] = int64(i), int64(-i)
		}
		ca, cb := clone2(a, b)
		if len(ca) != n || len(cb) != n {
			t.Fatalf("n=%d: lengths %d, %d", n, len(ca), len(cb))
		}
		for i := range n {
			if ca[i] != a[i] || cb[i] != b[i] {
				t.Fatalf("n=%d: copies differ at %d", n, i)
			}
			ca[i], cb[i] = 7, 7
			if a[i] != int64(i) || b[i] != int64(-i) {
				t.Fatalf("n=%d: writing the copies changed the originals", n)
			}
		}
		_ = append(ca, 1) // capacity ends at the list: must not write into cb
		for i := range n {
			if cb[i] != 7 {
				t.Fatalf("n=%d: appending to the first copy wrote into the second", n)
			}
		}
	}
}
