//go:build mpi

package mpi

import (
	"os"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// TestSelfPing measures a send and receive of 80 bytes from a rank to
// itself in Raw and Packed mode: the transport's own cost per operation,
// without a peer (DDT_MPI_LATENCY=1), and the allocations it makes.
func TestSelfPing(t *testing.T) {
	if os.Getenv("DDT_MPI_LATENCY") == "" {
		t.Skip("set DDT_MPI_LATENCY=1")
	}
	bt, _ := ddt.Commit(datatype.Of(datatype.Byte))
	buf := comm.Buffer{Data: make([]byte, 80), Count: 80, Type: bt}
	for _, m := range []Mode{Raw, Packed} {
		c := testComm.WithMode(m)
		me := c.Rank()
		op := func() {
			r, err := c.Irecv(buf, me, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Send(buf, me, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Wait(); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(1000, op)
		best := time.Hour
		for range 300 {
			start := time.Now()
			for range 1000 {
				op()
			}
			best = min(best, time.Since(start)/1000)
		}
		t.Logf("%s: self send+recv of 80 B: %v (best of 300 rounds of 1000), %.0f allocations", m, best, allocs)
	}
}
