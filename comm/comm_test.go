package comm

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

func commit(ty *datatype.Type, err error) *ddt.Committed {
	if err != nil {
		panic(err)
	}
	c, err := ddt.Commit(ty)
	if err != nil {
		panic(err)
	}
	return c
}

func ints(n int) Buffer {
	c, _ := ddt.Commit(datatype.Of(datatype.Int))
	return Buffer{Data: make([]byte, 4*n), Count: int64(n), Type: c}
}

func TestOrderAndWildcards(t *testing.T) {
	w, _ := NewWorld(3, Options{})
	err := w.Run(func(c *Comm) error {
		switch c.Rank() {
		case 1, 2:
			for i := range 5 {
				b := ints(1)
				b.Data[0] = byte(10*c.Rank() + i)
				if err := c.Send(b, 0, i%2); err != nil {
					return err
				}
			}
		case 0:
			// tag 1 from rank 1 first: messages 1 and 3, in order
			for _, want := range []byte{11, 13} {
				b := ints(1)
				st, err := c.Recv(b, 1, 1)
				if err != nil {
					return err
				}
				if b.Data[0] != want || st.Source != 1 || st.Tag != 1 {
					t.Errorf("got %d from %d tag %d, want %d", b.Data[0], st.Source, st.Tag, want)
				}
			}
			// the rest with wildcards: per source, in send order
			last := map[int]int{1: -1, 2: -1}
			for range 8 {
				b := ints(1)
				st, err := c.Recv(b, AnySource, AnyTag)
				if err != nil {
					return err
				}
				i := int(b.Data[0]) - 10*st.Source
				if i <= last[st.Source] || i%2 != st.Tag {
					t.Errorf("message %d from %d (tag %d) after %d: overtaking", i, st.Source, st.Tag, last[st.Source])
				}
				last[st.Source] = i
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestProbeAndStatus(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	d := commit(datatype.Of(datatype.Double), nil)
	pair := commit(datatype.Contiguous(2, datatype.Of(datatype.Double)))
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 1 {
			return c.Send(Buffer{Data: make([]byte, 24), Count: 3, Type: d}, 0, 7)
		}
		st, err := c.Probe(AnySource, AnyTag)
		if err != nil {
			return err
		}
		if st.Source != 1 || st.Tag != 7 || st.Bytes() != 24 {
			t.Errorf("probe status %+v", st)
		}
		st, err = c.Recv(Buffer{Data: make([]byte, 32), Count: 2, Type: pair}, 1, 7)
		if err != nil {
			return err
		}
		if st.Count(pair) != Undefined || st.Count(d) != 3 || st.Elements() != 3 {
			t.Errorf("count %d (want undefined), %d doubles, %d elements", st.Count(pair), st.Count(d), st.Elements())
		}
		_, ok, _ := c.Iprobe(AnySource, AnyTag)
		if ok {
			t.Errorf("Iprobe found a message after the only one was received")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMismatchAndTruncateLeaveBufferUntouched(t *testing.T) {
	w, _ := NewWorld(2, Options{EagerLimit: 8, PacketSize: 5})
	i := commit(datatype.Of(datatype.Int), nil)
	f := commit(datatype.Of(datatype.Float), nil)
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 1 {
			for _, n := range []int64{4, 1, 6} {
				if err := c.Send(Buffer{Data: make([]byte, 4*n), Count: n, Type: i}, 0, 0); err != nil {
					return err
				}
			}
			return nil
		}
		fill := bytes.Repeat([]byte{0xAB}, 16)
		b := Buffer{Data: bytes.Clone(fill), Count: 4, Type: f}
		if _, err := c.Recv(b, 1, 0); !errors.Is(err, ErrType) || !bytes.Equal(b.Data, fill) {
			t.Errorf("int into float: err %v, buffer changed %v", err, !bytes.Equal(b.Data, fill))
		}
		b = Buffer{Data: bytes.Clone(fill), Count: 4, Type: i}
		st, err := c.Recv(b, 1, 0) // one int into room for four: fine
		if err != nil || st.Count(i) != 1 || !bytes.Equal(b.Data[4:], fill[4:]) {
			t.Errorf("short message: %v, count %d", err, st.Count(i))
		}
		b = Buffer{Data: bytes.Clone(fill), Count: 4, Type: i}
		if _, err := c.Recv(b, 1, 0); !errors.Is(err, ErrTruncate) || !bytes.Equal(b.Data, fill) {
			t.Errorf("6 ints into 4: err %v, buffer changed %v", err, !bytes.Equal(b.Data, fill))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPipelinedLayouts sends a column of a matrix and receives it as a
// contiguous array (same signature, different layouts) in many packets.
func TestPipelinedLayouts(t *testing.T) {
	const n = 300
	col := commit(datatype.Vector(n, 1, n, datatype.Of(datatype.Double)))
	row := commit(datatype.Contiguous(n, datatype.Of(datatype.Double)))
	for _, packet := range []int{1, 7, 64, 4096} {
		w, _ := NewWorld(2, Options{EagerLimit: 100, PacketSize: packet})
		src := make([]byte, 8*n*n)
		for k := range src {
			src[k] = byte(k * 13)
		}
		dst := make([]byte, 8*n)
		err := w.Run(func(c *Comm) error {
			if c.Rank() == 0 {
				return c.Send(Buffer{Data: src, Count: 1, Type: col}, 1, 3)
			}
			_, err := c.Recv(Buffer{Data: dst, Count: 1, Type: row}, 0, 3)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			if !bytes.Equal(dst[8*k:8*k+8], src[8*k*n:8*k*n+8]) {
				t.Fatalf("packet %d: element %d differs", packet, k)
			}
		}
	}
}

func TestSendrecvRing(t *testing.T) {
	w, _ := NewWorld(4, Options{EagerLimit: 1, PacketSize: 3})
	err := w.Run(func(c *Comm) error {
		s := ints(10)
		for k := range s.Data {
			s.Data[k] = byte(c.Rank())
		}
		r := ints(10)
		n := c.Size()
		st, err := c.Sendrecv(s, (c.Rank()+1)%n, 0, r, (c.Rank()+n-1)%n, 0)
		if err != nil {
			return err
		}
		if st.Source != (c.Rank()+n-1)%n || r.Data[39] != byte(st.Source) {
			t.Errorf("rank %d got data of %d from %d", c.Rank(), r.Data[39], st.Source)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBadArguments(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	c, _ := w.Comm(0)
	b := ints(1)
	if err := c.Send(b, 2, 0); err == nil {
		t.Error("send to rank 2 of 2 must fail")
	}
	if err := c.Send(b, 1, -3); err == nil {
		t.Error("negative tag must fail")
	}
	b.Count = 2 // reaches outside Data
	if err := c.Send(b, 1, 0); err == nil {
		t.Error("buffer overrun must fail")
	}
	if _, err := NewWorld(0, Options{}); err == nil {
		t.Error("empty world must fail")
	}
}

// A failed Alltoall posts nothing: a later message is not swallowed by a
// receive it left behind.
func TestAlltoallBadBufferPostsNothing(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 1 {
			b := ints(1)
			b.Data[0] = 42
			return c.Send(b, 0, 0)
		}
		send, recv := ints(2), ints(1) // recv holds only block 0
		recv.Count = 1
		send.Count = 1
		if err := c.Alltoall(send, recv, 0); err == nil {
			t.Error("alltoall into a buffer too small for block 1 must fail")
		}
		b := ints(1)
		if _, err := c.Recv(b, 1, 0); err != nil || b.Data[0] != 42 {
			t.Errorf("message after the failed alltoall: %v, got %d", err, b.Data[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
