package datatype_test

import (
	"fmt"

	"github.com/ddtlab/ddt/datatype"
)

// A column of a 4x4 matrix of doubles, resized so that consecutive columns
// are one double apart, as in an MPI matrix transpose.
func Example() {
	dbl := datatype.Of(datatype.Double)
	col, err := datatype.Vector(4, 1, 4, dbl)
	if err != nil {
		panic(err)
	}
	col1, err := datatype.Resized(col, 0, 8)
	if err != nil {
		panic(err)
	}
	fmt.Println("size", col1.Size(), "extent", col1.Extent(), "true extent", col1.TrueExtent())
	for b, d := range col1.All(2) {
		fmt.Print(b, "@", d, " ")
	}
	fmt.Println()
	// Output:
	// size 32 extent 8 true extent 104
	// double@0 double@32 double@64 double@96 double@8 double@40 double@72 double@104
}

// Struct pads its extent to the largest alignment of its members, as MPICH
// does on x86-64.
func ExampleStruct() {
	t, _ := datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{datatype.Of(datatype.Double), datatype.Of(datatype.Char)})
	fmt.Println(t.Size(), t.Extent())
	// Output: 9 16
}
