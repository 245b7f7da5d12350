//go:build mpi

package mpi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// directCase is a type of 512 doubles per instance and whether its runs
// are long enough to go directly at the default threshold.
type directCase struct {
	name   string
	t      *datatype.Type
	direct bool
}

func directCases(t *testing.T) []directCase {
	d := datatype.Of(datatype.Double)
	must := func(x *datatype.Type, err error) *datatype.Type {
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	return []directCase{
		{"vector", must(datatype.Vector(8, 64, 80, d)), true},                                        // 512-byte runs: hvector
		{"contig", must(datatype.Contiguous(512, d)), true},                                          // one run
		{"indexed", must(datatype.Indexed([]int64{100, 200, 212}, []int64{0, 150, 400}, d)), true},   // hindexed
		{"shifted", must(datatype.Indexed([]int64{256, 256}, []int64{3, 300}, d)), true},             // hvector at an offset
		{"resized", must(datatype.Resized(must(datatype.Vector(4, 128, 129, d)), -16, 8*600)), true}, // lb, extent moved
		{"runs256", must(datatype.Vector(16, 32, 40, d)), false},                                     // below DefaultDirect
		{"strided", must(datatype.Vector(512, 1, 2, d)), false},                                      // 8-byte runs: staged
		{"halves", must(datatype.Vector(128, 4, 5, datatype.Of(datatype.Float))), false},             // not 512 doubles
	}
}

// directImage returns a buffer of count instances of ct whose bytes
// depend on seed, and the packed bytes by the reference engine.
func directImage(t *testing.T, ct *ddt.Committed, count int64, seed int) (comm.Buffer, []byte) {
	lo, hi, err := ct.Type().Span(count)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, hi-lo)
	for k := range data {
		data[k] = byte(k*7 + seed*31 + k>>8)
	}
	ref, err := ddt.CommitWith(ct.Type(), ddt.Options{Engine: ddt.Reference})
	if err != nil {
		t.Fatal(err)
	}
	packed := make([]byte, count*ct.Type().Size())
	if _, err := ref.Pack(packed, data, -lo, count); err != nil {
		t.Fatal(err)
	}
	return comm.Buffer{Data: data, Origin: -lo, Count: count, Type: ct}, packed
}

// directExpect returns what buf holds after receiving packed: its bytes
// with packed unpacked into them by the reference engine.
func directExpect(t *testing.T, buf comm.Buffer, packed []byte) []byte {
	ref, err := ddt.CommitWith(buf.Type.Type(), ddt.Options{Engine: ddt.Reference})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(buf.Data)
	if _, err := ref.Unpack(want, packed, buf.Origin, buf.Count); err != nil {
		t.Fatal(err)
	}
	return want
}

// commitCases commits the types of directCases at the indexes given.
func commitCases(t *testing.T, idx ...int) []*ddt.Committed {
	cs := directCases(t)
	out := make([]*ddt.Committed, len(idx))
	for k, i := range idx {
		ct, err := ddt.Commit(cs[i].t)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = ct
	}
	return out
}

// recvRefused receives two messages of four instances from rank 1 with
// tag 7 that c must refuse, the buffer untouched: one into halves, of
// another signature (ErrType), one into three instances of idx
// (ErrTruncate).
func recvRefused(t *testing.T, c *Comm, halves, idx *ddt.Committed, add func(string, ...any)) {
	t.Helper()
	b, _ := directImage(t, halves, 8, 2) // 512 floats' worth of pairs of doubles
	fill := bytes.Clone(b.Data)
	if _, err := c.Recv(b, 1, 7); !errors.Is(err, comm.ErrType) || !bytes.Equal(b.Data, fill) {
		add("doubles into floats: %v, buffer changed %v", err, !bytes.Equal(b.Data, fill))
	}
	b, _ = directImage(t, idx, 3, 3)
	fill = bytes.Clone(b.Data)
	if _, err := c.Recv(b, 1, 7); !errors.Is(err, comm.ErrTruncate) || !bytes.Equal(b.Data, fill) {
		add("4 into 3: %v, buffer changed %v", err, !bytes.Equal(b.Data, fill))
	}
}

// TestDirect sends every pair of the direct cases' types (same signature,
// different layouts) from rank 0 to rank 1 in Packed and Native mode with
// the default threshold, checks the data against the reference engine,
// and that exactly the types with long runs went directly, on each side.
func TestDirect(t *testing.T) {
	c0 := testComm
	if c0.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	cases := directCases(t)[:7]
	const count = 4
	var errs []error
	for _, m := range []Mode{Packed, Native} {
		c := c0.WithMode(m).WithDirect(0)
		for i, s := range cases {
			for j, r := range cases {
				sc, err1 := ddt.Commit(s.t)
				rc, err2 := ddt.Commit(r.t)
				if err := errors.Join(err1, err2); err != nil {
					t.Fatal(err)
				}
				sbuf, packed := directImage(t, sc, count, i)
				rbuf, _ := directImage(t, rc, count, 100+j)
				tag := 10 + i*len(cases) + j
				ds, dr := c.w.directSends, c.w.directRecvs
				switch c.Rank() {
				case 0:
					if err := c.Send(sbuf, 1, tag); err != nil {
						errs = append(errs, fmt.Errorf("%v %s to %s: send: %v", m, s.name, r.name, err))
					}
					if got, want := c.w.directSends-ds, b2i(s.direct); got != want {
						errs = append(errs, fmt.Errorf("%v %s: %d direct sends, want %d", m, s.name, got, want))
					}
				case 1:
					want := directExpect(t, rbuf, packed)
					st, err := c.Recv(rbuf, 0, tag)
					switch {
					case err != nil:
						errs = append(errs, fmt.Errorf("%v %s to %s: recv: %v", m, s.name, r.name, err))
					case st.Count(rc) != count || !bytes.Equal(rbuf.Data, want):
						errs = append(errs, fmt.Errorf("%v %s to %s: count %d, data differ %v", m, s.name, r.name, st.Count(rc), !bytes.Equal(rbuf.Data, want)))
					}
					if got, want := c.w.directRecvs-dr, b2i(r.direct); got != want {
						errs = append(errs, fmt.Errorf("%v %s: %d direct receives, want %d", m, r.name, got, want))
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

// TestDirectErrors: a direct send into a receive of another signature
// fails with ErrType, into a smaller receive with ErrTruncate (the buffer
// untouched, no hang), a shorter message into a direct type fills a
// prefix (staged), and every other rank's direct send is received with
// AnySource by rank 0 into another direct type.
func TestDirectErrors(t *testing.T) {
	c := testComm.WithMode(Packed).WithDirect(0)
	if c.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	cts := commitCases(t, 0, 2, 7)
	vec, idx, halves := cts[0], cts[1], cts[2]
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Rank() {
	case 1:
		for _, n := range []int64{4, 4, 2} {
			b, _ := directImage(t, vec, n, 1)
			if err := c.Send(b, 0, 7); err != nil {
				add("send %d: %v", n, err)
			}
		}
	case 0:
		recvRefused(t, c, halves, idx, add)
		_, packed := directImage(t, vec, 2, 1)
		b, _ := directImage(t, idx, 4, 4)
		want := directExpect(t, comm.Buffer{Data: b.Data, Origin: b.Origin, Count: 2, Type: idx}, packed)
		dr := c.w.directRecvs
		if st, err := c.Recv(b, 1, 7); err != nil || st.Count(idx) != 2 || !bytes.Equal(b.Data, want) {
			add("2 into 4: %v, count %d, data differ %v", err, st.Count(idx), !bytes.Equal(b.Data, want))
		}
		if c.w.directRecvs != dr {
			add("a prefix was received directly")
		}
	}
	// AnySource: every rank but 0 sends its image of vec; rank 0 receives
	// them into idx
	if c.Rank() != 0 {
		b, _ := directImage(t, vec, 4, 10+c.Rank())
		if err := c.Send(b, 0, 8); err != nil {
			add("send to any: %v", err)
		}
	} else {
		seen := map[int]bool{}
		for range c.Size() - 1 {
			b, _ := directImage(t, idx, 4, 0)
			fill := bytes.Clone(b.Data)
			st, err := c.Recv(b, comm.AnySource, 8)
			if err != nil {
				add("recv from any: %v", err)
				continue
			}
			_, packed := directImage(t, vec, 4, 10+st.Source)
			want := directExpect(t, comm.Buffer{Data: fill, Origin: b.Origin, Count: 4, Type: idx}, packed)
			if seen[st.Source] || !bytes.Equal(b.Data, want) {
				add("from any: source %d twice %v, data differ %v", st.Source, seen[st.Source], !bytes.Equal(b.Data, want))
			}
			seen[st.Source] = true
		}
	}
	if err := testComm.Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestDirectSweep measures, with DDT_MPI_DIRECT_SWEEP=1 and 2 ranks, the
// ping-pong of a vector of doubles whose runs are 8 to 4096 bytes long,
// in messages of 16 KiB, 64 KiB and 1 MiB, staged (Packed, zero-copy off) against
// direct (Packed, every data message zero-copy) against Native mode
// (MPI's datatype of the vector), alternated in every round: the
// measurement behind DefaultDirect.
func TestDirectSweep(t *testing.T) {
	if os.Getenv("DDT_MPI_DIRECT_SWEEP") == "" || testComm.Size() != 2 {
		t.Skip("set DDT_MPI_DIRECT_SWEEP=1 and run with 2 ranks")
	}
	rounds := 15
	if s := os.Getenv("DDT_MPI_DIRECT_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	d := datatype.Of(datatype.Double)
	ways := []struct {
		name string
		c    *Comm
	}{
		{"staged", testComm.WithMode(Packed).WithDirect(-1)},
		{"direct", testComm.WithMode(Packed).WithDirect(1)},
		{"native", testComm.WithMode(Native).WithDirect(-1)},
	}
	for _, total := range []int64{16 << 10, 64 << 10, 1 << 20} {
		for _, run := range []int64{8, 64, 128, 256, 512, 1024, 4096} {
			if run == 8 && total != 16<<10 {
				continue
			}
			vt, err := datatype.Vector(total/run, run/8, run/8+1, d)
			if err != nil {
				t.Fatal(err)
			}
			ct, err := ddt.Commit(vt)
			if err != nil {
				t.Fatal(err)
			}
			buf, _ := directImage(t, ct, 1, 0)
			iters := int(max(4, min(200, (8<<20)/total)))
			res := map[string][]float64{}
			for r := -1; r < rounds; r++ {
				for _, w := range ways {
					if err := testComm.Barrier(); err != nil {
						t.Fatal(err)
					}
					c := w.c
					start := time.Now()
					pingPong(t, c, buf, iters)
					if r >= 0 {
						res[w.name] = append(res[w.name], float64(time.Since(start).Nanoseconds())/1e3/float64(iters))
					}
				}
			}
			if testComm.Rank() == 0 {
				med := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
				s, dm, n := med(res["staged"]), med(res["direct"]), med(res["native"])
				t.Logf("%s %7d B runs %4d B: staged %8.1f µs, direct %8.1f µs (%.2fx), native %8.1f µs (%.2fx)  [medians of %d alternated rounds; speedup = staged/direct, staged/native]",
					Library, total, run, s, dm, s/dm, n, s/n, rounds)
			}
		}
	}
}
