//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
#include "zconstruct.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
)

// errMishandled is the error of a type the MPI libraries are known to
// mishandle; it is sent packed.
var errMishandled = errors.New("mpi: a type MPI libraries mishandle")

// pairCNames maps the .ddt names of the predefined pair types to MPI's.
var pairCNames = map[string]string{
	"float_int": "MPI_FLOAT_INT", "double_int": "MPI_DOUBLE_INT", "long_int": "MPI_LONG_INT",
	"two_int": "MPI_2INT", "short_int": "MPI_SHORT_INT", "long_double_int": "MPI_LONG_DOUBLE_INT",
}

// typeCache holds the native datatypes built so far, one per *datatype.Type.
// It is guarded by the world's mutex.
type typeCache struct {
	m        map[*datatype.Type]C.MPI_Datatype
	failed   map[*datatype.Type]error
	verified map[*datatype.Type]error // top-level types checked against ddt
	directs  map[*datatype.Type]*directType
	derived  []C.MPI_Datatype // to free at Finalize
}

// native returns the committed MPI datatype for t, building it (and its
// subtypes) on first use. The datatype has t's size, lower bound and
// extent: where MPI's rules differ from ddt's (MPICH's struct padding,
// for instance), it is resized to ddt's bounds.
func (c *typeCache) native(t *datatype.Type) (C.MPI_Datatype, error) {
	if nt, ok := c.m[t]; ok {
		return nt, nil
	}
	if err, ok := c.failed[t]; ok {
		return nil0(), err
	}
	if nonPositiveExtent(t) {
		err := fmt.Errorf("%w: %s has a part with data and an extent <= 0", errMishandled, t)
		c.failed[t] = err
		return nil0(), err
	}
	nt, err := c.build(t)
	if err != nil {
		c.failed[t] = err
		return nil0(), err
	}
	c.m[t] = nt
	return nt, nil
}

func nil0() C.MPI_Datatype { var z C.MPI_Datatype; return z }

func (c *typeCache) build(t *datatype.Type) (C.MPI_Datatype, error) {
	if t.IsPredefined() {
		name := ""
		if b, ok := t.Basic(); ok {
			name = b.CName()
		} else {
			name = pairCNames[t.Name()]
		}
		cs := C.CString(name)
		defer C.free(unsafe.Pointer(cs))
		nt := C.ddt_named(cs)
		if C.ddt_is_null(nt) != 0 {
			return nil0(), fmt.Errorf("mpi: no MPI datatype for %s", t.Name())
		}
		return nt, nil
	}
	nt, err := c.construct(t)
	if err != nil && t.Lower() != nil && t.Combiner() != datatype.CombinerDup {
		// subarray, darray: build the equivalent simpler type instead
		var lerr error
		if nt, lerr = c.native(t.Lower()); lerr != nil {
			return nil0(), err
		}
		nt, err = c.dup(nt)
	}
	if err != nil {
		return nil0(), err
	}
	return c.finish(t, nt)
}

// checked is native for types that messages use: it also verifies the
// datatype against ddt once (see verify).
func (c *typeCache) checked(t *datatype.Type) (C.MPI_Datatype, error) {
	nt, err := c.native(t)
	if err != nil {
		return nt, err
	}
	verr, ok := c.verified[t]
	if !ok {
		verr = verify(t, nt)
		c.verified[t] = verr
	}
	return nt, verr
}

// finish checks nt against t, resizes it to t's bounds if MPI's differ,
// commits it and records it for freeing.
func (c *typeCache) finish(t *datatype.Type, nt C.MPI_Datatype) (C.MPI_Datatype, error) {
	c.derived = append(c.derived, nt)
	var size, lb, ext C.longlong
	if err := check("MPI_Type_get_extent_x", C.ddt_type_info(nt, &size, &lb, &ext)); err != nil {
		return nil0(), err
	}
	if int64(size) != t.Size() {
		return nil0(), fmt.Errorf("mpi: MPI gives %s a size of %d bytes, ddt %d", t, size, t.Size())
	}
	if int64(lb) != t.LB() || int64(ext) != t.Extent() {
		var r C.MPI_Datatype
		if err := check("MPI_Type_create_resized", C.MPI_Type_create_resized(nt, C.MPI_Aint(t.LB()), C.MPI_Aint(t.Extent()), &r)); err != nil {
			return nil0(), err
		}
		c.derived = append(c.derived, r)
		nt = r
	}
	if err := check("MPI_Type_commit", C.MPI_Type_commit(&nt)); err != nil {
		return nil0(), err
	}
	return nt, nil
}

func (c *typeCache) dup(old C.MPI_Datatype) (C.MPI_Datatype, error) {
	var nt C.MPI_Datatype
	return nt, check("MPI_Type_dup", C.MPI_Type_dup(old, &nt))
}

// cint converts the values of xs to C ints, failing if one does not fit.
func cint(what string, xs ...int64) ([]C.int, error) {
	out := make([]C.int, len(xs))
	for i, x := range xs {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("mpi: %s %d does not fit MPI's int", what, x)
		}
		out[i] = C.int(x)
	}
	return out, nil
}

func caint(xs []int64) []C.MPI_Aint {
	out := make([]C.MPI_Aint, len(xs))
	for i, x := range xs {
		out[i] = C.MPI_Aint(x)
	}
	return out
}

// ptr returns a pointer to the first element of s, or nil if s is empty.
func ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// construct builds t with the MPI constructor of its combiner, from its
// contents, exactly as given: zconstruct.h, generated from datatype's
// constructor table, calls the constructor.
func (c *typeCache) construct(t *datatype.Type) (C.MPI_Datatype, error) {
	k := t.Combiner().Constructor()
	if k == nil || k.C == "" {
		return nil0(), fmt.Errorf("mpi: no MPI constructor for %v", t.Combiner())
	}
	if t.Combiner() == datatype.CombinerDarray {
		// MPI implementations disagree on corner cases of darray; its
		// lowered form is exact.
		return nil0(), fmt.Errorf("mpi: darray is built from its lowered form")
	}
	ct := t.Contents()
	olds := make([]C.MPI_Datatype, len(ct.Types))
	for i, s := range ct.Types {
		var err error
		if olds[i], err = c.native(s); err != nil {
			return nil0(), err
		}
	}
	// the classic constructors take every integer as a C int
	ints, err := cint(k.C+" argument", ct.Ints...)
	if err != nil {
		return nil0(), err
	}
	var nt C.MPI_Datatype
	rc := C.ddt_construct_native(C.int(t.Combiner()), ptr(ints), ptr(caint(ct.Addrs)), ptr(olds), &nt)
	if rc == -1 {
		return nil0(), fmt.Errorf("mpi: no MPI constructor for %v", t.Combiner())
	}
	return nt, check(k.C, rc)
}

// free frees every derived datatype made.
func (c *typeCache) free() {
	for i := range c.derived {
		C.MPI_Type_free(&c.derived[i])
	}
	c.derived = nil
	clear(c.m)
	clear(c.failed)
	clear(c.verified)
	clear(c.directs)
}

// nonPositiveExtent reports whether t or a type in its tree holds data but
// has an extent of zero or less. MPICH 4.0 corrupts memory packing such
// types and Open MPI 4.1 mis-packs them; they are sent packed.
func nonPositiveExtent(t *datatype.Type) bool {
	if t.Size() > 0 && t.Extent() <= 0 {
		return true
	}
	for _, s := range t.Args().Types {
		if nonPositiveExtent(s) {
			return true
		}
	}
	if l := t.Lower(); l != nil {
		return nonPositiveExtent(l)
	}
	return false
}
