package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestGolden runs show and typemap --count 2 on every testdata/golden/*.ddt
// file (one per constructor and MPICH edge case) and compares with the
// .golden file beside it. The size, lb, extent, true_lb and true_extent in
// these files were checked against MPICH 4.0.2 (MPI_Type_size_x,
// MPI_Type_get_extent, MPI_Type_get_true_extent of the exported C).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.ddt")
	if len(files) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, f := range files {
		var b strings.Builder
		for _, args := range [][]string{{"show", f}, {"typemap", f, "--count", "2"}} {
			out, errs, st := cli(t, "", args...)
			if st != 0 {
				t.Fatalf("%v: %s", args, errs)
			}
			b.WriteString("$ ddt " + strings.Join(args, " ") + "\n" + out)
		}
		golden := strings.TrimSuffix(f, ".ddt") + ".golden"
		if *update {
			if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if b.String() != string(want) {
			t.Errorf("%s: output differs from %s:\n%s", f, golden, b.String())
		}
	}
}
