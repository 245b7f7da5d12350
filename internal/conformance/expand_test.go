package conformance

import "github.com/ddtlab/ddt/datatype"

// expandSubarrays returns t with every subarray replaced by its definition
// in MPI-4.1 §5.1.3 (a contiguous of the fastest dimension inside one
// hvector per further dimension, placed at the start displacement by a
// one-member struct and resized to lb 0 and the whole array's extent), and
// whether t had any. The two types have the same type map and bounds by the
// standard's definition, so an MPI that packs them differently contradicts
// itself; the conformance test uses this to tell MPICH's subarray bugs from
// ddt's.
func expandSubarrays(t *datatype.Type) (*datatype.Type, bool, error) {
	memo := map[*datatype.Type]*datatype.Type{}
	var exp func(t *datatype.Type) (*datatype.Type, error)
	exp = func(t *datatype.Type) (*datatype.Type, error) {
		if r, ok := memo[t]; ok {
			return r, nil
		}
		c := t.Contents()
		changed := false
		types := make([]*datatype.Type, len(c.Types))
		for i, k := range c.Types {
			e, err := exp(k)
			if err != nil {
				return nil, err
			}
			types[i] = e
			changed = changed || e != k
		}
		c.Types = types
		var r *datatype.Type
		var err error
		switch {
		case c.Combiner == datatype.CombinerSubarray:
			if r, err = subarrayByDefinition(c); r == nil && err == nil {
				r, err = datatype.Rebuild(c) // too many elements to list
			}
		case changed:
			r, err = datatype.Rebuild(c)
		default:
			r = t
		}
		if err != nil {
			return nil, err
		}
		memo[t] = r
		return r, nil
	}
	r, err := exp(t)
	return r, r != t, err
}

func subarrayByDefinition(c datatype.Contents) (*datatype.Type, error) {
	n := int(c.Ints[0])
	sizes, subsizes, starts := c.Ints[1:1+n], c.Ints[1+n:1+2*n], c.Ints[1+2*n:1+3*n]
	order := datatype.Order(c.Ints[1+3*n])
	old := c.Types[0]
	dim := func(j int) int { // dimensions from the slowest to the fastest
		if order == datatype.OrderC {
			return j
		}
		return n - 1 - j
	}
	// the displacement of every element of the block, in array order
	strides := make([]int64, n)
	total := old.Extent()
	for j := n - 1; j >= 0; j-- {
		strides[dim(j)] = total
		total *= sizes[dim(j)]
	}
	elems := int64(1)
	for _, s := range subsizes {
		if elems *= s; elems > 1<<16 {
			return nil, nil
		}
	}
	disps := []int64{0}
	for j := range n {
		d := dim(j)
		next := make([]int64, 0, len(disps)*int(subsizes[d]))
		for _, b := range disps {
			for k := range subsizes[d] {
				next = append(next, b+(starts[d]+k)*strides[d])
			}
		}
		disps = next
	}
	t, err := datatype.HIndexedBlock(1, disps, old)
	if err != nil {
		return nil, err
	}
	return datatype.Resized(t, 0, total)
}
