package datatype

import "slices"

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
	stride := ext // bytes between consecutive indices of dimension dim(j)
	var disp int64
	t, err := Contiguous(subsizes[dim(0)], old)
	if err != nil {
		return nil, err
	}
	disp = k.mul(starts[dim(0)], stride)
	for j := 1; j < n; j++ {
		stride = k.mul(stride, sizes[dim(j-1)])
		disp = k.add(disp, k.mul(starts[dim(j)], stride))
		if k.err != nil {
			break
		}
		if t, err = HVector(subsizes[dim(j)], 1, stride, t); err != nil {
			return nil, err
		}
	}
	total := k.mul(stride, sizes[dim(n-1)])
	if k.err != nil {
		return nil, overflowErr(c, "array extent")
	}
	if t, err = Struct([]int64{1}, []int64{disp}, []*Type{t}); err != nil {
		return nil, err
	}
	if t, err = Resized(t, 0, total); err != nil {
		return nil, err
	}
	r := t.shallow(c, old)
	r.sizes, r.subsizes, r.starts, r.order = slices.Clone(sizes), slices.Clone(subsizes), slices.Clone(starts), order
	return r, nil
}

// shallow returns a type of combiner c with t's layout whose lower form is t.
func (t *Type) shallow(c Combiner, old *Type) *Type {
	r := &Type{combiner: c, types: []*Type{old}, lower: t, depth: old.depth + 1}
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
				if k.mul(dargs[i], psizes[i]) < gsizes[i] && k.err == nil {
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
	if k.err != nil || procs != size {
		return nil, argErr(c, "the process grid has %d processes, not size %d", procs, size)
	}
	// coordinates of rank in the row-major process grid
	coords := make([]int64, n)
	r := rank
	for i := n - 1; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	dim := func(j int) int {
		if order == OrderC {
			return n - 1 - j
		}
		return j
	}
	ext := old.Extent()
	stride := ext
	t := old
	for j := range n {
		d := dim(j)
		var err error
		if j > 0 {
			if t, err = Resized(t, 0, stride); err != nil {
				return nil, err
			}
		}
		if t, err = darrayDim(t, stride, gsizes[d], distribs[d], dargs[d], psizes[d], coords[d]); err != nil {
			return nil, err
		}
		stride = k.mul(stride, gsizes[d])
	}
	if k.err != nil {
		return nil, overflowErr(c, "array extent")
	}
	t, err := Resized(t, 0, stride)
	if err != nil {
		return nil, err
	}
	res := t.shallow(c, old)
	res.nprocs, res.rank, res.order = size, rank, order
	res.gsizes, res.dargs, res.psizes = slices.Clone(gsizes), slices.Clone(dargs), slices.Clone(psizes)
	res.distribs = slices.Clone(distribs)
	return res, nil
}

// maxRuns bounds the runs of one darray dimension listed one by one; a
// cyclic dimension with more is built as a vector of its whole cycles and
// a remainder, so memory stays bounded by the arguments, not gsizes.
const maxRuns = 1024

// darrayDim returns the indices of one dimension that process coordinate p
// owns, in increasing order, as a type over t (one instance per index,
// stride bytes apart).
func darrayDim(t *Type, stride, g int64, dist Distrib, darg, psize, p int64) (*Type, error) {
	var k calc
	b := darg
	switch {
	case dist == DistributeNone:
		return HIndexed([]int64{g}, []int64{0}, t)
	case dist == DistributeBlock:
		if b == DefaultDarg {
			b = (g + psize - 1) / psize
		}
		lo := k.mul(p, b)
		if k.err != nil || lo >= g {
			return HIndexed(nil, nil, t)
		}
		hi := min(lo+b, g)
		return HIndexed([]int64{hi - lo}, []int64{k.mul(lo, stride)}, t)
	}
	if b == DefaultDarg {
		b = 1
	}
	first := k.mul(p, b)
	period := k.mul(b, psize)
	if k.err != nil || first >= g {
		return HIndexed(nil, nil, t)
	}
	span := g - first
	full, rem := span/period, min(span%period, b) // whole cycles, and a last partial block
	if full+1 <= maxRuns {
		var lens, starts []int64
		for i := range full {
			lens = append(lens, b)
			starts = append(starts, k.mul(first+i*period, stride))
		}
		if rem > 0 {
			lens = append(lens, rem)
			starts = append(starts, k.mul(first+full*period, stride))
		}
		if k.err != nil {
			return nil, overflowErr(CombinerDarray, "displacement")
		}
		return HIndexed(lens, starts, t)
	}
	pstride := k.mul(period, stride)
	v, err := HVector(full, b, pstride, t)
	if err != nil {
		return nil, err
	}
	if rem > 0 {
		if v, err = Struct([]int64{1, rem}, []int64{0, k.mul(full, pstride)}, []*Type{v, t}); err != nil {
			return nil, err
		}
	}
	if k.err != nil {
		return nil, overflowErr(CombinerDarray, "displacement")
	}
	return HIndexedBlock(1, []int64{k.mul(first, stride)}, v)
}
