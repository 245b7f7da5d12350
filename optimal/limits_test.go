package optimal

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// repeatReader repeats s forever and counts what it gave.
type repeatReader struct {
	s string
	i int
	n int64
}

func (r *repeatReader) Read(b []byte) (int, error) {
	for k := range b {
		b[k] = r.s[r.i%len(r.s)]
		r.i++
	}
	r.n += int64(len(b))
	return len(b), nil
}

// TestParseTypeMapLimits checks that ParseTypeMap refuses a map longer than
// MaxLen, or an input longer than MaxTypeMapBytes, as soon as it passes the
// limit, without reading the rest.
func TestParseTypeMapLimits(t *testing.T) {
	r := &repeatReader{s: "int 4\n"}
	_, err := ParseTypeMap(r)
	if !errors.Is(err, ErrMapTooLong) || !strings.Contains(err.Error(), "line 1048577") {
		t.Errorf("endless map: %v", err)
	}
	if r.n > 6*MaxMapLen+1<<20 {
		t.Errorf("read %d bytes for a map refused after %d lines", r.n, MaxMapLen+1)
	}
	r = &repeatReader{s: "# a comment line\n"}
	if _, err := ParseTypeMap(r); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("endless comments: %v", err)
	}
	if r.n > MaxTypeMapBytes+1<<20 {
		t.Errorf("read %d bytes, limit %d", r.n, MaxTypeMapBytes)
	}
	if _, err := ParseTypeMap(io.LimitReader(&repeatReader{s: "x"}, 2<<20)); err == nil || !strings.Contains(err.Error(), "longer than 1 MiB") {
		t.Errorf("long line: %v", err)
	}
	m := make(TypeMap, MaxLen+1)
	for i := range m {
		m[i] = Elem{"int", int64(4 * i)}
	}
	if _, _, err := Reconstruct(m, DefaultOptions()); !errors.Is(err, ErrTooLong) {
		t.Errorf("Reconstruct of %d elements: %v", len(m), err)
	}
	if _, err := ParseTypeMap(strings.NewReader(m[:MaxLen].String())); err != nil {
		t.Errorf("a map of MaxLen elements: %v", err)
	}
	if _, err := ParseTypeMap(strings.NewReader("int 0\n" + strings.Repeat("q", 100) + "- 0\n")); err == nil || len(err.Error()) > 100 {
		t.Errorf("long type name: %v", err)
	}
}
