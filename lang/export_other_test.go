package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/golden"
)

// TestExportGolden compares ExportC, ExportFortran and ExportPython of
// each testdata/export/*.ddt with its .c, .f90 and .py golden files (go
// test -run ExportGolden -update rewrites them). internal/conformance
// compiles and runs the exports with MPICH, Open MPI and mpi4py.
func TestExportGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/export/*.ddt")
	if err != nil || len(files) == 0 {
		t.Fatal("no golden inputs", err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ty, err := Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(name), ".ddt")
		for _, x := range []struct {
			ext string
			fn  func(*datatype.Type, string) (string, error)
		}{{".c", ExportC}, {".f90", ExportFortran}, {".py", ExportPython}} {
			got, err := x.fn(ty, base)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			golden.CheckString(t, strings.TrimSuffix(name, ".ddt")+x.ext, got)
		}
	}
}

func TestExportOtherErrors(t *testing.T) {
	i := datatype.Of(datatype.Int)
	big, _ := datatype.Contiguous(1<<31, i)
	if _, err := ExportFortran(big, "x"); err == nil || !strings.Contains(err.Error(), "count = 2147483648 does not fit") {
		t.Errorf("Fortran: %v", err)
	}
	if _, err := ExportPython(big, "x"); err == nil || !strings.Contains(err.Error(), "count = 2147483648 does not fit") {
		t.Errorf("Python: %v", err)
	}
	h, _ := datatype.HVector(2, 1, 1<<40, i)
	if s, err := ExportFortran(h, "x"); err != nil || !strings.Contains(s, "call MPI_Type_create_hvector(2, 1, 1099511627776_MPI_ADDRESS_KIND, MPI_INT, x)") {
		t.Errorf("Fortran hvector: %v\n%s", err, s)
	}
	if s, err := ExportPython(h, "x"); err != nil || !strings.Contains(s, "x = MPI.INT.Create_hvector(2, 1, 1099511627776)") {
		t.Errorf("Python hvector: %v\n%s", err, s)
	}
	for _, bad := range []string{"", "1x", "_x", "a-b", "mpi_x", "MPI_X", strings.Repeat("a", 47)} {
		if _, err := ExportFortran(i, bad); err == nil {
			t.Errorf("Fortran name %q accepted", bad)
		}
	}
	for _, bad := range []string{"", "1x", "def", "MPI", "t1", "a-b"} {
		if _, err := ExportPython(i, bad); err == nil {
			t.Errorf("Python name %q accepted", bad)
		}
	}
	if _, err := ExportFortran(nil, "x"); err == nil {
		t.Error("Fortran: nil type accepted")
	}
	if _, err := ExportPython(nil, "x"); err == nil {
		t.Error("Python: nil type accepted")
	}
	// a long list is assigned in pieces and long calls are continued
	disps := make([]int64, 100)
	for k := range disps {
		disps[k] = int64(k) * 1 << 33
	}
	hb, _ := datatype.HIndexedBlock(1, disps, i)
	s, err := ExportFortran(hb, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(s, "\n") {
		if len(line) > 132 {
			t.Errorf("line of %d characters: %s", len(line), line)
		}
	}
}
