package sig_test

import (
	"fmt"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

func Example() {
	in, db := datatype.Of(datatype.Int), datatype.Of(datatype.Double)

	// Two layouts of the signature (double, int): equal signatures.
	st, _ := datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{db, in})
	fmt.Println(sig.Of(st) == sig.Of(datatype.DoubleInt))

	// 10^12 instances, hashed in microseconds.
	s, _ := sig.OfCount(datatype.DoubleInt, 1_000_000_000_000)
	fmt.Println(s.N, len(sig.Format(s)))

	// A message of 10 ints into a receive of an int and 50 doubles.
	recv, _ := datatype.Struct([]int64{1, 50}, []int64{0, 8}, []*datatype.Type{in, db})
	msg, _ := sig.OfCount(in, 10)
	fmt.Println(sig.Match(msg, recv, 1))

	// The same receive for an int and 10 doubles: a prefix, so it matches.
	short, _ := datatype.Struct([]int64{1, 10}, []int64{0, 8}, []*datatype.Type{in, db})
	msg = sig.Of(short)
	fmt.Println(sig.Match(msg, recv, 1))
	// Output:
	// true
	// 2000000000000 16
	// sig: type signature mismatch at element 1: sent int, the receive expects double
	// <nil>
}
