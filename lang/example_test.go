package lang_test

import (
	"fmt"

	"github.com/ddtlab/ddt/lang"
)

func ExampleParse() {
	src := []byte(`# first row and first column of a 1000 x 1000 int matrix
row = contiguous(1000, int)
col = vector(999, 1, 1000, int)
struct([1, 1], [0, 4000], [row, col])
`)
	t, err := lang.Parse("matrix.ddt", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("size:", t.Size(), "extent:", t.Extent())
	fmt.Print(lang.Format(t))

	_, err = lang.Parse("bad.ddt", []byte("row = contiguous(1000, int)\ncol = vector(-1, 1, 1000, row)\n"))
	fmt.Println(err)
	// Output:
	// size: 7996 extent: 3996004
	// struct([1, 1], [0, 4000], [contiguous(1000, int), vector(999, 1, 1000, int)])
	// bad.ddt:2:7: vector: negative count -1
}

func ExampleExportC() {
	t, err := lang.Parse("col.ddt", []byte("resized(vector(3, 1, 4, double), 0, 8)"))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := lang.ExportC(t, "col")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(c)
	// Output:
	// /* col: size 24, lb 0, extent 8, true lb 0, true extent 72 (built by ddt) */
	// MPI_Datatype col;
	// {
	//     MPI_Datatype col_t1;
	//     MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &col_t1);
	//     MPI_Type_create_resized(col_t1, 0, 8, &col);
	//     MPI_Type_free(&col_t1);
	// }
	// MPI_Type_commit(&col);
}
