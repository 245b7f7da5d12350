// Package golden is the one golden-file harness of ddt's tests: Check
// compares what a test produced with a file under testdata, and the -update
// flag of go test rewrites the files instead (go test ./pkg -run Test
// -update), so that a change of output is reviewed as a diff of testdata.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata instead of comparing with them")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the golden file path. With -update it writes got
// to path (creating its directory) instead. A difference is reported with
// t.Errorf, naming the file, the first line that differs and how to
// rewrite the file; a missing file stops the test.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it): %s\ngot:\n%s", path, firstDiff(want, got), got)
	}
}

// CheckString is Check for a string.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// firstDiff describes the first line on which want and got differ.
func firstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		switch {
		case i >= len(w):
			return fmt.Sprintf("line %d: want end of file, got %q", i+1, gl)
		case i >= len(g):
			return fmt.Sprintf("line %d: want %q, got end of file", i+1, wl)
		case !bytes.Equal(wl, gl):
			return fmt.Sprintf("line %d: want %q, got %q", i+1, wl, gl)
		}
	}
	return "same lines" // unreachable for unequal inputs
}
