// Command halo3d runs a 3-D halo exchange on in-process ranks, or on MPI
// (build with -tags mpi and launch with mpirun): each rank
// owns an n×n×n block of a global array of float64 with one layer of ghost
// cells, and exchanges its six faces with its neighbours on a periodic
// process grid, describing every face as a subarray type. It then checks
// every ghost cell against the global array.
//
//	go run ./examples/halo3d -ranks 8 -n 32
//	go build -tags mpi -o halo3d ./examples/halo3d && mpirun -np 8 ./halo3d -n 32
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/examples/internal/runner"
)

func main() {
	ranks := flag.Int("ranks", 8, "number of ranks (a cube grid is formed from its factors)")
	n := flag.Int64("n", 32, "interior cells per dimension per rank")
	iters := flag.Int("iters", 10, "number of exchanges")
	flag.Parse()
	if err := run(*ranks, *n, *iters); err != nil {
		log.Fatal(err)
	}
}

// grid splits ranks into a 3-D process grid, as square as possible.
func grid(ranks int) [3]int {
	g := [3]int{1, 1, 1}
	r := ranks
	for f := 2; r > 1; {
		if r%f != 0 {
			f++
			continue
		}
		r /= f
		i := 0
		for k := 1; k < 3; k++ {
			if g[k] < g[i] {
				i = k
			}
		}
		g[i] *= f
	}
	return g
}

func run(ranks int, n int64, iters int) error {
	if n <= 0 {
		return fmt.Errorf("n = %d must be positive", n)
	}
	ranks = runner.Ranks(ranks)
	g := grid(ranks)
	m := n + 2 // with ghost layers
	dbl := datatype.Of(datatype.Double)
	sizes := []int64{m, m, m}
	// face[d][s]: the interior plane to send (s=0: low side, 1: high side),
	// ghost[d][s]: the ghost plane to receive into.
	var face, ghost [3][2]*ddt.Committed
	for d := range 3 {
		for s := range 2 {
			sub := []int64{n, n, n}
			sub[d] = 1
			st := []int64{1, 1, 1}
			gs := []int64{1, 1, 1}
			if s == 0 {
				st[d], gs[d] = 1, 0
			} else {
				st[d], gs[d] = n, n+1
			}
			ft, err := datatype.Subarray(sizes, sub, st, datatype.OrderC, dbl)
			if err != nil {
				return err
			}
			gt, err := datatype.Subarray(sizes, sub, gs, datatype.OrderC, dbl)
			if err != nil {
				return err
			}
			if face[d][s], err = ddt.Commit(ft); err != nil {
				return err
			}
			if ghost[d][s], err = ddt.Commit(gt); err != nil {
				return err
			}
		}
	}
	global := func(c [3]int64) float64 { // value of a global cell, periodic
		N := [3]int64{int64(g[0]) * n, int64(g[1]) * n, int64(g[2]) * n}
		for d := range 3 {
			c[d] = (c[d]%N[d] + N[d]) % N[d]
		}
		return float64(c[0]*1_000_000 + c[1]*1_000 + c[2])
	}
	var el time.Duration // of the exchanges on rank 0, without MPI's init and finalize
	w, err := runner.Run(ranks, func(c comm.Communicator) error {
		r := c.Rank()
		coord := [3]int{r / (g[1] * g[2]), r / g[2] % g[1], r % g[2]}
		rankOf := func(k [3]int) int {
			for d := range 3 {
				k[d] = (k[d] + g[d]) % g[d]
			}
			return (k[0]*g[1]+k[1])*g[2] + k[2]
		}
		buf := make([]byte, 8*m*m*m)
		at := func(i, j, k int64) []byte { return buf[8*((i*m+j)*m+k):] }
		for i := int64(1); i <= n; i++ {
			for j := int64(1); j <= n; j++ {
				for k := int64(1); k <= n; k++ {
					v := global([3]int64{int64(coord[0])*n + i - 1, int64(coord[1])*n + j - 1, int64(coord[2])*n + k - 1})
					binary.LittleEndian.PutUint64(at(i, j, k), math.Float64bits(v))
				}
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		start := time.Now()
		for range iters {
			for d := range 3 {
				lo, hi := coord, coord
				lo[d]--
				hi[d]++
				// send low face down, receive the high ghost from above; and back
				if _, err := c.Sendrecv(comm.Buffer{Data: buf, Count: 1, Type: face[d][0]}, rankOf(lo), d,
					comm.Buffer{Data: buf, Count: 1, Type: ghost[d][1]}, rankOf(hi), d); err != nil {
					return err
				}
				if _, err := c.Sendrecv(comm.Buffer{Data: buf, Count: 1, Type: face[d][1]}, rankOf(hi), 3+d,
					comm.Buffer{Data: buf, Count: 1, Type: ghost[d][0]}, rankOf(lo), 3+d); err != nil {
					return err
				}
			}
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			el = time.Since(start)
		}
		// check the six ghost faces (edges and corners are not exchanged)
		for i := int64(0); i < m; i++ {
			for j := int64(0); j < m; j++ {
				for k := int64(0); k < m; k++ {
					outside := 0
					for _, x := range []int64{i, j, k} {
						if x == 0 || x == m-1 {
							outside++
						}
					}
					if outside != 1 {
						continue
					}
					want := global([3]int64{int64(coord[0])*n + i - 1, int64(coord[1])*n + j - 1, int64(coord[2])*n + k - 1})
					if got := math.Float64frombits(binary.LittleEndian.Uint64(at(i, j, k))); got != want {
						return fmt.Errorf("ghost cell (%d,%d,%d) = %v, want %v", i, j, k, got, want)
					}
				}
			}
		}
		return nil
	})
	if err != nil || !w.Leader {
		return err
	}
	faces := 6 * n * n * 8 * int64(ranks) * int64(iters)
	fmt.Printf("halo3d: %d ranks on a %dx%dx%d grid, %d^3 cells each, %d exchanges: ghost cells verified, %.1f MB moved in %v (%.0f MB/s)\n",
		ranks, g[0], g[1], g[2], n, iters, float64(faces)/1e6, el.Round(time.Millisecond), float64(faces)/1e6/el.Seconds())
	return nil
}
