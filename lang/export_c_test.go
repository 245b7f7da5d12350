package lang

import (
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

func TestExportCErrors(t *testing.T) {
	i := datatype.Of(datatype.Int)
	big, err := datatype.Contiguous(1<<31, i)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExportC(big, "x"); err == nil || err.Error() != "export C: contiguous count = 2147483648 does not fit in a C int" {
		t.Errorf("got %v", err)
	}
	// byte displacements are MPI_Aint and may be large
	h, err := datatype.HVector(2, 1, 1<<40, i)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ExportC(h, "x"); err != nil || !strings.Contains(s, "MPI_Type_create_hvector(2, 1, 1099511627776L, MPI_INT, &x);") {
		t.Errorf("got %v\n%s", err, s)
	}
	ix, err := datatype.Indexed([]int64{1}, []int64{-1 << 31}, i)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExportC(ix, "x"); err != nil {
		t.Errorf("displacement -2^31 fits in int: %v", err)
	}
	ix, err = datatype.Indexed([]int64{1}, []int64{-1<<31 - 1}, i)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExportC(ix, "x"); err == nil || !strings.Contains(err.Error(), "indexed displacements[0] = -2147483649 does not fit") {
		t.Errorf("got %v", err)
	}
	for _, bad := range []string{"", "1x", "int", "a-b", "MPI_X", "x y"} {
		if _, err := ExportC(i, bad); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if _, err := ExportC(nil, "x"); err == nil {
		t.Error("nil type accepted")
	}
}
