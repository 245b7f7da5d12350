package datatype

import (
	"fmt"
	"slices"
	"strconv"
)

// Subarray is MPI_Type_create_subarray: the subsizes block at starts of an
// array of sizes elements of old, in C or Fortran order. Like MPI, the
// result is resized to lb 0 and the extent of the whole array.
func Subarray(sizes, subsizes, starts []int64, order Order, old *Type) (*Type, error) {
	const c = CombinerSubarray
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	n := len(sizes)
	if n == 0 {
		return nil, argErr(c, "no dimensions")
	}
	if len(subsizes) != n || len(starts) != n {
		return nil, argErr(c, "%d sizes, %d subsizes and %d starts differ in length", n, len(subsizes), len(starts))
	}
	if order != OrderC && order != OrderFortran {
		return nil, argErr(c, "bad order %d", order)
	}
	for i := range n {
		switch {
		case sizes[i] <= 0:
			return nil, argErr(c, "sizes[%d] = %d is not positive", i, sizes[i])
		case subsizes[i] <= 0:
			return nil, argErr(c, "subsizes[%d] = %d is not positive", i, subsizes[i])
		case subsizes[i] > sizes[i]:
			return nil, argErr(c, "subsizes[%d] = %d exceeds sizes[%d] = %d", i, subsizes[i], i, sizes[i])
		case starts[i] < 0 || starts[i] > sizes[i]-subsizes[i]:
			return nil, argErr(c, "starts[%d] = %d is outside [0, %d]", i, starts[i], sizes[i]-subsizes[i])
		}
	}
	// dims from fastest to slowest
	dim := func(j int) int {
		if order == OrderC {
			return n - 1 - j
		}
		return j
	}
	var k calc
	ext := old.Extent()
	args := func() string {
		return "sizes=" + list(sizes) + ", subsizes=" + list(subsizes) + ", starts=" + list(starts) +
			", extent(oldtype)=" + strconv.FormatInt(ext, 10)
	}
	stride := ext // bytes between consecutive indices of dimension dim(j)
	var disp int64
	// the lower form's types, in one allocation: a contiguous, n-1
	// hvectors, an hindexed_block, a resized and the subarray itself
	ar := &arena{ts: make([]Type, n+3)}
	// the lists kept (sizes, subsizes, starts and the block's displacement)
	// and the extra part holding them, in one allocation for up to 4
	// dimensions
	var x *extra
	var buf []int64
	if n <= 4 {
		xb := new(struct {
			x extra
			b [3*4 + 1]int64
		})
		x, buf = &xb.x, xb.b[:3*n+1]
	} else {
		x, buf = new(extra), make([]int64, 3*n+1)
	}
	t, err := contiguous(ar, subsizes[dim(0)], old)
	if err != nil {
		return nil, lowerErr(c, err, args())
	}
	disp = k.mul(starts[dim(0)], stride)
	for j := 1; j < n; j++ {
		stride = k.mul(stride, sizes[dim(j-1)])
		disp = k.add(disp, k.mul(starts[dim(j)], stride))
		if k.err != nil {
			break
		}
		if t, err = vector(ar, CombinerHVector, subsizes[dim(j)], 1, stride, t); err != nil {
			return nil, lowerErr(c, err, args())
		}
	}
	total := k.mul(stride, sizes[dim(n-1)])
	if k.err != nil {
		return nil, overflowErr(c, "array extent", args())
	}
	if disp != 0 {
		// the block at its displacement (MPICH places it with a struct of
		// one block; one hindexed_block has the same type map and bounds,
		// and no struct padding applies to a single member)
		buf[3*n] = disp
		d := buf[3*n : 3*n+1 : 3*n+1]
		if t, err = indexedBlock(ar, CombinerHIndexedBlock, 1, d, d, t); err != nil {
			return nil, lowerErr(c, err, args())
		}
	}
	if t, err = resized(ar, t, 0, total); err != nil {
		return nil, lowerErr(c, err, args())
	}
	r := t.shallow(ar, c, old)
	r.order = order
	copy(buf, sizes)
	copy(buf[n:], subsizes)
	copy(buf[2*n:], starts)
	x.sizes, x.subsizes, x.starts = buf[:n:n], buf[n:2*n:2*n], buf[2*n:3*n:3*n]
	r.x = x
	return r, nil
}

// shallow returns a type of combiner c with t's layout whose lower form is t.
func (t *Type) shallow(ar *arena, c Combiner, old *Type) *Type {
	r := ar.alloc()
	r.combiner, r.lower, r.depth, r.expanded = c, t, old.depth+1, addExpanded(1, t.expanded)
	r.setOld(old)
	r.size, r.lb, r.ub, r.trueLB, r.trueUB = t.size, t.lb, t.ub, t.trueLB, t.trueUB
	r.align, r.elements, r.dataLB, r.dataUB, r.contig = t.align, t.elements, t.dataLB, t.dataUB, t.contig
	return r
}

// Darray is MPI_Type_create_darray: the part of a gsizes array of old
// distributed over a psizes process grid (row-major ranks) that process
// rank of size owns, per dimension block, cyclic or not distributed, with
// distribution arguments dargs (DefaultDarg for MPI's default). The result
// is resized to lb 0 and the extent of the whole array.
func Darray(size, rank int64, gsizes []int64, distribs []Distrib, dargs, psizes []int64, order Order, old *Type) (*Type, error) {
	const c = CombinerDarray
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	n := len(gsizes)
	if n == 0 {
		return nil, argErr(c, "no dimensions")
	}
	if len(distribs) != n || len(dargs) != n || len(psizes) != n {
		return nil, argErr(c, "%d gsizes, %d distribs, %d dargs and %d psizes differ in length",
			n, len(distribs), len(dargs), len(psizes))
	}
	if size <= 0 {
		return nil, argErr(c, "size %d is not positive", size)
	}
	if rank < 0 || rank >= size {
		return nil, argErr(c, "rank %d is outside [0, %d)", rank, size)
	}
	if order != OrderC && order != OrderFortran {
		return nil, argErr(c, "bad order %d", order)
	}
	var k calc
	procs := int64(1)
	for i := range n {
		if gsizes[i] <= 0 {
			return nil, argErr(c, "gsizes[%d] = %d is not positive", i, gsizes[i])
		}
		if psizes[i] <= 0 {
			return nil, argErr(c, "psizes[%d] = %d is not positive", i, psizes[i])
		}
		procs = k.mul(procs, psizes[i])
		switch distribs[i] {
		case DistributeNone:
			if psizes[i] != 1 {
				return nil, argErr(c, "psizes[%d] = %d must be 1 for distribution none", i, psizes[i])
			}
		case DistributeBlock:
			if dargs[i] != DefaultDarg {
				if dargs[i] <= 0 {
					return nil, argErr(c, "dargs[%d] = %d is not positive", i, dargs[i])
				}
				// (a product that overflows int64 covers any gsize)
				if prod, err := mul(dargs[i], psizes[i]); err == nil && prod < gsizes[i] {
					return nil, argErr(c, "dargs[%d] * psizes[%d] = %d is less than gsizes[%d] = %d",
						i, i, dargs[i]*psizes[i], i, gsizes[i])
				}
			}
		case DistributeCyclic:
			if dargs[i] != DefaultDarg && dargs[i] <= 0 {
				return nil, argErr(c, "dargs[%d] = %d is not positive", i, dargs[i])
			}
		default:
			return nil, argErr(c, "bad distribution %d", distribs[i])
		}
	}
	if k.err != nil {
		return nil, argErr(c, "the process grid psizes=%v has more than 2^63-1 processes, not size %d", psizes, size)
	}
	if procs != size {
		return nil, argErr(c, "the process grid has %d processes, not size %d", procs, size)
	}
	// coordinates of rank in the row-major process grid
	coords := make([]int64, n)
	r := rank
	for i := n - 1; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	// Build the type exactly as MPICH does, one block or cyclic type per
	// dimension (fastest first), each resized to the whole dimension, so
	// that bounds and true bounds come out the same.
	ext := old.Extent()
	args := func() string {
		return "gsizes=" + list(gsizes) + ", psizes=" + list(psizes) + ", extent(oldtype)=" + strconv.FormatInt(ext, 10)
	}
	t := old
	var err error
	var disp int64    // starting offset, in elements of old
	scale := int64(1) // elements of old per index step of the current dimension
	for j := range n {
		d := j
		if order == OrderC {
			d = n - 1 - j
		}
		if t, err = darrayDim(t, j == 0, ext, scale, gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], &disp); err != nil {
			return nil, err
		}
		scale = k.mul(scale, gsizes[d])
		if k.err != nil {
			return nil, overflowErr(c, "array extent", args())
		}
	}
	db, err := mul(disp, ext)
	if err != nil {
		return nil, overflowErr(c, "displacement", args())
	}
	if t, err = HIndexedBlock(1, []int64{db}, t); err != nil {
		return nil, lowerErr(c, err, args())
	}
	total, err := mul(scale, ext)
	if err != nil {
		return nil, overflowErr(c, "array extent", args())
	}
	if t, err = Resized(t, 0, total); err != nil {
		return nil, lowerErr(c, err, args())
	}
	res := t.shallow(nil, c, old)
	res.order = order
	res.x = &extra{nprocs: size, rank: rank, gsizes: slices.Clone(gsizes), dargs: slices.Clone(dargs),
		psizes: slices.Clone(psizes), distribs: slices.Clone(distribs)}
	return res, nil
}

// darrayDim builds the type of one darray dimension over t, the type of
// the faster dimensions, as MPICH's MPIR_Type_block and MPIR_Type_cyclic do;
// first is true for the fastest dimension, ext is the old type's extent and
// scale the number of old elements per index step. It adds this process's
// starting index times scale to *disp (except for a cyclic fastest
// dimension, whose start is built into the type). Its size is bounded by
// the arguments, never by gsizes.
func darrayDim(t *Type, first bool, ext, scale, g int64, dist Distrib, darg, np, p int64, disp *int64) (*Type, error) {
	const c = CombinerDarray
	args := func() string {
		return fmt.Sprintf("gsize=%d, darg=%d, psize=%d, extent(oldtype)=%d", g, darg, np, ext)
	}
	var k calc
	stride := k.mul(scale, ext) // bytes per index step
	if k.err != nil {
		return nil, overflowErr(c, "stride", args())
	}
	textent := t.Extent()
	var nt *Type
	var err error
	var st int64
	if dist == DistributeCyclic {
		b := darg
		if b == DefaultDarg {
			b = 1
		}
		var local int64 // indices this process owns
		if firstIdx, err := mul(p, b); err == nil && firstIdx <= g-1 {
			span := g - firstIdx
			if period, err := mul(np, b); err == nil {
				local = span/period*b + min(span%period, b)
			} else {
				local = min(span, b) // one block per process fits in the dimension at most
			}
		}
		cnt, rem := local/b, local%b
		cstride := k.mul(k.mul(np, b), stride)
		if k.err != nil {
			return nil, overflowErr(c, "stride", args())
		}
		if nt, err = HVector(cnt, b, cstride, t); err != nil {
			return nil, lowerErr(c, err, args())
		}
		if rem > 0 {
			if nt, err = Struct([]int64{1, rem}, []int64{0, k.mul(cnt, cstride)}, []*Type{nt, t}); err != nil {
				return nil, lowerErr(c, err, args())
			}
		}
		if first {
			if nt, err = HIndexedBlock(1, []int64{k.mul(k.mul(p, b), ext)}, nt); err != nil {
				return nil, lowerErr(c, err, args())
			}
			if nt, err = Resized(nt, 0, k.mul(ext, g)); err != nil {
				return nil, lowerErr(c, err, args())
			}
		} else if local > 0 {
			st = k.mul(p, b)
		}
	} else {
		b := darg
		if dist == DistributeNone || b == DefaultDarg {
			b = (g-1)/np + 1 // ceil(g/np) without overflow; g > 0
		}
		mysize := max(0, min(b, g-k.mul(b, p)))
		if first {
			nt, err = Contiguous(mysize, t)
		} else {
			nt, err = HVector(mysize, 1, stride, t)
		}
		if err != nil {
			return nil, lowerErr(c, err, args())
		}
		if mysize > 0 {
			st = k.mul(b, p)
		}
	}
	*disp = k.add(*disp, k.mul(st, scale))
	if nt, err = Resized(nt, 0, k.mul(g, textent)); err != nil {
		return nil, lowerErr(c, err, args())
	}
	if k.err != nil {
		return nil, overflowErr(c, "displacement", args())
	}
	return nt, nil
}

// list formats xs as fmt's %v does ([1 2 3]) without letting xs escape to
// the heap (the constructors' callers pass literal slices).
func list(xs []int64) string {
	b := []byte{'['}
	for i, x := range xs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(append(b, ']'))
}
