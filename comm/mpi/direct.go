//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/ddtlab/ddt"
)

// Direct (zero-copy) data messages. A type whose data lies in long runs
// is moved by MPI straight from and into the user's memory, through an
// MPI datatype built from ddt's description of one instance
// (ddt.Committed.Segments: the merged runs in packed order): an hvector
// when the runs have one length and one stride, else an hindexed, of the
// widest unsigned integer that divides every run, offset and the type's
// lb and extent, resized to the type's lb and extent. Such a datatype
// moves exactly the bytes of the packed stream in their order, so the
// wire is the same as a staged data message's: sender and receiver choose
// independently, and the header protocol (signature, truncation, faults)
// is untouched.

// DefaultDirect is the default Options.Direct: the average run length in
// bytes from which data messages go directly.
const DefaultDirect = 512

// maxDirectRuns bounds the runs of a direct datatype (its hindexed
// arrays): a type with more runs per instance is staged.
const maxDirectRuns = 1 << 20

// directType is what the type cache knows of a type's direct datatype.
type directType struct {
	avg    int64          // the average run length of one instance; 0: never direct
	contig bool           // one run filling the extent: instances merge into one run
	built  bool           // nt was tried
	nt     C.MPI_Datatype // the committed direct datatype, if ok
	ok     bool
}

// unitNames are the unit datatypes by size.
var unitNames = map[int64]string{8: "MPI_UINT64_T", 4: "MPI_UINT32_T", 2: "MPI_UINT16_T", 1: "MPI_BYTE"}

// directStats walks the runs of one instance of t and returns their
// number, whether they are regular (one length, one stride) and the
// greatest power of two up to 8 dividing every run, offset, lb and extent;
// contig reports one run that fills the extent. It stops counting past
// limit runs.
func directStats(t *ddt.Committed, limit int64) (runs int64, regular bool, unit int64, contig bool) {
	unit = 8
	fit := func(x int64) {
		for unit > 1 && x%unit != 0 {
			unit /= 2
		}
	}
	fit(t.Type().LB())
	fit(t.Type().Extent())
	regular = true
	var len0, prev, stride int64
	for off, n := range t.Segments(1, 0) {
		if n == 0 {
			continue
		}
		fit(off)
		fit(n)
		switch runs {
		case 0:
			len0 = n
		case 1:
			stride = off - prev
		}
		if runs > 0 && (n != len0 || (runs > 1 && off-prev != stride)) {
			regular = false
		}
		prev = off
		if runs++; runs > limit {
			break
		}
	}
	contig = runs == 1 && len0 == t.Type().Extent()
	return runs, regular, unit, contig
}

// direct returns the direct datatype of t if the runs of count instances
// average at least threshold bytes (threshold < 0: never), building it on
// first use. w.mu is held.
func (c *typeCache) direct(t *ddt.Committed, count int64, threshold int) (C.MPI_Datatype, bool) {
	dt := t.Type()
	if threshold < 0 || dt.Size() == 0 {
		return nil0(), false
	}
	d, ok := c.directs[dt]
	if !ok {
		d = &directType{}
		c.directs[dt] = d
		if runs, _, _, contig := directStats(t, maxDirectRuns); runs > 0 && runs <= maxDirectRuns {
			d.avg, d.contig = dt.Size()/runs, contig
		}
	}
	avg := d.avg
	if d.contig {
		avg = dt.Size() * count
	}
	if avg == 0 || avg < int64(threshold) {
		return nil0(), false
	}
	if !d.built {
		d.built = true
		d.nt, d.ok = c.buildDirect(t)
	}
	return d.nt, d.ok
}

// buildDirect builds, commits and verifies against ddt the direct
// datatype of t; ok is false if MPI refuses it or packs it differently.
func (c *typeCache) buildDirect(t *ddt.Committed) (C.MPI_Datatype, bool) {
	dt := t.Type()
	runs, regular, unit, _ := directStats(t, maxDirectRuns)
	cs := C.CString(unitNames[unit])
	u := C.ddt_named(cs)
	C.free(unsafe.Pointer(cs))
	var offs []int64
	var lens []int64
	for off, n := range t.Segments(1, 0) {
		if n == 0 {
			continue
		}
		if n/unit > math.MaxInt32 {
			return nil0(), false
		}
		offs = append(offs, off)
		lens = append(lens, n/unit)
		if regular && len(offs) == 2 {
			break
		}
	}
	var nt C.MPI_Datatype
	if regular {
		var stride int64
		if len(offs) > 1 {
			stride = offs[1] - offs[0]
		}
		var v C.MPI_Datatype
		if check("MPI_Type_create_hvector", C.MPI_Type_create_hvector(C.int(runs), C.int(lens[0]), C.MPI_Aint(stride), u, &v)) != nil {
			return nil0(), false
		}
		nt = v
		if offs[0] != 0 {
			c.derived = append(c.derived, v)
			one := []C.int{1}
			disp := []C.MPI_Aint{C.MPI_Aint(offs[0])}
			if check("MPI_Type_create_hindexed", C.MPI_Type_create_hindexed(1, &one[0], &disp[0], v, &nt)) != nil {
				return nil0(), false
			}
		}
	} else {
		bl, err := cint("run", lens...)
		if err != nil {
			return nil0(), false
		}
		if check("MPI_Type_create_hindexed", C.MPI_Type_create_hindexed(C.int(len(bl)), &bl[0], &caint(offs)[0], u, &nt)) != nil {
			return nil0(), false
		}
	}
	nt, err := c.finish(dt, nt) // records nt for freeing
	if err != nil {
		return nil0(), false
	}
	if verify(dt, nt) != nil {
		return nil0(), false
	}
	return nt, true
}

// directFits returns whether a message of n packed bytes may be received
// directly into buf: only a message that fills it (a shorter one, a
// prefix of its signature, is staged; MPI could refuse a partial unit).
func directFits(t *ddt.Committed, count, n int64) bool {
	size, err := t.PackSize(count)
	return err == nil && size == n && count <= math.MaxInt32
}
