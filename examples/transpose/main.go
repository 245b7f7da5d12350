// Command transpose runs the transpose step of a distributed 2-D FFT on
// in-process ranks, or on MPI (build with -tags mpi, launch with mpirun): an N×N matrix of complex128, distributed by rows, is
// transposed with one all-to-all in which the send type cuts each rank's
// rows into column blocks and the receive type writes every block
// transposed, so no rank runs a local transpose loop. It then checks the
// result.
//
//	go run ./examples/transpose -ranks 4 -n 512
//	go build -tags mpi -o transpose ./examples/transpose && mpirun -np 4 ./transpose -n 512
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/examples/internal/runner"
)

func main() {
	ranks := flag.Int("ranks", 4, "number of ranks")
	n := flag.Int64("n", 512, "matrix order (a multiple of ranks)")
	flag.Parse()
	if err := run(*ranks, *n); err != nil {
		log.Fatal(err)
	}
}

func run(ranks int, n int64) error {
	ranks = runner.Ranks(ranks)
	p := int64(ranks)
	if n <= 0 || n%p != 0 {
		return fmt.Errorf("n = %d must be a positive multiple of ranks = %d", n, ranks)
	}
	b := n / p // rows per rank, and the block size
	cplx := datatype.Of(datatype.CDoubleComplex)
	const es = 16
	// send: a b×b block of my rows; consecutive blocks b elements apart
	blk, err := datatype.Vector(b, b, n, cplx)
	if err != nil {
		return err
	}
	sendT, err := datatype.Resized(blk, 0, b*es)
	if err != nil {
		return err
	}
	// receive: the block's row r goes to column r of my rows
	col, err := datatype.Vector(b, 1, n, cplx)
	if err != nil {
		return err
	}
	cols, err := datatype.HVector(b, 1, es, col)
	if err != nil {
		return err
	}
	recvT, err := datatype.Resized(cols, 0, b*es)
	if err != nil {
		return err
	}
	send, err := ddt.Commit(sendT)
	if err != nil {
		return err
	}
	recv, err := ddt.Commit(recvT)
	if err != nil {
		return err
	}
	val := func(i, j int64) uint64 { return uint64(i*n + j) } // real part of A[i][j]
	var el time.Duration                                      // of the exchange on rank 0, without MPI's init and finalize
	w, err := runner.Run(ranks, func(c comm.Communicator) error {
		r := int64(c.Rank())
		a := make([]byte, es*b*n)
		for i := range b {
			for j := range n {
				binary.LittleEndian.PutUint64(a[es*(i*n+j):], val(r*b+i, j))
			}
		}
		t := make([]byte, es*b*n)
		if err := c.Barrier(); err != nil {
			return err
		}
		start := time.Now()
		if err := c.Alltoall(comm.Buffer{Data: a, Count: 1, Type: send}, comm.Buffer{Data: t, Count: 1, Type: recv}, 0); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			el = time.Since(start)
		}
		for i := range b {
			for j := range n {
				if got, want := binary.LittleEndian.Uint64(t[es*(i*n+j):]), val(j, r*b+i); got != want {
					return fmt.Errorf("transposed (%d,%d) = %d, want %d", r*b+i, j, got, want)
				}
			}
		}
		return nil
	})
	if err != nil || !w.Leader {
		return err
	}
	fmt.Printf("transpose: %dx%d complex128 on %d ranks: verified, %.1f MB in %v\n",
		n, n, ranks, float64(es*n*n)/1e6, el.Round(time.Millisecond))
	return nil
}
