package lang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ddtlab/ddt/datatype"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// endless repeats s forever.
type endless struct {
	s string
	i int
}

func (e *endless) Read(b []byte) (int, error) {
	for k := range b {
		b[k] = e.s[e.i%len(e.s)]
		e.i++
	}
	return len(b), nil
}

// TestParseReaderStopsEarly checks that ParseReader reads only as far as
// the first error (plus one buffer), whatever follows.
func TestParseReaderStopsEarly(t *testing.T) {
	for _, src := range []string{"\x00", "[", "contiguous(1, int)\n)", "a\x01"} {
		r := &countingReader{r: &endless{s: src}}
		_, err := ParseReader("e", r)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %v", src, err)
		}
		if r.n > 1<<17 {
			t.Errorf("%q: read %d bytes before failing (%v)", src, r.n, err)
		}
	}
}

// TestParseReaderLimit checks the source size limit, counted while reading,
// and that a source of exactly the limit is accepted.
func TestParseReaderLimit(t *testing.T) {
	r := &countingReader{r: &endless{s: "   # comment\n"}}
	_, err := ParseReader("big", r)
	if err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Fatalf("endless comments: %v", err)
	}
	if r.n > MaxSourceSize+1<<17 {
		t.Errorf("read %d bytes, limit %d", r.n, MaxSourceSize)
	}
	src := []byte("int")
	src = append(src, bytes.Repeat([]byte(" "), MaxSourceSize-len(src))...)
	if _, err := Parse("exact", src); err != nil {
		t.Errorf("a source of exactly MaxSourceSize bytes: %v", err)
	}
	if _, err := Parse("over", append(src, ' ')); err == nil {
		t.Errorf("a source of MaxSourceSize+1 bytes is accepted")
	}
	// one byte at a time and with errors from the reader
	ty, err := ParseReader("slow", iotest.OneByteReader(strings.NewReader("x = vector(2, 1, 3, int)\nx\n")))
	if err != nil || ty.Size() != 8 {
		t.Errorf("one byte at a time: %v", err)
	}
	_, err = ParseReader("broken", iotest.TimeoutReader(strings.NewReader(strings.Repeat(" ", 1<<17)+"int")))
	if err == nil || !strings.Contains(err.Error(), "read error") {
		t.Errorf("reader error: %v", err)
	}
}

// TestLongTokensAreCut checks that no error repeats a long token whole.
func TestLongTokensAreCut(t *testing.T) {
	long := strings.Repeat("q", 5000)
	for _, src := range []string{
		long,
		"contiguous(2, " + long[:1000] + ")",
		long[:1000] + "(2, int)",
		"contiguous(" + strings.Repeat("7", 5000) + ", int)",
		"vector(1, 1, 1, int, " + long[:1000] + "=3)",
		"subarray([1], [1], [0], " + long[:1000] + ", int)",
		"darray(1, 0, [4], [" + long[:1000] + "], [default], [1], C, int)",
		"darray(1, 0, [4], [block], [" + long[:1000] + "], [1], C, int)",
		"contiguous(1, int) " + long[:1000],
	} {
		_, err := Parse("f", []byte(src))
		if err == nil {
			t.Fatalf("%.40q: no error", src)
		}
		if len(err.Error()) > 200 {
			t.Errorf("%.40q: error of %d bytes: %.300s", src, len(err.Error()), err)
		}
	}
}

// TestMaxCalls checks the limit on constructor calls.
func TestMaxCalls(t *testing.T) {
	var b strings.Builder
	for i := range MaxCalls {
		fmt.Fprintf(&b, "a%d = dup(int)\n", i)
	}
	b.WriteString("dup(int)\n") // the file is accepted up to here
	_, err := Parse("many", []byte(b.String()))
	want := fmt.Sprintf("many:%d:1: more than %d constructor calls in one file", MaxCalls+1, MaxCalls)
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestDepthLimitReported checks that the depth limit of package datatype,
// reached through chained bindings, is an *Error at the binding's call that
// unwraps to datatype.ErrTooDeep.
func TestDepthLimitReported(t *testing.T) {
	var b strings.Builder
	b.WriteString("t0 = int\n")
	for i := 1; i <= datatype.MaxDepth+5; i++ {
		fmt.Fprintf(&b, "t%d = contiguous(1, t%d)\n", i, i-1)
	}
	_, err := Parse("deep", []byte(b.String()))
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, datatype.ErrTooDeep) {
		t.Fatalf("error %v (%T)", err, err)
	}
	// t0 = int has depth 0, so t(MaxDepth+1), on line MaxDepth+2, fails
	if want := (Pos{datatype.MaxDepth + 2, len(fmt.Sprintf("t%d = ", datatype.MaxDepth+1)) + 1}); pe.Pos != want {
		t.Errorf("reported at %v: %v", pe.Pos, err)
	}
}
