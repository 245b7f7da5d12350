package main

import (
	"strings"
	"testing"
)

func TestExportLanguages(t *testing.T) {
	for lng, want := range map[string]string{
		"c":       "MPI_Type_vector(3, 1, 2, MPI_INT, &v);",
		"fortran": "call MPI_Type_vector(3, 1, 2, MPI_INT, v)",
		"python":  "v = MPI.INT.Create_vector(3, 1, 2)",
	} {
		out, errs, st := cli(t, "vector(3, 1, 2, int)\n", "export", "--lang", lng, "--name", "v", "-")
		if st != 0 || !strings.Contains(out, want) {
			t.Errorf("--lang %s: status %d %s\n%s", lng, st, errs, out)
		}
	}
	if _, errs, st := cli(t, "int\n", "export", "--lang", "cobol", "-"); st == 0 || !strings.Contains(errs, "cobol") {
		t.Errorf("--lang cobol: status %d %q", st, errs)
	}
}
