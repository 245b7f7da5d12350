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
// without a peer (DDT_MPI_LATENCY=1), and the allocations it makes. The
// nonblocking variant posts the receive first (Irecv, Send, Wait); the
// blocking one (Packed only) sends, which MPI does at once for a small
// message in its header, and then receives. Each is a subtest
// (raw-nonblocking, packed-nonblocking, packed-blocking), so that one can
// be profiled alone (-test.run 'TestSelfPing/packed-blocking').
func TestSelfPing(t *testing.T) {
	if os.Getenv("DDT_MPI_LATENCY") == "" {
		t.Skip("set DDT_MPI_LATENCY=1")
	}
	bt, _ := ddt.Commit(datatype.Of(datatype.Byte))
	buf := comm.Buffer{Data: make([]byte, 80), Count: 80, Type: bt}
	rbuf := comm.Buffer{Data: make([]byte, 80), Count: 80, Type: bt} // MPI may copy a send to self late
	for _, m := range []Mode{Raw, Packed} {
		c := testComm.WithMode(m)
		me := c.Rank()
		ops := map[string]func(){
			"nonblocking": func() {
				r, err := c.Irecv(rbuf, me, 1)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Send(buf, me, 1); err != nil {
					t.Fatal(err)
				}
				if _, err := r.Wait(); err != nil {
					t.Fatal(err)
				}
			},
			"blocking": func() {
				if err := c.Send(buf, me, 1); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Recv(rbuf, me, 1); err != nil {
					t.Fatal(err)
				}
			},
		}
		for _, name := range []string{"nonblocking", "blocking"} {
			if m == Raw && name == "blocking" {
				continue // MPI may wait for the receive to complete a send to self
			}
			op := ops[name]
			t.Run(m.String()+"-"+name, func(*testing.T) {
				allocs := testing.AllocsPerRun(1000, op)
				best := time.Hour
				for range 300 {
					start := time.Now()
					for range 1000 {
						op()
					}
					best = min(best, time.Since(start)/1000)
				}
				t.Logf("%s %s: self send+recv of 80 B: %v (best of 300 rounds of 1000), %.0f allocations", m, name, best, allocs)
			})
		}
	}
}

// TestSmallNoAllocs checks that a ping-pong of 80-byte messages with the
// blocking Send and Recv of Packed mode allocates nothing per operation
// on ranks 0 and 1 (pooled records and staging buffers, signatures from
// the cache, the message unpacked from the header buffer it arrived in).
func TestSmallNoAllocs(t *testing.T) {
	if testComm.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	bt, _ := ddt.Commit(datatype.Of(datatype.Byte))
	buf := comm.Buffer{Data: make([]byte, 80), Count: 80, Type: bt}
	c := testComm.WithMode(Packed)
	var err error
	allocs := 0.0
	if r := c.Rank(); r < 2 {
		allocs = testing.AllocsPerRun(200, func() {
			if err != nil {
				return
			}
			if r == 0 {
				if err = c.Send(buf, 1, 3); err == nil {
					_, err = c.Recv(buf, 1, 3)
				}
			} else if _, err = c.Recv(buf, 0, 3); err == nil {
				err = c.Send(buf, 0, 3)
			}
		})
	}
	if berr := testComm.Barrier(); berr != nil {
		t.Fatal(berr)
	}
	if err != nil {
		t.Fatalf("rank %d: %v", c.Rank(), err)
	}
	if allocs != 0 {
		t.Errorf("rank %d: %.2f allocations per round trip, want 0", c.Rank(), allocs)
	}
}
