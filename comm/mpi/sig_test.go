//go:build mpi

package mpi

import (
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// TestSignatureOncePerType: a send computes its message's signature
// (comm.SignatureOf) and a receive checks it (Signature.Check) from the
// signature and signature tree the committed type carries, so after the
// first message of a type neither walks the type nor builds a tree: no
// allocation per message.
func TestSignatureOncePerType(t *testing.T) {
	i32, f64 := datatype.Of(datatype.Int), datatype.Of(datatype.Double)
	inner, _ := datatype.Struct([]int64{1, 2}, []int64{0, 8}, []*datatype.Type{i32, f64})
	ty, _ := datatype.Struct([]int64{3, 1}, []int64{0, 200}, []*datatype.Type{inner, i32})
	ct, err := ddt.Commit(ty)
	if err != nil {
		t.Fatal(err)
	}
	first := ct.SignatureTree()
	msg := func() {
		s, err := comm.SignatureOf(ct, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(ct, 7); err != nil {
			t.Fatal(err)
		}
	}
	msg()
	if n := testing.AllocsPerRun(100, msg); n != 0 {
		t.Errorf("%v allocations per send and receive of a committed type, want 0", n)
	}
	if ct.SignatureTree() != first {
		t.Error("the signature tree was rebuilt")
	}
}
