package datatype

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestVectorSmallMatchesChecked: vector's unchecked arithmetic for small
// arguments (vectorSmall) sets the same layout as the checked one, for
// random vectors and hvectors around its thresholds, of old types with
// negative extents and bounds near its limits among them; where it
// declines, the checked path runs.
func TestVectorSmallMatchesChecked(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 5))
	edge := []int64{0, 1, 2, 3, 7, 1<<29 - 1, 1 << 29, 1<<29 + 1, 1 << 40}
	pick := func() int64 {
		if r.IntN(3) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Int64N(1000)
	}
	dbl := Of(Double)
	olds := []*Type{dbl, Of(Char), Of(Int), FloatInt, DoubleInt}
	for _, a := range [][2]int64{{0, -8}, {16, -24}, {-4, 12}, {1<<58 - 8, 8}, {1 << 58, 8}, {-(1 << 58), 8}, {0, 1<<29 - 1}, {0, 1 << 29}, {0, -(1 << 29)}} {
		o, err := Resized(dbl, a[0], a[1])
		if err != nil {
			t.Fatal(err)
		}
		olds = append(olds, o)
	}
	v, _ := Vector(3, 2, -5, Of(Short))
	olds = append(olds, v)
	small, checked := 0, 0
	for i := range 200000 {
		c := CombinerVector
		if r.IntN(2) == 0 {
			c = CombinerHVector
		}
		count, bl, stride := 1+pick(), pick(), pick()
		if r.IntN(2) == 0 {
			stride = -stride
		}
		old := olds[r.IntN(len(olds))]
		var a, b Type
		a.count, b.count = count, count
		if !a.vectorSmall(c, count, bl, stride, old) {
			continue
		}
		small++
		if err := b.vectorChecked(c, count, bl, stride, old); err != nil {
			t.Fatalf("case %d: %v %d %d %d: vectorSmall took it, the checked path fails: %v", i, c, count, bl, stride, err)
		}
		checked++
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("case %d: %v %d %d %d of %v:\nsmall   %+v\nchecked %+v", i, c, count, bl, stride, old, a, b)
		}
	}
	if small < 50000 {
		t.Fatalf("only %d of 200000 cases took vectorSmall", small)
	}
	t.Logf("%d cases compared", checked)
}
