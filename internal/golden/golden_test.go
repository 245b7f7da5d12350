package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.fatal = true
}
func (r *recorder) Fatal(args ...any) {
	r.errs = append(r.errs, fmt.Sprint(args...))
	r.fatal = true
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("one\ntwo\n"))
	if len(r.errs) != 0 {
		t.Fatalf("equal output reported: %v", r.errs)
	}
	Check(r, path, []byte("one\nthree\n"))
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], `line 2: want "two", got "three"`) || !strings.Contains(r.errs[0], "-update") {
		t.Fatalf("a different line: %v", r.errs)
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(dir, "missing.golden"), nil)
	if !r.fatal {
		t.Fatal("a missing golden file did not stop the test")
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "b.golden")
	*update = true
	defer func() { *update = false }()
	r := &recorder{TB: t}
	CheckString(r, path, "new\n")
	if got, err := os.ReadFile(path); err != nil || string(got) != "new\n" || len(r.errs) != 0 {
		t.Fatalf("-update wrote %q, %v, %v", got, err, r.errs)
	}
}

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb", "a", `line 2: want "b", got end of file`},
		{"a", "a\nb", `line 2: want end of file, got "b"`},
		{"x", "y", `line 1: want "x", got "y"`},
	} {
		if d := firstDiff([]byte(c.want), []byte(c.got)); d != c.diff {
			t.Errorf("firstDiff(%q, %q) = %q, want %q", c.want, c.got, d, c.diff)
		}
	}
}
