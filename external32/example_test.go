package external32_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/external32"
)

// Every other double of an array, packed big-endian for a file or a
// machine of another byte order, and unpacked again.
func Example() {
	t, _ := datatype.Vector(3, 1, 2, datatype.Of(datatype.Double))
	c, _ := ddt.Commit(t)
	x := external32.New(c)

	img := make([]byte, 6*8) // six doubles, native (little-endian) order
	for i := range 6 {
		binary.LittleEndian.PutUint64(img[8*i:], math.Float64bits(float64(i)+0.5))
	}
	size, _ := x.PackSize(1)
	packed := make([]byte, size)
	n, err := x.Pack(packed, img, 0, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "bytes")
	fmt.Println(math.Float64frombits(binary.BigEndian.Uint64(packed[0:])),
		math.Float64frombits(binary.BigEndian.Uint64(packed[8:])),
		math.Float64frombits(binary.BigEndian.Uint64(packed[16:])))

	back := make([]byte, len(img))
	if _, err := x.Unpack(back, packed, 0, 1); err != nil {
		panic(err)
	}
	fmt.Println(math.Float64frombits(binary.LittleEndian.Uint64(back[16:])))
	// Output:
	// 24 bytes
	// 0.5 2.5 4.5
	// 2.5
}

// long is 8 bytes in memory on x86-64 but 4 in external32.
func ExamplePackSize() {
	for _, name := range []string{"long", "long_double", "double_int", "wchar"} {
		n, _ := external32.PackSize(datatype.Predefined(name), 10)
		fmt.Println(name, n)
	}
	// Output:
	// long 40
	// long_double 160
	// double_int 120
	// wchar 20
}
