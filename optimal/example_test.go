package optimal_test

import (
	"fmt"
	"strings"

	"github.com/ddtlab/ddt/optimal"
)

// The row and the column of a 10x10 int matrix (seed 000, Fig. 2): the
// optimal tree is a struc of a contiguous row and a strided column.
func Example() {
	var b strings.Builder
	const n = 10
	for k := 0; k < n; k++ {
		fmt.Fprintf(&b, "int %d\n", 4*k)
	}
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "int %d\n", 4*n*k)
	}
	m, err := optimal.ParseTypeMap(strings.NewReader(b.String()))
	if err != nil {
		panic(err)
	}
	tree, cost, err := optimal.Reconstruct(m, optimal.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println("cost:", cost)
	fmt.Println(tree)
	back, _ := optimal.Flatten(tree)
	fmt.Println(back.Equal(m))
	// Output:
	// cost: 18
	// struc(2, [0, 40], [vec(10, 4, leaf(int)), vec(9, 40, leaf(int))])
	// true
}

func ExampleReconstruct_shift() {
	m := optimal.TypeMap{{"int", 3}, {"int", 5}, {"int", 7}, {"int", 9}, {"int", 11}}
	tree, cost, _ := optimal.Reconstruct(m, optimal.DefaultOptions())
	fmt.Println(cost, tree)
	// Output:
	// 8 idxbuc(1, 2, [3], [5], leaf(int))
}
