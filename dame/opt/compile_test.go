package opt_test

import (
	"fmt"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

// The transpose of seed 003 Fig. 2 and Fig. 7: a blockindexed type of
// columns; the optimizer turns the constant-stride blockindexed into a vector.
func ExampleCompile() {
	i32 := datatype.Of(datatype.Int)
	c := must(datatype.HVector(4, 1, 12, i32))
	t := must(datatype.HIndexedBlock(1, []int64{0, 4, 8}, c))
	fmt.Print(opt.Compile(t))
	// Output:
	// EXIT(48, 0)
	// VECTOR1(3, 1, 4, 16, 40)
	//   VECTORFINAL(4, 1, 12, 4, 4)
	//     CONTIGFINAL(4)
	// BOTTOM
}
