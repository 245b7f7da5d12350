//go:build mpi

package mpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// pipeComm is a Comm of mode m whose every data message of more than
// packet bytes is pipelined in packets of packet bytes (never inline,
// never zero-copy on the sending side).
func pipeComm(m Mode, packet int) *Comm {
	return testComm.WithMode(m).WithInlineLimit(-1).WithDirect(-1).WithPipeline(packet, 1)
}

// TestPipeSuite runs the commtest suite (order, wildcards, probes,
// nonblocking requests, Sendrecv, mismatch and truncation, random types,
// collectives) with every data message pipelined in 100-byte packets
// (which split elements), into receivers that would have received
// directly or natively, from Native senders (which pipeline what has no
// native datatype), and with one packet in flight at a time.
func TestPipeSuite(t *testing.T) {
	before := pipeSends
	direct := testComm.WithMode(Packed).WithInlineLimit(-1).WithDirect(1)
	t.Run("packed-pipe", func(t *testing.T) { runSuite(t, pipeComm(Packed, 100)) })
	t.Run("pipe-to-direct", func(t *testing.T) { runSuite(t, cross{direct, pipeComm(Packed, 100)}) })
	t.Run("pipe-to-native", func(t *testing.T) {
		runSuite(t, cross{testComm.WithMode(Native).WithInlineLimit(-1), pipeComm(Packed, 100)})
	})
	t.Run("native-pipe-to-packed", func(t *testing.T) { runSuite(t, cross{pipeComm(Packed, 100), pipeComm(Native, 100)}) })
	t.Run("pipe-window1", func(t *testing.T) {
		old := pipeWindow
		pipeWindow = 1
		defer func() { pipeWindow = old }()
		runSuite(t, pipeComm(Packed, 64))
	})
	if testComm.Size() > 1 && pipeSends == before {
		t.Fatal("no message was pipelined")
	}
}

// TestPipe sends pipelined messages (1000-byte packets, which split
// doubles) of three layouts into staged, direct and Native receives of
// three layouts of the same signature, and checks the data against the
// reference engine and that both sides pipelined.
func TestPipe(t *testing.T) {
	c0 := testComm
	if c0.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	cs := directCases(t)
	types := []directCase{cs[0], cs[6], cs[2]} // vector (512-byte runs), strided (8-byte runs), indexed
	recvs := []struct {
		name string
		c    *Comm
	}{
		{"staged", testComm.WithMode(Packed).WithDirect(-1)},
		{"direct", testComm.WithMode(Packed).WithDirect(1)},
		{"native", testComm.WithMode(Native)},
	}
	send := pipeComm(Packed, 1000)
	const count = 4 // 16 KiB: 17 packets
	var errs []error
	for ri, rv := range recvs {
		for i, s := range types {
			for j, r := range types {
				sc, err1 := ddt.Commit(s.t)
				rc, err2 := ddt.Commit(r.t)
				if err := errors.Join(err1, err2); err != nil {
					t.Fatal(err)
				}
				sbuf, packed := directImage(t, sc, count, i)
				rbuf, _ := directImage(t, rc, count, 100+j)
				tag := 10 + (ri*len(types)+i)*len(types) + j
				ps, pr := pipeSends, pipeRecvs
				switch c0.Rank() {
				case 0:
					if err := send.Send(sbuf, 1, tag); err != nil {
						errs = append(errs, fmt.Errorf("%s to %s %s: send: %v", s.name, rv.name, r.name, err))
					}
					if pipeSends != ps+1 {
						errs = append(errs, fmt.Errorf("%s: not pipelined", s.name))
					}
				case 1:
					want := directExpect(t, rbuf, packed)
					st, err := rv.c.Recv(rbuf, 0, tag)
					switch {
					case err != nil:
						errs = append(errs, fmt.Errorf("%s to %s %s: recv: %v", s.name, rv.name, r.name, err))
					case st.Count(rc) != count || !bytes.Equal(rbuf.Data, want):
						errs = append(errs, fmt.Errorf("%s to %s %s: count %d, data differ %v", s.name, rv.name, r.name, st.Count(rc), !bytes.Equal(rbuf.Data, want)))
					}
					if pipeRecvs != pr+1 {
						errs = append(errs, fmt.Errorf("%s to %s %s: not received in packets", s.name, rv.name, r.name))
					}
				}
			}
		}
	}
	if err := c0.Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestPipeErrors: a pipelined message into a receive of another
// signature fails with ErrType and into a smaller one with ErrTruncate,
// the buffer untouched and the packets drained (the next message arrives
// intact); a shorter one fills a prefix of a direct receive; every other
// rank's pipelined message is received with AnySource and AnyTag; Isend
// and Irecv with Test, Probe and Sendrecv; a send whose packet fails
// fails on both sides without a hang.
func TestPipeErrors(t *testing.T) {
	c := pipeComm(Packed, 1000)
	if c.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	rc := testComm.WithMode(Packed).WithDirect(1)
	cts := commitCases(t, 6, 2, 7)
	strided, idx, halves := cts[0], cts[1], cts[2]
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Rank() {
	case 1:
		for _, n := range []int64{4, 4, 2, 3} {
			b, _ := directImage(t, strided, n, int(n))
			if err := c.Send(b, 0, 7); err != nil {
				add("send %d: %v", n, err)
			}
		}
	case 0:
		recvRefused(t, rc, halves, idx, add)
		for _, n := range []int64{2, 3} {
			_, packed := directImage(t, strided, n, int(n))
			b, _ := directImage(t, idx, 4, 4)
			want := directExpect(t, comm.Buffer{Data: b.Data, Origin: b.Origin, Count: n, Type: idx}, packed)
			if st, err := rc.Recv(b, 1, 7); err != nil || st.Count(idx) != n || !bytes.Equal(b.Data, want) {
				add("%d into 4: %v, count %d, data differ %v", n, err, st.Count(idx), !bytes.Equal(b.Data, want))
			}
		}
	}
	// AnySource, AnyTag into a Native receive
	if c.Rank() != 0 {
		b, _ := directImage(t, strided, 4, 10+c.Rank())
		if err := c.Send(b, 0, 20+c.Rank()); err != nil {
			add("send to any: %v", err)
		}
	} else {
		seen := map[int]bool{}
		for range c.Size() - 1 {
			b, _ := directImage(t, idx, 4, 0)
			fill := bytes.Clone(b.Data)
			st, err := testComm.WithMode(Native).Recv(b, comm.AnySource, comm.AnyTag)
			if err != nil {
				add("recv from any: %v", err)
				continue
			}
			_, packed := directImage(t, strided, 4, 10+st.Source)
			want := directExpect(t, comm.Buffer{Data: fill, Origin: b.Origin, Count: 4, Type: idx}, packed)
			if seen[st.Source] || st.Tag != 20+st.Source || !bytes.Equal(b.Data, want) {
				add("from any: source %d twice %v, tag %d, data differ %v", st.Source, seen[st.Source], st.Tag, !bytes.Equal(b.Data, want))
			}
			seen[st.Source] = true
		}
	}
	// Isend, Probe, Irecv and Test
	if c.Rank() < 2 {
		b, packed := directImage(t, strided, 4, 30)
		if c.Rank() == 0 {
			r, err := c.Isend(b, 1, 9)
			if err == nil {
				_, err = r.Wait()
			}
			if err != nil {
				add("isend: %v", err)
			}
		} else {
			if st, err := c.Probe(0, 9); err != nil || st.Bytes() != int64(len(packed)) {
				add("probe: %v, %d bytes, want %d", err, st.Bytes(), len(packed))
			}
			rb, _ := directImage(t, idx, 4, 31)
			want := directExpect(t, rb, packed)
			r, err := rc.Irecv(rb, 0, 9)
			for err == nil {
				var ok bool
				if _, ok, err = r.Test(); ok {
					break
				}
			}
			if err != nil || !bytes.Equal(rb.Data, want) {
				add("irecv: %v, data differ %v", err, !bytes.Equal(rb.Data, want))
			}
		}
		// Sendrecv: both ways at once
		peer := 1 - c.Rank()
		sb, _ := directImage(t, strided, 4, 40+c.Rank())
		rb, _ := directImage(t, idx, 4, 50)
		want := directExpect(t, rb, directPacked(t, strided, 4, 40+peer))
		if _, err := c.Sendrecv(sb, peer, 10, rb, peer, 10); err != nil || !bytes.Equal(rb.Data, want) {
			add("sendrecv: %v, data differ %v", err, !bytes.Equal(rb.Data, want))
		}
	}
	// a packet that cannot be sent: both sides fail, nothing hangs, and
	// the next message goes through
	if c.Rank() < 2 {
		b, packed := directImage(t, strided, 4, 60)
		if c.Rank() == 0 {
			pipeFailAt = 5
			err := c.Send(b, 1, 11)
			pipeFailAt = -1
			if err == nil || !strings.Contains(err.Error(), "injected") {
				add("failed send: %v", err)
			}
			if err := c.Send(b, 1, 11); err != nil {
				add("send after a failure: %v", err)
			}
		} else {
			rb, _ := directImage(t, idx, 4, 61)
			if _, err := rc.Recv(rb, 0, 11); err == nil || !strings.Contains(err.Error(), "the send failed") {
				add("recv of a failed send: %v", err)
			}
			want := directExpect(t, rb, packed)
			if _, err := rc.Recv(rb, 0, 11); err != nil || !bytes.Equal(rb.Data, want) {
				add("recv after a failure: %v, data differ %v", err, !bytes.Equal(rb.Data, want))
			}
		}
	}
	if err := testComm.Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// directPacked is the packed stream of directImage(t, ct, count, seed).
func directPacked(t *testing.T, ct *ddt.Committed, count int64, seed int) []byte {
	_, p := directImage(t, ct, count, seed)
	return p
}

// TestPipeSweep measures, with DDT_MPI_PIPE_SWEEP=1 and 2 ranks, the
// ping-pong of a vector of doubles with 8-byte runs (DDT_MPI_PIPE_RUN
// bytes; staged: ddt packs it) in messages of 64 KiB to 4 MiB, packed whole against pipelined in
// packets of 8 KiB to 256 KiB (or DDT_MPI_PIPE_SIZES and
// DDT_MPI_PIPE_PACKETS, comma-separated byte counts), alternated in every round: the
// measurement behind DefaultPacket and DefaultPipeMin.
func TestPipeSweep(t *testing.T) {
	if os.Getenv("DDT_MPI_PIPE_SWEEP") == "" || testComm.Size() != 2 {
		t.Skip("set DDT_MPI_PIPE_SWEEP=1 and run with 2 ranks")
	}
	rounds := 9
	if s := os.Getenv("DDT_MPI_PIPE_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	sizes := []int64{64 << 10, 256 << 10, 1 << 20, 4 << 20}
	if s := os.Getenv("DDT_MPI_PIPE_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			var n int64
			fmt.Sscan(f, &n)
			sizes = append(sizes, n)
		}
	}
	run := int64(8) // bytes per run of the vector
	if s := os.Getenv("DDT_MPI_PIPE_RUN"); s != "" {
		fmt.Sscan(s, &run)
	}
	pkts := []int{8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10}
	if s := os.Getenv("DDT_MPI_PIPE_PACKETS"); s != "" {
		pkts = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			fmt.Sscan(f, &n)
			pkts = append(pkts, n)
		}
	}
	d := datatype.Of(datatype.Double)
	base := testComm.WithMode(Packed).WithDirect(-1)
	for _, total := range sizes {
		vt, err := datatype.Vector(total/run, run/8, run/8+1, d)
		if err != nil {
			t.Fatal(err)
		}
		ct, err := ddt.Commit(vt)
		if err != nil {
			t.Fatal(err)
		}
		buf, _ := directImage(t, ct, 1, 0)
		iters := int(max(4, min(200, (32<<20)/total)))
		ways := []struct {
			name string
			c    *Comm
		}{{"whole", base.WithPipeline(-1, 0)}}
		for _, p := range pkts {
			if int64(p) < total {
				ways = append(ways, struct {
					name string
					c    *Comm
				}{fmt.Sprintf("%dK", p>>10), base.WithPipeline(p, 1)})
			}
		}
		res := map[string][]float64{}
		for r := -1; r < rounds; r++ {
			for _, w := range ways {
				if err := testComm.Barrier(); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				pingPong(t, w.c, buf, iters)
				if r >= 0 {
					res[w.name] = append(res[w.name], float64(time.Since(start).Nanoseconds())/1e3/float64(iters))
				}
			}
		}
		if testComm.Rank() == 0 {
			med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
			whole := med(res["whole"])
			line := fmt.Sprintf("%s %8d B, runs %d B: whole %8.1f µs; whole/pipelined:", Library, total, run, whole)
			for _, w := range ways[1:] {
				line += fmt.Sprintf(" %s %.2f", w.name, whole/med(res[w.name]))
			}
			t.Logf("%s  [medians of %d alternated rounds, window %d]", line, rounds, pipeWindow)
		}
	}
}

// TestPipeHeader: the data-tag word carries the data tag and the packet
// size through putHeader and parseHeader, and inline data keeps its -1.
func TestPipeHeader(t *testing.T) {
	it, _ := ddt.Commit(intType())
	sig, err := comm.SignatureOf(it, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tag    int
		packet int64
	}{{0, 0}, {5, 64 << 10}, {1<<31 - 1, maxPacket}, {12345, 1}} {
		b := make([]byte, hdrSize)
		putHeader(b, sig, c.tag, 7, 1)
		binary.LittleEndian.PutUint32(b[28:], uint32(c.packet))
		var in incoming
		if !parseHeader(&in, unsafe.Pointer(&b[0]), result{src: 1, bytes: hdrSize}) || in.dataTag != c.tag || in.packet != c.packet || in.sig != sig || in.env.Source != 1 {
			t.Errorf("tag %d, packet %d: parsed tag %d, packet %d, signature equal %v", c.tag, c.packet, in.dataTag, in.packet, in.sig == sig)
		}
	}
	b := make([]byte, hdrSize+12)
	putHeader(b, sig, -1, 0, 0)
	var in incoming
	if !parseHeader(&in, unsafe.Pointer(&b[0]), result{bytes: int64(len(b))}) || in.dataTag != -1 || in.packet != 0 || len(in.inline) != 12 {
		t.Errorf("inline: tag %d, packet %d, %d inline bytes", in.dataTag, in.packet, len(in.inline))
	}
}
