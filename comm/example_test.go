package comm_test

import (
	"encoding/binary"
	"fmt"

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
