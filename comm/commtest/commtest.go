// Package commtest is a test suite for transports of package comm: every
// test runs on every rank of a world, given that rank's
// comm.Communicator, and returns what it found wrong. The in-process
// ranks run it as goroutines, the MPI transport under mpirun.
package commtest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// Test is one test of the suite.
type Test struct {
	Name string
	// MinRanks is the smallest world the test runs in; smaller worlds skip it.
	MinRanks int
	// Run runs the test on one rank. Every rank of the world must run it.
	Run func(c comm.Communicator) error
}

// Suite is the whole suite, in order. Tests use tags below 1000.
var Suite = []Test{
	{"OrderAndWildcards", 2, OrderAndWildcards},
	{"ProbeAndStatus", 2, ProbeAndStatus},
	{"MismatchAndTruncate", 2, MismatchAndTruncate},
	{"LargeLayouts", 2, LargeLayouts},
	{"SendrecvRing", 2, SendrecvRing},
	{"Alltoall", 2, Alltoall},
	{"RandomTypes", 2, RandomTypes},
	{"BadArguments", 2, BadArguments},
	{"Collectives", 1, Collectives},
	{"Alltoallw", 2, Alltoallw},
	{"CollectiveArgs", 1, CollectiveArgs},
	{"Reductions", 1, Reductions},
}

func commit(t *datatype.Type, err error) *ddt.Committed {
	if err != nil {
		panic(err) // only for the fixed types of this file
	}
	c, err := ddt.Commit(t)
	if err != nil {
		panic(err)
	}
	return c
}

var (
	intT    = commit(datatype.Of(datatype.Int), nil)
	floatT  = commit(datatype.Of(datatype.Float), nil)
	doubleT = commit(datatype.Of(datatype.Double), nil)
	pairT   = commit(datatype.Contiguous(2, datatype.Of(datatype.Double)))
)

func ints(n int) comm.Buffer {
	return comm.Buffer{Data: make([]byte, 4*n), Count: int64(n), Type: intT}
}

// errs collects failures.
type errs []error

func (e *errs) add(format string, a ...any) { *e = append(*e, fmt.Errorf(format, a...)) }
func (e errs) err() error                   { return errors.Join(e...) }

// OrderAndWildcards: every other rank sends five one-int messages to rank
// 0 with tags alternating 0, 1; rank 0 first receives tag 1 from rank 1
// (messages 1 and 3, in order), then everything else with wildcards and
// checks that no message overtakes an earlier one from the same sender.
func OrderAndWildcards(c comm.Communicator) error {
	var e errs
	if c.Rank() != 0 {
		for i := range 5 {
			b := ints(1)
			b.Data[0] = byte(10*c.Rank() + i)
			if err := c.Send(b, 0, 100+i%2); err != nil {
				return err
			}
		}
		return nil
	}
	for _, want := range []byte{11, 13} {
		b := ints(1)
		st, err := c.Recv(b, 1, 101)
		if err != nil {
			return err
		}
		if b.Data[0] != want || st.Source != 1 || st.Tag != 101 {
			e.add("got %d from %d tag %d, want %d from 1 tag 101", b.Data[0], st.Source, st.Tag, want)
		}
	}
	last := map[int]int{}
	for r := 1; r < c.Size(); r++ {
		last[r] = -1
	}
	last[1] = 3 // 1 and 3 are gone; 0, 2, 4 (tag 100) must come in order
	seen1 := 0
	for range 5*(c.Size()-1) - 2 {
		b := ints(1)
		st, err := c.Recv(b, comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		i := int(b.Data[0]) - 10*st.Source
		if st.Source == 1 {
			if i != 2*seen1 {
				e.add("from rank 1: message %d, want %d", i, 2*seen1)
			}
			seen1++
		} else if i <= last[st.Source] {
			e.add("message %d from %d after %d: overtaking", i, st.Source, last[st.Source])
		} else {
			last[st.Source] = i
		}
		if i%2 != st.Tag-100 {
			e.add("message %d from %d has tag %d", i, st.Source, st.Tag)
		}
	}
	return e.err()
}

// ProbeAndStatus: rank 1 sends three doubles; rank 0 probes with
// wildcards, receives them as pairs of doubles and checks Count, Elements
// and that nothing is left.
func ProbeAndStatus(c comm.Communicator) error {
	var e errs
	switch c.Rank() {
	case 1:
		return c.Send(comm.Buffer{Data: make([]byte, 24), Count: 3, Type: doubleT}, 0, 7)
	case 0:
		st, err := c.Probe(comm.AnySource, comm.AnyTag)
		if err != nil {
			return err
		}
		if st.Source != 1 || st.Tag != 7 || st.Bytes() != 24 {
			e.add("probe status: source %d tag %d bytes %d, want 1, 7, 24", st.Source, st.Tag, st.Bytes())
		}
		st, err = c.Recv(comm.Buffer{Data: make([]byte, 32), Count: 2, Type: pairT}, 1, 7)
		if err != nil {
			return err
		}
		if st.Count(pairT) != comm.Undefined || st.Count(doubleT) != 3 || st.Elements() != 3 {
			e.add("count %d (want undefined), %d doubles, %d elements", st.Count(pairT), st.Count(doubleT), st.Elements())
		}
		if _, ok, _ := c.Iprobe(comm.AnySource, comm.AnyTag); ok {
			e.add("Iprobe found a message after the only one was received")
		}
	}
	return e.err()
}

// MismatchAndTruncate: ints into floats fail with ErrType, 6 ints into 4
// with ErrTruncate, both leaving the buffer untouched; one int into four
// succeeds. Small and large messages both.
func MismatchAndTruncate(c comm.Communicator) error {
	var e errs
	for _, scale := range []int64{1, 5000} {
		switch c.Rank() {
		case 1:
			for _, n := range []int64{4, 1, 6} {
				n *= scale
				if err := c.Send(comm.Buffer{Data: make([]byte, 4*n), Count: n, Type: intT}, 0, 200); err != nil {
					return err
				}
			}
		case 0:
			fill := bytes.Repeat([]byte{0xAB}, int(16*scale))
			b := comm.Buffer{Data: bytes.Clone(fill), Count: 4 * scale, Type: floatT}
			if _, err := c.Recv(b, 1, 200); !errors.Is(err, comm.ErrType) || !bytes.Equal(b.Data, fill) {
				e.add("x%d: int into float: err %v, buffer changed %v", scale, err, !bytes.Equal(b.Data, fill))
			}
			b = comm.Buffer{Data: bytes.Clone(fill), Count: 4 * scale, Type: intT}
			st, err := c.Recv(b, 1, 200)
			if err != nil || st.Count(intT) != scale || !bytes.Equal(b.Data[4*scale:], fill[4*scale:]) {
				e.add("x%d: short message: %v, count %d", scale, err, st.Count(intT))
			}
			b = comm.Buffer{Data: bytes.Clone(fill), Count: 4 * scale, Type: intT}
			if _, err := c.Recv(b, 1, 200); !errors.Is(err, comm.ErrTruncate) || !bytes.Equal(b.Data, fill) {
				e.add("x%d: 6 ints into 4: err %v, buffer changed %v", scale, err, !bytes.Equal(b.Data, fill))
			}
		}
	}
	return e.err()
}

// LargeLayouts sends a column of a 300×300 matrix of doubles from rank 0
// to rank 1, which receives it as a contiguous array.
func LargeLayouts(c comm.Communicator) error {
	const n = 300
	col := commit(datatype.Vector(n, 1, n, datatype.Of(datatype.Double)))
	row := commit(datatype.Contiguous(n, datatype.Of(datatype.Double)))
	src := make([]byte, 8*n*n)
	for k := range src {
		src[k] = byte(k * 13)
	}
	switch c.Rank() {
	case 0:
		return c.Send(comm.Buffer{Data: src, Count: 1, Type: col}, 1, 300)
	case 1:
		dst := make([]byte, 8*n)
		if _, err := c.Recv(comm.Buffer{Data: dst, Count: 1, Type: row}, 0, 300); err != nil {
			return err
		}
		for k := range n {
			if !bytes.Equal(dst[8*k:8*k+8], src[8*k*n:8*k*n+8]) {
				return fmt.Errorf("element %d differs", k)
			}
		}
	}
	return nil
}

// SendrecvRing shifts ten ints around the ring of all ranks.
func SendrecvRing(c comm.Communicator) error {
	s := ints(10)
	for k := range s.Data {
		s.Data[k] = byte(c.Rank())
	}
	r := ints(10)
	n := c.Size()
	st, err := c.Sendrecv(s, (c.Rank()+1)%n, 400, r, (c.Rank()+n-1)%n, 400)
	if err != nil {
		return err
	}
	if st.Source != (c.Rank()+n-1)%n || r.Data[39] != byte(st.Source) {
		return fmt.Errorf("rank %d got data of %d from %d", c.Rank(), r.Data[39], st.Source)
	}
	return nil
}

// Alltoall sends block j of every rank to rank j: int (rank, j) pairs.
func Alltoall(c comm.Communicator) error {
	n := c.Size()
	send, recv := ints(2*n), ints(2*n)
	for j := range n {
		send.Data[8*j], send.Data[8*j+4] = byte(c.Rank()), byte(j)
	}
	send.Count, recv.Count = 2, 2
	if err := c.Alltoall(send, recv, 500); err != nil {
		return err
	}
	for i := range n {
		if recv.Data[8*i] != byte(i) || recv.Data[8*i+4] != byte(c.Rank()) {
			return fmt.Errorf("block %d is (%d, %d), want (%d, %d)", i, recv.Data[8*i], recv.Data[8*i+4], i, c.Rank())
		}
	}
	return nil
}

// Image is a buffer for count instances of t: data with room for the span
// and a margin of 8 bytes on both sides, and the origin in it.
func Image(t *ddt.Committed, count int64, fill func(i int) byte) (comm.Buffer, error) {
	lo, hi, err := t.Type().Span(count)
	if err != nil {
		return comm.Buffer{}, err
	}
	data := make([]byte, hi-lo+16)
	for i := range data {
		data[i] = fill(i)
	}
	return comm.Buffer{Data: data, Origin: 8 - lo, Count: count, Type: t}, nil
}

// RandomTypes sends random types from the conformance generator (the same
// seed on every rank gives every rank the same types) from rank 0 to rank
// 1 and checks that the receive buffer is exactly what ddt's reference
// engine makes of it: unpack(pack(source)) over the receive buffer's old
// contents.
func RandomTypes(c comm.Communicator) error {
	return RandomTypesSeed(c, 1, 60)
}

// RandomTypesSeed is RandomTypes with a seed and a number of types.
func RandomTypesSeed(c comm.Communicator, seed uint64, n int) error {
	if c.Rank() > 1 {
		return nil
	}
	var e errs
	r := rand.New(rand.NewPCG(seed, 99))
	opts := typegen.Options{MaxExtent: 64 << 10, MaxElements: 2048}
	for i := range n {
		ty := typegen.Random(r, opts)
		count := int64(1 + r.IntN(3))
		t, err := ddt.CommitWith(ty, ddt.Options{Engine: ddt.Reference})
		if err != nil {
			return err
		}
		src, err := Image(t, count, func(k int) byte { return byte(k*7 + i) })
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			if err := c.Send(src, 1, 600+i%100); err != nil {
				return fmt.Errorf("type %d (%s): %w", i, ty, err)
			}
			continue
		}
		dst, _ := Image(t, count, func(k int) byte { return byte(k * 3) })
		want := bytes.Clone(dst.Data)
		packed := make([]byte, count*ty.Size())
		if _, err := t.Pack(packed, src.Data, src.Origin, count); err != nil {
			return err
		}
		if _, err := t.Unpack(want, packed, dst.Origin, count); err != nil {
			return err
		}
		st, err := c.Recv(dst, 0, 600+i%100)
		if err != nil {
			return fmt.Errorf("type %d (%s): %w", i, ty, err)
		}
		if st.Bytes() != int64(len(packed)) || st.Elements() != count*ty.Elements() {
			e.add("type %d: status %d bytes %d elements, want %d, %d", i, st.Bytes(), st.Elements(), len(packed), count*ty.Elements())
		}
		maskLongDoublePadding(ty, count, dst.Data, dst.Origin)
		maskLongDoublePadding(ty, count, want, dst.Origin)
		if !bytes.Equal(dst.Data, want) {
			e.add("type %d (%s, depth %d, %d elements): received bytes differ from ddt's reference", i, ty, ty.Depth(), ty.Elements())
		}
	}
	return e.err()
}

// BadArguments checks that bad ranks, tags and buffers are errors.
func BadArguments(c comm.Communicator) error {
	var e errs
	b := ints(1)
	if err := c.Send(b, c.Size(), 0); err == nil {
		e.add("send to rank %d of %d must fail", c.Size(), c.Size())
	}
	if err := c.Send(b, 0, -3); err == nil {
		e.add("negative tag must fail")
	}
	b.Count = 2 // reaches outside Data
	if err := c.Send(b, 0, 0); err == nil {
		e.add("buffer overrun must fail")
	}
	if _, err := c.Irecv(b, 0, 0); err == nil {
		e.add("receive buffer overrun must fail")
	}
	return e.err()
}

// maskLongDoublePadding zeroes the 6 padding bytes of every x87 long double
// of count instances of t in buf: MPICH zeroes them when it packs.
func maskLongDoublePadding(t *datatype.Type, count int64, buf []byte, origin int64) {
	t.Walk(count, func(e datatype.Basic, d int64) bool {
		p := origin + d
		switch e {
		case datatype.LongDouble:
			clear(buf[p+10 : p+16])
		case datatype.CLongDoubleComplex:
			clear(buf[p+10 : p+16])
			clear(buf[p+26 : p+32])
		}
		return true
	})
}
