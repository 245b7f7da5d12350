//go:build mpi

package mpi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// putSmall writes the small integer v as a value of b.
func putSmall(b datatype.Basic, p []byte, v int64) {
	ne := binary.NativeEndian
	switch b {
	case datatype.Float:
		ne.PutUint32(p, math.Float32bits(float32(v)))
	case datatype.Double:
		ne.PutUint64(p, math.Float64bits(float64(v)))
	case datatype.CFloatComplex:
		ne.PutUint32(p, math.Float32bits(float32(v)))
		ne.PutUint32(p[4:], math.Float32bits(float32(1-v)))
	case datatype.CDoubleComplex:
		ne.PutUint64(p, math.Float64bits(float64(v)))
		ne.PutUint64(p[8:], math.Float64bits(float64(1-v)))
	case datatype.LongDouble:
		putLongDouble(p, v)
	case datatype.CLongDoubleComplex:
		putLongDouble(p, v)
		putLongDouble(p[16:], 1-v)
	default:
		for k := range b.Size() {
			p[k] = byte(uint64(v) >> (8 * k))
		}
	}
}

// putLongDouble writes v as an x87 80-bit float in 16 bytes.
func putLongDouble(p []byte, v int64) {
	clear(p[:16])
	if v == 0 {
		return
	}
	var se uint16
	if v < 0 {
		se, v = 0x8000, -v
	}
	m, e := uint64(v), 63
	for m&(1<<63) == 0 {
		m <<= 1
		e--
	}
	binary.LittleEndian.PutUint64(p, m)
	binary.LittleEndian.PutUint16(p[8:], se|uint16(16383+e))
}

// TestReductionsNativeMatchDDT reduces every basic type with every
// predefined operation defined on it, through MPI (the world
// communicator) and through ddt (a communicator made by Split, which MPI
// never reduces on), and compares the results.
func TestReductionsNativeMatchDDT(t *testing.T) {
	c := testComm
	sub, err := c.Split(0, c.Rank())
	if err != nil {
		t.Fatal(err)
	}
	ops := []*comm.Op{comm.Sum, comm.Prod, comm.Min, comm.Max, comm.Land, comm.Lor, comm.Lxor, comm.Band, comm.Bor, comm.Bxor}
	for b := range datatype.NumBasic {
		bt := datatype.Basic(b)
		// three elements of b, every other one of a vector
		vt, err := datatype.Vector(3, 1, 2, datatype.Of(bt))
		if err != nil {
			t.Fatal(err)
		}
		ct, err := ddt.Commit(vt)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if !op.Defined(bt) {
				continue
			}
			size := bt.Size()
			send := comm.Buffer{Data: make([]byte, 5*size), Count: 1, Type: ct}
			for i := range 3 {
				v := int64((c.Rank()+i)%3 - 1)
				if op == comm.Band || op == comm.Bor || op == comm.Bxor {
					v = int64(c.Rank()*37 + i*11)
				}
				if bt == datatype.CBool {
					v = int64((c.Rank() + i) % 2) // C bools are 0 or 1
				}
				putSmall(bt, send.Data[int64(2*i)*size:], v)
			}
			before := c.w.nativeReductions
			viaMPI := comm.Buffer{Data: make([]byte, 5*size), Count: 1, Type: ct}
			if err := c.Allreduce(send, viaMPI, op); err != nil {
				t.Fatalf("%s on %s through MPI: %v", op, bt, err)
			}
			if want := before + b2i(trusted(op, bt)); c.w.nativeReductions != want {
				t.Errorf("%s on %s: %d reductions by MPI, want %d", op, bt, c.w.nativeReductions-before, want-before)
			}
			before = c.w.nativeReductions
			viaDDT := comm.Buffer{Data: make([]byte, 5*size), Count: 1, Type: ct}
			if err := sub.Allreduce(send, viaDDT, op); err != nil {
				t.Fatalf("%s on %s through ddt: %v", op, bt, err)
			}
			if c.w.nativeReductions != before {
				t.Errorf("%s on %s: MPI reduced on a split communicator", op, bt)
			}
			for _, x := range []comm.Buffer{viaMPI, viaDDT} {
				maskPadding(vt, x.Data)
			}
			if !bytes.Equal(viaMPI.Data, viaDDT.Data) {
				t.Errorf("%s on %s: MPI gives % x, ddt % x", op, bt, viaMPI.Data, viaDDT.Data)
			}
		}
	}
	// what MPI cannot do goes through ddt on the world communicator too
	before := c.w.nativeReductions
	mixed, _ := ddt.Commit(must(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Double)})))
	mb := comm.Buffer{Data: make([]byte, 16), Count: 1, Type: mixed}
	if err := c.Allreduce(mb, comm.Buffer{Data: make([]byte, 16), Count: 1, Type: mixed}, comm.Sum); err != nil {
		t.Fatal(err)
	}
	if c.w.nativeReductions != before {
		t.Errorf("MPI reduced a struct of an int and a double")
	}
	// MINLOC and MAXLOC on every pair type, two pairs per instance of a
	// vector, values with ties
	for _, pt := range pairTypes {
		vt := must(datatype.Vector(2, 1, 2, pt))
		ct, _ := ddt.Commit(vt)
		ext := pt.Extent()
		var vb datatype.Basic
		var idx int64
		pt.Walk(1, func(b datatype.Basic, d int64) bool {
			if d == 0 {
				vb = b
			} else {
				idx = d
			}
			return true
		})
		send := comm.Buffer{Data: make([]byte, 3*ext), Count: 1, Type: ct}
		for i := range 2 {
			at := int64(2*i) * ext
			putSmall(vb, send.Data[at:], int64((c.Rank()+i)%2))
			binary.NativeEndian.PutUint32(send.Data[at+idx:], uint32(c.Size()-c.Rank()))
		}
		for _, op := range []*comm.Op{comm.Minloc, comm.Maxloc} {
			before := c.w.nativeReductions
			viaMPI := comm.Buffer{Data: make([]byte, 3*ext), Count: 1, Type: ct}
			if err := c.Allreduce(send, viaMPI, op); err != nil {
				t.Fatalf("%s on %s through MPI: %v", op, pt, err)
			}
			if c.w.nativeReductions != before+1 {
				t.Errorf("%s on %s: MPI did not reduce", op, pt)
			}
			viaDDT := comm.Buffer{Data: make([]byte, 3*ext), Count: 1, Type: ct}
			if err := sub.Allreduce(send, viaDDT, op); err != nil {
				t.Fatalf("%s on %s through ddt: %v", op, pt, err)
			}
			for _, x := range []comm.Buffer{viaMPI, viaDDT} {
				maskPadding(vt, x.Data)
			}
			if !bytes.Equal(viaMPI.Data, viaDDT.Data) {
				t.Errorf("%s on %s: MPI gives % x, ddt % x", op, pt, viaMPI.Data, viaDDT.Data)
			}
		}
	}
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// TestUntrustedMinMax: MIN and MAX on unsigned integers, which MPI
// libraries get wrong, are reduced by ddt and are right.
func TestUntrustedMinMax(t *testing.T) {
	c := testComm
	ul, _ := ddt.Commit(datatype.Of(datatype.UnsignedLong))
	send := comm.Buffer{Data: make([]byte, 8), Count: 1, Type: ul}
	if c.Rank() == 0 {
		binary.NativeEndian.PutUint64(send.Data, math.MaxUint64)
	}
	for _, op := range []*comm.Op{comm.Min, comm.Max} {
		out := comm.Buffer{Data: make([]byte, 8), Count: 1, Type: ul}
		if err := c.Allreduce(send, out, op); err != nil {
			t.Fatal(err)
		}
		want := uint64(0)
		if op == comm.Max || c.Size() == 1 {
			want = math.MaxUint64
		}
		if got := binary.NativeEndian.Uint64(out.Data); got != want {
			t.Errorf("%s of unsigned long: %#x, want %#x", op, got, want)
		}
	}
}

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

func maskPadding(t *datatype.Type, buf []byte) {
	t.Walk(1, func(e datatype.Basic, d int64) bool {
		switch e {
		case datatype.LongDouble:
			clear(buf[d+10 : d+16])
		case datatype.CLongDoubleComplex:
			clear(buf[d+10 : d+16])
			clear(buf[d+26 : d+32])
		}
		return true
	})
}

// TestReduceLatency prints the time of an Allreduce (MPI_SUM) of n doubles
// in C, through this package on the world communicator (MPI reduces) and
// on a communicator of all ranks made by Split (ddt reduces over
// point-to-point), measured alternately in one run (DDT_MPI_LATENCY=1).
func TestReduceLatency(t *testing.T) {
	if os.Getenv("DDT_MPI_LATENCY") == "" || testComm.Size() < 2 {
		t.Skip("set DDT_MPI_LATENCY=1 and run with 2 or more ranks")
	}
	c := testComm
	sub, err := c.Split(0, c.Rank())
	if err != nil {
		t.Fatal(err)
	}
	const iters, rounds = 100, 21
	for _, n := range []int{1, 10, 1000} {
		// every other double of a vector: ddt packs, whoever reduces
		vt, err := datatype.Vector(int64(n), 1, 2, datatype.Of(datatype.Double))
		if err != nil {
			t.Fatal(err)
		}
		ct, _ := ddt.Commit(vt)
		send := comm.Buffer{Data: make([]byte, 16*n), Count: 1, Type: ct}
		recv := comm.Buffer{Data: make([]byte, 16*n), Count: 1, Type: ct}
		res := map[string][]float64{}
		for range rounds {
			d, err := c.CAllreduce(n, iters)
			if err != nil {
				t.Fatal(err)
			}
			res["C"] = append(res["C"], float64(d.Nanoseconds())/1e3)
			for _, via := range []struct {
				name string
				c    *Comm
			}{{"mpi", c}, {"ddt", sub}} {
				if err := c.Barrier(); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				for range iters {
					if err := via.c.Allreduce(send, recv, comm.Sum); err != nil {
						t.Fatal(err)
					}
				}
				res[via.name] = append(res[via.name], float64(time.Since(start).Nanoseconds())/1e3/iters)
			}
		}
		if c.Rank() == 0 {
			med := func(x []float64) (float64, float64) {
				slices.Sort(x)
				return x[0], x[len(x)/2]
			}
			cmin, cmed := med(res["C"])
			line := fmt.Sprintf("%s, %d ranks, allreduce of %5d doubles: C %.2f/%.2f µs", Library, c.Size(), n, cmin, cmed)
			for _, m := range []string{"mpi", "ddt"} {
				mn, md := med(res[m])
				line += fmt.Sprintf(" | %s %.2f/%.2f µs (%.1fx)", m, mn, md, mn/cmin)
			}
			t.Log(line + "  [min/median of 21 alternating rounds of 100 calls; ratios of the minima to C]")
		}
	}
}
