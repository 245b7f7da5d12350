package ddt_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// TestFirstUseConcurrent packs, unpacks and queries a committed type from
// several goroutines at once before it has moved any data, so that the
// engine and signature built on first use are built concurrently (run
// with -race, as CI does).
func TestFirstUseConcurrent(t *testing.T) {
	v, err := datatype.Vector(64, 3, 5, datatype.Of(datatype.Int))
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, v.Extent()+64)
	for i := range src {
		src[i] = byte(i * 7)
	}
	ref, err := ddt.CommitWith(v, ddt.Options{Engine: ddt.Reference})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, v.Size())
	if _, err := ref.Pack(want, src, 0, 1); err != nil {
		t.Fatal(err)
	}
	for _, e := range []ddt.Engine{ddt.Auto, ddt.Compiled, ddt.Interpreter, ddt.Reference} {
		c, err := ddt.CommitWith(v, ddt.Options{Engine: e})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				switch g % 4 {
				case 1:
					_ = c.Engine()
				case 2:
					_ = c.Plan()
				case 3:
					if s := c.Signature(); s.N != v.Elements() {
						t.Errorf("%v: signature of %d elements, want %d", e, s.N, v.Elements())
					}
				}
				got := make([]byte, v.Size())
				if _, err := c.Pack(got, src, 0, 1); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%v: concurrent first pack differs from the reference engine", e)
				}
			})
		}
		wg.Wait()
		if e != ddt.Auto && c.Engine() != e {
			t.Errorf("Engine() = %v, want %v", c.Engine(), e)
		}
	}
}
