//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// errMisPacks is the error of a type the MPI library packs wrongly.
var errMisPacks = errors.New("mpi: the MPI library packs the type differently from ddt")

// verifySpan bounds the buffer a native datatype is verified on.
const verifySpan = 16 << 20

// verify packs verifyCount instances of t with MPI_Pack and with ddt, on a
// buffer of distinct bytes, and reports whether they agree (up to the
// padding bytes of x87 long doubles, which MPICH zeroes). MPI libraries
// have bugs with overlapping blocks, zero extents and zero-length blocks
// that move bounds; a type they mis-pack is sent packed instead. Types
// that span more than verifySpan bytes are trusted. w.mu is held.
func verify(t *datatype.Type, nt C.MPI_Datatype) error {
	const count = 3
	lo, hi, err := t.Span(count)
	if err != nil || hi-lo > verifySpan || t.Size() == 0 {
		return nil
	}
	ct, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Reference})
	if err != nil {
		return err
	}
	src := make([]byte, hi-lo)
	for k := range src {
		src[k] = byte(k*131 + k>>8*17 + k>>16*7 + 1)
	}
	size := count * t.Size()
	want := make([]byte, size)
	if _, err := ct.Pack(want, src, -lo, count); err != nil {
		return err
	}
	cp := C.malloc(C.size_t(size))
	defer C.free(cp)
	got := unsafe.Slice((*byte)(cp), size)
	base, pn := pinned(src)
	defer pn.Unpin()
	var pos C.int
	if err := check("MPI_Pack", C.ddt_pack(base, C.longlong(-lo), count, nt, cp, C.int(size), &pos)); err != nil {
		return err
	}
	maskLongDoublePadding(t, count, got, want)
	if int64(pos) != size || !bytes.Equal(got, want) {
		return fmt.Errorf("%w: %s", errMisPacks, t)
	}
	return nil
}

// maskLongDoublePadding zeroes, in packed streams a and b of count
// instances of t, the 6 padding bytes of every x87 long double.
func maskLongDoublePadding(t *datatype.Type, count int64, a, b []byte) {
	var pos int64
	t.Walk(count, func(e datatype.Basic, _ int64) bool {
		switch e {
		case datatype.LongDouble:
			clear(a[pos+10 : pos+16])
			clear(b[pos+10 : pos+16])
		case datatype.CLongDoubleComplex:
			clear(a[pos+10 : pos+16])
			clear(b[pos+10 : pos+16])
			clear(a[pos+26 : pos+32])
			clear(b[pos+26 : pos+32])
		}
		pos += e.Size()
		return true
	})
}
