package sig

import (
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// nested is a five-level type with structs and vectors, 2·(1+3·8)·… elements.
func nested(tb testing.TB) *datatype.Type {
	in, db := datatype.Of(datatype.Int), datatype.Of(datatype.Double)
	t, err := datatype.Struct([]int64{1, 3}, []int64{0, 8}, []*datatype.Type{in, db})
	for i := 0; err == nil && i < 4; i++ {
		if t, err = datatype.Vector(8, 2, 3, t); err == nil {
			t, err = datatype.Struct([]int64{1, 2}, []int64{0, 1 << 20}, []*datatype.Type{datatype.DoubleInt, t})
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

const trillion = 1_000_000_000_000

// BenchmarkOfCount hashes 10^12 instances of a nested type (about 4·10^17
// elements): microseconds, logarithmic in the count.
func BenchmarkOfCount(b *testing.B) {
	t := nested(b)
	Of(t)
	for b.Loop() {
		if _, err := OfCount(t, trillion); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrefix hashes a prefix in the middle of 10^12 instances with
// the type's Tree built once.
func BenchmarkPrefix(b *testing.B) {
	t := nested(b)
	k := Of(t).N*trillion/2 + 12345
	tr := NewTree(t)
	for b.Loop() {
		if _, err := tr.Prefix(trillion, k); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOfFresh builds and hashes a new type each time.
func BenchmarkOfFresh(b *testing.B) {
	in := datatype.Of(datatype.Int)
	for b.Loop() {
		t, err := datatype.Vector(trillion, 3, 4, in)
		if err != nil {
			b.Fatal(err)
		}
		Of(t)
	}
}

// BenchmarkMatch checks 10^12 doubles against a vector receive.
func BenchmarkMatch(b *testing.B) {
	db := datatype.Of(datatype.Double)
	s, _ := OfCount(db, trillion)
	v, err := datatype.Vector(trillion/1000, 1000, 1001, db)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := Match(s, v, 1); err != nil {
			b.Fatal(err)
		}
	}
}
