//go:build mpi

package mpi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// compactCases are small types, most of them one run of memory per
// message (packed by a copy: bytes, a contiguous array, a struct of
// adjacent fields, runs moved by lb and extent), two not (a vector, an
// indexed type).
func compactCases(t *testing.T) []*ddt.Committed {
	must := func(x *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	i32 := datatype.Of(datatype.Int32)
	ts := []*datatype.Type{
		datatype.Of(datatype.Byte),
		must(datatype.Contiguous(5, i32)),
		must(datatype.Struct([]int64{1, 1}, []int64{0, 4}, []*datatype.Type{i32, datatype.Of(datatype.Float)})),
		must(datatype.Resized(must(datatype.Contiguous(4, i32)), -16, 16)),                 // data at [0, 16), lb -16
		must(datatype.Resized(must(datatype.Indexed([]int64{4}, []int64{2}, i32)), 8, 16)), // data at [8, 24), lb 8
		must(datatype.Vector(3, 1, 2, datatype.Of(datatype.Double))),                       // not one run
		must(datatype.Indexed([]int64{1, 2}, []int64{0, 3}, datatype.Of(datatype.Int16))),
	}
	var out []*ddt.Committed
	for _, x := range ts {
		c, err := ddt.Commit(x)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestCompactHeaders sends small messages of more (type, count,
// communicator) headers than a pair's table holds, three times over,
// from rank 0 to rank 1, received by source and tag or by wildcards, and
// checks their data against the reference engine, their status, and that
// compact headers carried some of them (counted on both sides, the same
// number). Then a compact header into a receive of another signature
// (ErrType) and into a smaller one (ErrTruncate, buffer untouched).
func TestCompactHeaders(t *testing.T) {
	if testComm.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	sub, err := testComm.Split(0, testComm.Rank()) // the same ranks, another context
	if err != nil {
		t.Fatal(err)
	}
	comms := []*Comm{testComm.WithMode(Packed), sub.WithMode(Packed)}
	cases := compactCases(t)
	w := testComm.w
	w.mu.Lock()
	sent0, recvd0 := w.compact.sent, w.compact.recvd
	w.mu.Unlock()
	me := testComm.Rank()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fail := func(err error) {
		if err != nil {
			t.Error(err)
		}
	}
	seq := 0
	for round := range 3 {
		for ci, c := range comms {
			for i, ct := range cases {
				for _, count := range []int64{1, 3} {
					seq++
					tag := 10 + i
					sbuf, packed := directImage(t, ct, count, seq)
					sbuf = padded(sbuf, 11, seq)
					switch me {
					case 0:
						fail(c.Send(sbuf, 1, tag))
					case 1:
						rbuf, _ := directImage(t, ct, count, seq+1000)
						rbuf = padded(rbuf, 13, seq)
						want := directExpect(t, rbuf, packed)
						src, rtag := 0, tag
						if (round+i)%2 == 1 {
							src, rtag = comm.AnySource, comm.AnyTag
						}
						st, err := c.RecvContext(ctx, rbuf, src, rtag)
						where := fmt.Sprintf("round %d comm %d type %d count %d", round, ci, i, count)
						switch {
						case err != nil:
							t.Fatalf("%s: %v", where, err)
						case st.Source != 0 || st.Tag != tag:
							t.Errorf("%s: status source %d tag %d, want 0 and %d", where, st.Source, st.Tag, tag)
						case !bytes.Equal(rbuf.Data, want):
							t.Errorf("%s: data differ from the reference engine's", where)
						}
						if n := st.Count(ct); n != count {
							t.Errorf("%s: status count %d, want %d", where, n, count)
						}
					}
				}
			}
		}
	}

	// a compact header checked like a full one: after the first message,
	// checked messages of the same header, received into another
	// signature (ErrType) or a smaller buffer (ErrTruncate)
	const checked = 8
	i32, _ := ddt.Commit(datatype.Of(datatype.Int32))
	f32, _ := ddt.Commit(datatype.Of(datatype.Float))
	src := comm.Buffer{Data: []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}, Count: 4, Type: i32}
	switch me {
	case 0:
		for range 1 + checked {
			fail(comms[0].Send(src, 1, 50))
		}
	case 1:
		r := comm.Buffer{Data: make([]byte, 16), Count: 4, Type: i32}
		if _, err := comms[0].Recv(r, 0, 50); err != nil || !bytes.Equal(r.Data, src.Data) {
			t.Errorf("first int32 message: %v, %v", err, r.Data)
		}
		w.mu.Lock()
		before := w.compact.recvd
		w.mu.Unlock()
		for k := range checked {
			if k%2 == 0 {
				f := comm.Buffer{Data: make([]byte, 16), Count: 4, Type: f32}
				if _, err := comms[0].Recv(f, 0, 50); !errors.Is(err, comm.ErrType) {
					t.Errorf("int32 into float32: %v, want ErrType", err)
				}
				continue
			}
			small := comm.Buffer{Data: bytes.Repeat([]byte{9}, 8), Count: 2, Type: i32}
			if _, err := comms[0].Recv(small, 0, 50); !errors.Is(err, comm.ErrTruncate) || !bytes.Equal(small.Data, bytes.Repeat([]byte{9}, 8)) {
				t.Errorf("4 int32 into 2: %v, buffer %v, want ErrTruncate and the buffer untouched", err, small.Data)
			}
		}
		// a send MPI does not complete at once (a loaded machine) leaves
		// its slot invalid and the next message goes in full, so not
		// every checked message need be compact; most are
		w.mu.Lock()
		if d := w.compact.recvd - before; d < 1 {
			t.Errorf("none of the %d checked messages came with a compact header", checked)
		}
		w.mu.Unlock()
	}

	// both sides count the compact headers of rank 0's sends to rank 1
	w.mu.Lock()
	sent, recvd := w.compact.sent-sent0, w.compact.recvd-recvd0
	w.mu.Unlock()
	i64, _ := ddt.Commit(datatype.Of(datatype.Int64))
	n := comm.Buffer{Data: make([]byte, 8), Count: 1, Type: i64}
	switch me {
	case 0:
		if _, err := testComm.Recv(n, 1, 51); err != nil {
			t.Fatal(err)
		}
		if got := int64(le64(n.Data)); got != sent || sent == 0 {
			t.Errorf("rank 0 sent %d compact headers, rank 1 took in %d; want the same, not 0", sent, got)
		}
	case 1:
		put64(n.Data, uint64(recvd))
		fail(testComm.Send(n, 0, 51))
	}
	if err := testComm.Barrier(); err != nil {
		t.Fatal(err)
	}
}

// padded is buf with n more bytes before its data and after it, and a
// seed's bytes in them (origin moved accordingly).
func padded(buf comm.Buffer, n, seed int) comm.Buffer {
	d := make([]byte, 0, len(buf.Data)+2*n)
	for k := range n {
		d = append(d, byte(seed+k))
	}
	d = append(d, buf.Data...)
	for k := range n {
		d = append(d, byte(seed*3+k))
	}
	buf.Data, buf.Origin = d, buf.Origin+int64(n)
	return buf
}

// TestCompactFlag checks that no full header starts like a compact one:
// word 0 of a full header is a signature hash, below 2^61 - 1.
func TestCompactFlag(t *testing.T) {
	bt, _ := ddt.Commit(datatype.Of(datatype.Double))
	for _, n := range []int64{0, 1, 7, 1 << 40} {
		s, err := comm.SignatureOf(bt, n)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, hdrSize)
		putHeader(b, s, -1, 3, 1)
		if le64(b)&compactFlag != 0 {
			t.Errorf("count %d: the full header's word 0 %#x has the compact flag", n, le64(b))
		}
	}
	if compactFlag <= 1<<61-1 {
		t.Error("compactFlag is not above every hash")
	}
}
