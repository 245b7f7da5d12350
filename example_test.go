package ddt_test

import (
	"fmt"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// A column of a 4 x 3 matrix of int32: pack it, see the DAME program the
// type compiled to, and its I/O vector.
func Example() {
	i32 := datatype.Of(datatype.Int)
	col, _ := datatype.Vector(4, 1, 3, i32)
	c, _ := ddt.Commit(col)

	mem := make([]byte, 4*3*4)
	for i := range mem {
		mem[i] = byte(i)
	}
	out := make([]byte, 16)
	n, err := c.Pack(out, mem, 0, 1)
	fmt.Println(n, err, out)
	fmt.Print(c.Program())
	for off, n := range c.Segments(1, 0) {
		fmt.Print(" ", off, ":", n)
	}
	fmt.Println()
	// Output:
	// 16 <nil> [0 1 2 3 12 13 14 15 24 25 26 27 36 37 38 39]
	// EXIT(40, 0)
	// VECTORFINAL(4, 1, 12, 4, 4)
	//   CONTIGFINAL(4)
	// BOTTOM
	//  0:4 12:4 24:4 36:4
}
