//go:build mpi

package mpi_test

import (
	"fmt"
	"log"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/mpi"
	"github.com/ddtlab/ddt/datatype"
)

// Rank 0 sends the first column of a 4x4 matrix of doubles; rank 1
// receives it as four contiguous doubles (the same type signature). Build
// with -tags mpi and run under mpirun -np 2. (Not run by go test: MPI is
// initialized once per process, by the test's TestMain.)
func Example() {
	dbl := datatype.Of(datatype.Double)
	colT, _ := datatype.Vector(4, 1, 4, dbl)
	rowT, _ := datatype.Contiguous(4, dbl)
	col, _ := ddt.Commit(colT)
	row, _ := ddt.Commit(rowT)

	c, err := mpi.Init(mpi.Options{Mode: mpi.Packed})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := c.Finalize(); err != nil {
			log.Fatal(err) // also reports messages never received
		}
	}()
	switch c.Rank() {
	case 0:
		m := make([]byte, 8*16)
		err = c.Send(comm.Buffer{Data: m, Count: 1, Type: col}, 1, 0)
	case 1:
		var st comm.Status
		st, err = c.Recv(comm.Buffer{Data: make([]byte, 32), Count: 1, Type: row}, 0, comm.AnyTag)
		fmt.Println("from", st.Source, "elements", st.Elements())
	}
	if err != nil {
		log.Fatal(err)
	}
}
