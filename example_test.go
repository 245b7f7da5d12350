package ddt_test

import (
	"bytes"
	"fmt"
	"io"
	"net"

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

// A Packer produces the packed bytes in pieces of any size (it is an
// io.Reader and an io.WriterTo); an Unpacker consumes them (it is an
// io.Writer and an io.ReaderFrom). ReadFrom reads one message from a
// stream and leaves what follows in it. (io.Copy into an Unpacker from a
// source that implements io.WriterTo, such as bytes.Buffer, unpacks the
// message too but reports io.ErrShortWrite if the source holds more.)
func ExampleCommitted_NewPacker() {
	i32 := datatype.Of(datatype.Int)
	col, _ := datatype.Vector(4, 1, 3, i32) // a column of a 4 x 3 int matrix
	c, _ := ddt.Commit(col)

	src := make([]byte, 48)
	for i := range src {
		src[i] = byte(i)
	}
	p, _ := c.NewPacker(src, 0, 1)
	piece := make([]byte, 6)
	for {
		n, err := p.Read(piece)
		if err == io.EOF {
			break
		}
		fmt.Println(piece[:n])
	}

	// the same message through a stream that carries more after it
	var stream bytes.Buffer
	p2, _ := c.NewPacker(src, 0, 1)
	io.Copy(&stream, p2)
	stream.WriteString("next message")

	dst := make([]byte, 48)
	u, _ := c.NewUnpacker(dst, 0, 1)
	n, err := u.ReadFrom(&stream)
	fmt.Println(n, err, u.Done(), dst[36:40], stream.String())
	// Output:
	// [0 1 2 3 12 13]
	// [14 15 24 25 26 27]
	// [36 37 38 39]
	// 16 <nil> true [36 37 38 39] next message
}

// Pack and Unpack take (destination, source, origin, count), origin
// locating instance 0 in the memory image. A type with a negative lower
// bound needs an origin inside the image.
func ExampleCommitted_Unpack() {
	i32 := datatype.Of(datatype.Int)
	// two ints, 4 bytes before and 4 bytes after the origin
	t, _ := datatype.HIndexedBlock(1, []int64{-4, 4}, i32)
	c, _ := ddt.Commit(t)

	image := []byte{1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2}
	packed := make([]byte, 8)
	c.Pack(packed, image, 4, 1)
	fmt.Println(packed)

	back := make([]byte, 12)
	n, err := c.Unpack(back, packed, 4, 1)
	fmt.Println(n, err, back)
	// Output:
	// [1 1 1 1 2 2 2 2]
	// 8 <nil> [1 1 1 1 0 0 0 0 2 2 2 2]
}

// Segments lists the memory runs a message is made of, in packed order,
// for writev-style I/O (net.Buffers) without packing.
func ExampleCommitted_Segments() {
	dbl := datatype.Of(datatype.Double)
	// rows 0 and 2 of a matrix of 2 doubles a row; the second instance
	// starts one extent (3 rows) later, so two runs touch and merge
	rows, _ := datatype.Vector(2, 2, 4, dbl)
	c, _ := ddt.Commit(rows)
	image := make([]byte, int(rows.Extent())+48)
	var bufs net.Buffers
	for off, n := range c.Segments(2, 0) {
		fmt.Print(off, ":", n, " ")
		bufs = append(bufs, image[off:off+n])
	}
	fmt.Println(len(bufs))
	// Output:
	// 0:16 32:32 80:16 3
}

// Transpack moves data from one layout straight into another of the same
// type signature, with no packed buffer in between: here a matrix column
// into a contiguous array.
func ExampleTranspack() {
	i32 := datatype.Of(datatype.Int)
	col, _ := datatype.Vector(3, 1, 3, i32) // a column of a 3 x 3 int matrix
	arr, _ := datatype.Contiguous(3, i32)
	ccol, _ := ddt.Commit(col)
	carr, _ := ddt.Commit(arr)

	matrix := make([]byte, 36)
	for i := range matrix {
		matrix[i] = byte(i)
	}
	out := make([]byte, 12)
	n, err := ddt.Transpack(carr, out, 0, 1, ccol, matrix, 4, 1) // column 1
	fmt.Println(n, err, out)
	// Output:
	// 12 <nil> [4 5 6 7 16 17 18 19 28 29 30 31]
}
