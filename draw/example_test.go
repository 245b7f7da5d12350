package draw_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ddtlab/ddt/draw"
	"github.com/ddtlab/ddt/lang"
)

// A column of a 4 x 4 matrix of ints, drawn for a terminal: rows wrap at
// the vector's stride, so the column shows as a column, and the numbers
// under each row give the order of the packed stream.
func ExampleLayout() {
	t, err := lang.Parse("col.ddt", []byte("vector(4, 1, 4, int)"))
	if err != nil {
		panic(err)
	}
	p, err := draw.Layout(t, draw.Options{Count: 1, CellBytes: draw.Granule(t)})
	if err != nil {
		panic(err)
	}
	p.Text(os.Stdout, "col.ddt")
	// Output:
	// col.ddt
	// size 16  extent 52  lb 0  ub 52  true_lb 0  true_ub 52  count 1  packed 16 B
	// one character = 4 bytes, 16 bytes per row
	// legend: i int  . gap  * mixed  # overlap
	//  0  i...
	//     1
	// 16  i...
	//     2
	// 32  i...
	//     3
	// 48  i
	//     4
	// bounds: lb=0 true_lb=0 ub=52 true_ub=52
	// packed order (4 runs): 1:int[0,4) 2:int[16,20) 3:int[32,36) 4:int[48,52)
}

// An SVG picture of an array of structs, ready to write to a file and open
// in a browser.
func ExamplePicture_SVG() {
	t, err := lang.Parse("s.ddt", []byte("struct([1, 1], [0, 8], [int, double])"))
	if err != nil {
		panic(err)
	}
	p, err := draw.Layout(t, draw.Options{Count: 3})
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := p.SVG(&b, draw.SVGOptions{Title: "3 structs"}); err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(b.String(), "<?xml"), len(p.Runs), p.PackedBytes)
	// Output: true 6 36
}
