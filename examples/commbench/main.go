//go:build mpi

// Command commbench is seed 003's communication experiment (Fig. 10) on
// this machine: a ping-pong between 2 MPI ranks of every DDTBench layout,
// moved four ways:
//
//   - mpi-datatype: the layout handed to MPI as a native derived datatype
//     (package comm/mpi in Raw mode: MPI_Send/MPI_Recv, no header);
//   - ddt-pack: packed by ddt (the committed type's engine), sent as
//     contiguous bytes (Raw mode), unpacked by ddt;
//   - comm-packed: the comm/mpi transport's own Packed mode (ddt packing,
//     signature header, checked receive; layouts of long runs go directly,
//     zero-copy, above the inline limit);
//   - comm-staged: Packed mode with zero-copy off (WithDirect(-1)): every
//     message packed by ddt (large ones pipelined in packets);
//     comm-whole: comm-staged without pipelining (every message packed
//     whole before it is sent); comm-direct1: every data
//     message zero-copy (WithDirect(1)); comm-native: Native mode with
//     zero-copy off; comm-native-direct: Native mode, default zero-copy
//     (the last five only when named in -methods);
//   - manual: the layout's hand-written Go loops (the C original's
//     manual_loop), contiguous bytes in between;
//   - bytes: the packed bytes only, no packing, through comm/mpi (Raw);
//   - c-bytes: the same bytes by a plain C loop of MPI_Send/MPI_Recv in
//     this process: what comm/mpi adds over MPI is bytes − c-bytes.
//
// Rank 0 packs and sends the layout's send operation, rank 1 receives into
// its recv operation's layout and answers the same way back. It prints
// tab-separated R lines (library, layout, size, bytes, method, µs per round
// trip: the median of -rounds batches) that ../commbench/plot turns into a table
// and an SVG. With -emit-c FILE it writes instead the C program that
// measures the same layouts with MPI alone (MPI datatypes, MPI_Pack +
// bytes, bytes), the baseline that shows the transport's own overhead.
//
//	go build -tags mpi -o /tmp/commbench ./examples/commbench
//	mpirun -np 2 /tmp/commbench -config small,medium > go.tsv
//	/tmp/commbench -emit-c /tmp/commbench.c && mpicc -O2 -o /tmp/commbench_c /tmp/commbench.c
//	mpirun -np 2 /tmp/commbench_c > c.tsv
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/mpi"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/ddtbench"
)

func main() {
	configs := flag.String("config", "small,medium", "DDTBench configurations: small, medium, large")
	filter := flag.String("filter", "", "only layouts whose name starts with this")
	budget := flag.Int64("budget", 64<<20, "bytes moved per batch (sets the round trips per batch)")
	emitC := flag.String("emit-c", "", "write the C baseline program to this file and exit")
	methodList := flag.String("methods", strings.Join(defaultMethods, ","), "methods to measure (also comm-staged, comm-whole, comm-direct1, comm-native, comm-native-direct)")
	rounds := flag.Int("rounds", 5, "interleaved batches per method (the median is printed)")
	flag.Parse()
	pairs, err := layouts(strings.Split(*configs, ","), *filter)
	if err != nil {
		log.Fatal(err)
	}
	if *emitC != "" {
		if err := writeC(*emitC, pairs, *budget); err != nil {
			log.Fatal(err)
		}
		return
	}
	c, err := mpi.Init(mpi.Options{})
	if err != nil {
		log.Fatal(err)
	}
	err = run(c, pairs, *budget, strings.Split(*methodList, ","), max(*rounds, 1))
	if ferr := c.Finalize(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// pair is one DDTBench layout: what rank 0 sends and rank 1 receives.
type pair struct {
	send, recv *ddtbench.Op
}

func layouts(configs []string, filter string) ([]pair, error) {
	ops, err := ddtbench.Load(configs...)
	if err != nil {
		return nil, err
	}
	var ps []pair
	for _, o := range ops {
		if o.Op != "send" || !strings.HasPrefix(o.Case, filter) {
			continue
		}
		i := slices.IndexFunc(ops, func(r *ddtbench.Op) bool {
			return r.Op == "recv" && r.Case == o.Case && r.Config == o.Config
		})
		if i < 0 {
			return nil, fmt.Errorf("%s %s: no recv operation", o.Case, o.Config)
		}
		ps = append(ps, pair{o, ops[i]})
	}
	return ps, nil
}

// iters is the number of round trips of one batch: about budget bytes,
// between 5 and 500.
func iters(packed, budget int64) int {
	return int(min(max(budget/max(packed, 1), 5), 500))
}

// side is one rank's end of a layout: its arena and operation.
type side struct {
	op     *ddtbench.Op
	ct     *ddt.Committed
	arena  []byte
	packed []byte
	manP   func(src, dst []byte)
	manU   func(src, dst []byte)
}

func newSide(op *ddtbench.Op) (*side, error) {
	ct, err := ddt.Commit(op.Type)
	if err != nil {
		return nil, err
	}
	s := &side{op: op, ct: ct, arena: make([]byte, op.ArenaBytes), packed: make([]byte, op.Packed)}
	op.Fill(s.arena)
	s.manP, s.manU = op.Manual()
	return s, nil
}

// defaultMethods are the methods measured unless -methods names others.
var defaultMethods = []string{"mpi-datatype", "ddt-pack", "comm-packed", "manual", "bytes", "c-bytes"}

func run(c *mpi.Comm, pairs []pair, budget int64, methods []string, rounds int) error {
	if c.Size() != 2 {
		return fmt.Errorf("run with 2 ranks, not %d", c.Size())
	}
	raw := c.WithMode(mpi.Raw)
	packedMode := c.WithMode(mpi.Packed)
	comms := map[string]struct {
		c   *mpi.Comm
		tag int
	}{
		"comm-staged":        {packedMode.WithDirect(-1), 6},
		"comm-direct1":       {packedMode.WithDirect(1), 7},
		"comm-native":        {c.WithMode(mpi.Native).WithDirect(-1), 8},
		"comm-native-direct": {c.WithMode(mpi.Native), 9},
		"comm-whole":         {packedMode.WithDirect(-1).WithPipeline(-1, 0), 10},
	}
	byteT, err := ddt.Commit(datatype.Of(datatype.Byte))
	if err != nil {
		return err
	}
	me, peer := c.Rank(), 1-c.Rank()
	for _, p := range pairs {
		op := p.send
		if me == 1 {
			op = p.recv
		}
		s, err := newSide(op)
		if err != nil {
			return err
		}
		typed := comm.Buffer{Data: s.arena, Origin: op.Base, Count: op.Count, Type: s.ct}
		bytesBuf := comm.Buffer{Data: s.packed, Count: int64(len(s.packed)), Type: byteT}
		// one leg: send what this rank holds, or receive into it
		legs := map[string]struct{ send, recv func() error }{
			"mpi-datatype": {
				func() error { return raw.Send(typed, peer, 1) },
				func() error { _, err := raw.Recv(typed, peer, 1); return err },
			},
			"ddt-pack": {
				func() error {
					if _, err := s.ct.Pack(s.packed, s.arena, op.Base, op.Count); err != nil {
						return err
					}
					return raw.Send(bytesBuf, peer, 2)
				},
				func() error {
					if _, err := raw.Recv(bytesBuf, peer, 2); err != nil {
						return err
					}
					_, err := s.ct.Unpack(s.arena, s.packed, op.Base, op.Count)
					return err
				},
			},
			"comm-packed": {
				func() error { return packedMode.Send(typed, peer, 3) },
				func() error { _, err := packedMode.Recv(typed, peer, 3); return err },
			},
			"bytes": {
				func() error { return raw.Send(bytesBuf, peer, 4) },
				func() error { _, err := raw.Recv(bytesBuf, peer, 4); return err },
			},
		}
		for name, x := range comms {
			cm, tag := x.c, x.tag
			legs[name] = struct{ send, recv func() error }{
				func() error { return cm.Send(typed, peer, tag) },
				func() error { _, err := cm.Recv(typed, peer, tag); return err },
			}
		}
		sp, su := p.send.Manual()
		rp, ru := p.recv.Manual()
		if sp != nil && su != nil && rp != nil && ru != nil { // both ranks agree
			legs["manual"] = struct{ send, recv func() error }{
				func() error { s.manP(s.arena, s.packed); return raw.Send(bytesBuf, peer, 5) },
				func() error {
					if _, err := raw.Recv(bytesBuf, peer, 5); err != nil {
						return err
					}
					s.manU(s.packed, s.arena)
					return nil
				},
			}
		}
		n := iters(op.Packed, budget)
		var active []string
		for _, m := range methods {
			if _, ok := legs[m]; ok || m == "c-bytes" {
				active = append(active, m)
			}
		}
		batch := func(m string, k int) (time.Duration, error) {
			if m == "c-bytes" {
				return cBytes(op.Packed, k, me), nil
			}
			l := legs[m]
			start := time.Now()
			for range k {
				var err error
				if me == 0 {
					if err = l.send(); err == nil {
						err = l.recv()
					}
				} else if err = l.recv(); err == nil {
					err = l.send()
				}
				if err != nil {
					return 0, fmt.Errorf("%s %s %s: %w", op.Case, op.Config, m, err)
				}
			}
			return time.Since(start), nil
		}
		// warm up every method, then interleave their batches so that the
		// machine's load drifts over all of them alike
		samples := map[string][]float64{}
		for round := -1; round < rounds; round++ {
			for _, m := range active {
				if err := c.Barrier(); err != nil {
					return err
				}
				k := n
				if round < 0 {
					k = max(n/10, 2)
				}
				d, err := batch(m, k)
				if err != nil {
					return err
				}
				if round >= 0 {
					samples[m] = append(samples[m], float64(d.Nanoseconds())/1e3/float64(k))
				}
			}
		}
		if me == 0 {
			for _, m := range active {
				slices.Sort(samples[m])
				fmt.Printf("R\t%s\t%s\t%s\t%d\t%s\t%.3f\n", mpi.Library, op.Case, op.Config, op.Packed, m, samples[m][len(samples[m])/2])
			}
		}
	}
	return nil
}
