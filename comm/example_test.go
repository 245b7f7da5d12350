package comm_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// Rank 0 sends the first column of a 3x3 matrix of int32; rank 1 receives
// it as three contiguous ints (the same signature).
func Example() {
	i32 := datatype.Of(datatype.Int)
	colT, _ := datatype.Vector(3, 1, 3, i32)
	rowT, _ := datatype.Contiguous(3, i32)
	col, _ := ddt.Commit(colT)
	row, _ := ddt.Commit(rowT)
	w, _ := comm.NewWorld(2, comm.Options{})
	err := w.Run(func(c *comm.Comm) error {
		if c.Rank() == 0 {
			m := make([]byte, 36)
			for k := range 9 {
				binary.LittleEndian.PutUint32(m[4*k:], uint32(k))
			}
			return c.Send(comm.Buffer{Data: m, Count: 1, Type: col}, 1, 0)
		}
		got := make([]byte, 12)
		st, err := c.Recv(comm.Buffer{Data: got, Count: 1, Type: row}, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		fmt.Println("from", st.Source, "elements", st.Elements(),
			binary.LittleEndian.Uint32(got), binary.LittleEndian.Uint32(got[4:]), binary.LittleEndian.Uint32(got[8:]))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: from 0 elements 3 0 3 6
}

// Four ranks compute a dot product: each holds every fourth element of
// two vectors of 16, and Allreduce sums the partial products on every
// rank.
func ExampleComm_Allreduce() {
	f64 := datatype.Of(datatype.Double)
	one, _ := ddt.Commit(f64)
	w, _ := comm.NewWorld(4, comm.Options{})
	err := w.Run(func(c *comm.Comm) error {
		// x_i = i, y_i = 1 for i = rank, rank+4, ..., < 16
		partial := 0.0
		for i := c.Rank(); i < 16; i += 4 {
			partial += float64(i) * 1
		}
		send := comm.Buffer{Data: binary.NativeEndian.AppendUint64(nil, math.Float64bits(partial)), Count: 1, Type: one}
		recv := comm.Buffer{Data: make([]byte, 8), Count: 1, Type: one}
		if err := c.Allreduce(send, recv, comm.Sum); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println("dot product:", math.Float64frombits(binary.NativeEndian.Uint64(recv.Data)))
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: dot product: 120
}

// A user-defined, non-commutative operation: the product of 2x2 matrices,
// applied in rank order. Rank r contributes the shear [[1, 1], [0, 1]] on
// even ranks and [[1, 0], [1, 1]] on odd ones; the ordered product of
// three is [[2, 3], [1, 2]], the other orders give other matrices.
func ExampleNewSliceOp() {
	matmul, err := comm.NewSliceOp("matmul2x2", false, func(in, inout [][4]float64) {
		for i := range inout {
			a, b := in[i], inout[i] // inout = in · inout
			inout[i] = [4]float64{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m4, _ := datatype.Contiguous(4, datatype.Of(datatype.Double))
	mat, _ := ddt.Commit(m4)
	w, _ := comm.NewWorld(3, comm.Options{})
	err = w.Run(func(c *comm.Comm) error {
		m := [4]float64{1, 1, 0, 1}
		if c.Rank()%2 == 1 {
			m = [4]float64{1, 0, 1, 1}
		}
		var send []byte
		for _, v := range m {
			send = binary.NativeEndian.AppendUint64(send, math.Float64bits(v))
		}
		recv := make([]byte, 32)
		err := c.Reduce(comm.Buffer{Data: send, Count: 1, Type: mat}, comm.Buffer{Data: recv, Count: 1, Type: mat}, matmul, 0)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			var p [4]float64
			for i := range p {
				p[i] = math.Float64frombits(binary.NativeEndian.Uint64(recv[8*i:]))
			}
			fmt.Println(p)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: [2 3 1 2]
}
