package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/internal/golden"
)

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
		golden.CheckString(t, strings.TrimSuffix(f, ".ddt")+".golden", b.String())
	}
}

// TestGoldenErrors runs show on every testdata/errors/*.ddt file, each
// wrong in one way, and compares the error line and exit status with
// testdata/errors/errors.golden: one short line naming the file, line,
// column and the problem.
func TestGoldenErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.ddt")
	if len(files) == 0 {
		t.Fatal("no inputs")
	}
	var b strings.Builder
	for _, f := range files {
		out, errs, st := cli(t, "", "show", f)
		if out != "" || st != 1 || strings.Count(errs, "\n") != 1 || len(errs) > 300 {
			t.Errorf("show %s: status %d, stdout %q, stderr %q: want status 1 and one short line", f, st, out, errs)
		}
		fmt.Fprintf(&b, "$ ddt show %s\n%sexit %d\n", f, errs, st)
	}
	golden.CheckString(t, "testdata/errors/errors.golden", b.String())
}
