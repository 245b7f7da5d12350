//go:build mpi

// Command pingpong is the ping-pong of seed 000 §II on real MPI: the first
// row followed by the first column of an n×n int matrix, described as
// INDEXED_BLOCK (all 2n−1 displacements), INDEXED (the row as one block,
// the column element by element) and STRUCT_VEC (a struct of the row block
// and a vector for the column), each sent
//
//   - raw: handed to MPI as a native datatype, nothing else;
//   - native: the same through the checked transport (signature header);
//   - raw and native again on the description normalized by package
//     optimal (optimal.Normalize: same type map, least-cost tree; exact
//     reconstruction up to 1024 elements, above that the rewrite rules and
//     list reconstruction commit runs, package dame/opt);
//   - packed: packed by ddt and sent as bytes (after the header, or inside
//     it when small).
//
// It prints µs per round trip and MB/s (one-way payload / half round trip).
//
//	go build -tags mpi -o /tmp/pingpong ./examples/pingpong
//	mpirun -np 2 /tmp/pingpong -n 100,1000,2000
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/mpi"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/optimal"
)

func main() {
	ns := flag.String("n", "100,1000,2000", "matrix orders, comma-separated")
	iters := flag.Int("iters", 1000, "round trips per measurement")
	flag.Parse()
	c, err := mpi.Init(mpi.Options{})
	if err != nil {
		log.Fatal(err)
	}
	err = run(c, *ns, *iters)
	if ferr := c.Finalize(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// layouts returns the three descriptions of row 0 + column 0 of an n×n
// int matrix, and each normalized by package optimal.
func layouts(n int64) (names []string, types []*datatype.Type, err error) {
	it := datatype.Of(datatype.Int)
	var displs []int64
	for j := range n {
		displs = append(displs, j)
	}
	for i := int64(1); i < n; i++ {
		displs = append(displs, i*n)
	}
	ib, err := datatype.IndexedBlock(1, displs, it)
	if err != nil {
		return nil, nil, err
	}
	bl := []int64{n}
	ds := []int64{0}
	for i := int64(1); i < n; i++ {
		bl = append(bl, 1)
		ds = append(ds, i*n)
	}
	ix, err := datatype.Indexed(bl, ds, it)
	if err != nil {
		return nil, nil, err
	}
	col, err := datatype.Vector(n-1, 1, n, it)
	if err != nil {
		return nil, nil, err
	}
	sv, err := datatype.Struct([]int64{n, 1}, []int64{0, 4 * n}, []*datatype.Type{it, col})
	if err != nil {
		return nil, nil, err
	}
	names = []string{"INDEXED_BLOCK", "INDEXED", "STRUCT_VEC"}
	types = []*datatype.Type{ib, ix, sv}
	for i := range 3 {
		nt, before, after, err := optimal.Normalize(types[i], optimal.NormalizeOptions{})
		if err != nil {
			return nil, nil, err
		}
		names = append(names, fmt.Sprintf("%s normalized (cost %d → %d)", names[i], before, after))
		types = append(types, nt)
	}
	return names, types, nil
}

func run(c *mpi.Comm, ns string, iters int) error {
	if c.Size() != 2 {
		return fmt.Errorf("run with 2 ranks, not %d", c.Size())
	}
	if c.Rank() == 0 {
		fmt.Printf("%s, %d round trips each\n\n", mpi.Library, iters)
		fmt.Println("| n | type | mode | µs/round trip | MB/s |")
		fmt.Println("|---:|---|---|---:|---:|")
	}
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 2 {
			return fmt.Errorf("bad matrix order %q", f)
		}
		names, types, err := layouts(n)
		if err != nil {
			return err
		}
		data := make([]byte, 4*n*n)
		for k := range data {
			data[k] = byte(k)
		}
		for i, t := range types {
			ct, err := ddt.Commit(t)
			if err != nil {
				return err
			}
			modes := []struct {
				name string
				c    *mpi.Comm
			}{
				{"raw", c.WithMode(mpi.Raw)},
				{"native", c.WithMode(mpi.Native)},
				{"packed", c.WithMode(mpi.Packed).WithInlineLimit(-1)},
				{"packed-inline", c.WithMode(mpi.Packed).WithInlineLimit(mpi.MaxInline)},
			}
			for _, m := range modes {
				if i >= 3 && m.name != "native" && m.name != "raw" {
					continue // packing does not depend on the description
				}
				us, err := pingpong(m.c, comm.Buffer{Data: data, Count: 1, Type: ct}, iters)
				if err != nil {
					return fmt.Errorf("n %d, %s, %s: %w", n, names[i], m.name, err)
				}
				if c.Rank() == 0 {
					bytes := float64(t.Size())
					fmt.Printf("| %d | %s | %s | %.2f | %.0f |\n", n, names[i], m.name, us, bytes/(us/2))
				}
			}
		}
	}
	return nil
}

// pingpong returns the mean µs per round trip of iters round trips of buf
// between ranks 0 and 1, after a warm-up.
func pingpong(c *mpi.Comm, buf comm.Buffer, iters int) (float64, error) {
	one := func() error {
		if c.Rank() == 0 {
			if err := c.Send(buf, 1, 0); err != nil {
				return err
			}
			_, err := c.Recv(buf, 1, 0)
			return err
		}
		if _, err := c.Recv(buf, 0, 0); err != nil {
			return err
		}
		return c.Send(buf, 0, 0)
	}
	for range max(iters/10, 5) {
		if err := one(); err != nil {
			return 0, err
		}
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	start := time.Now()
	for range iters {
		if err := one(); err != nil {
			return 0, err
		}
	}
	el := time.Since(start)
	return float64(el.Microseconds()) / float64(iters), nil
}
