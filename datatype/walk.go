package datatype

import "iter"

// Elem is one entry of a type map: a basic type at a byte displacement.
type Elem struct {
	Basic Basic
	Disp  int64
}

// Walk calls fn for each basic element of count instances of t, in type-map
// order, instance i shifted by i*Extent. It stops early and returns false if
// fn returns false. Pair types yield their two members. Nothing is visited
// (and Walk returns false) if the displacements of count instances would
// overflow int64 (see Span).
func (t *Type) Walk(count int64, fn func(b Basic, disp int64) bool) bool {
	if t.size == 0 {
		return true
	}
	if _, _, err := t.Span(count); err != nil {
		return false
	}
	ext := t.Extent()
	for i := range count {
		if !t.walk(i*ext, fn) {
			return false
		}
	}
	return true
}

// All is the type map of count instances as an iterator of (basic type,
// displacement) pairs; see Walk.
func (t *Type) All(count int64) iter.Seq2[Basic, int64] {
	return func(yield func(Basic, int64) bool) { t.Walk(count, yield) }
}

// TypeMap materializes the type map of count instances.
func (t *Type) TypeMap(count int64) []Elem {
	var m []Elem
	t.Walk(count, func(b Basic, d int64) bool {
		m = append(m, Elem{b, d})
		return true
	})
	return m
}

func (t *Type) walk(base int64, fn func(Basic, int64) bool) bool {
	if t.size == 0 {
		return true
	}
	switch t.combiner {
	case CombinerNamed:
		if t.isBasic {
			return fn(t.basic, base)
		}
		return fn(t.x.pair.a, base) && fn(t.x.pair.b, base+t.x.pair.offB)
	case CombinerDup, CombinerSubarray, CombinerDarray:
		return t.lower.walk(base, fn)
	case CombinerResized:
		return t.types[0].walk(base, fn)
	}
	return t.eachBlock(base, func(d, n int64, old *Type) bool {
		ext := old.Extent()
		for j := range n {
			if !old.walk(d+j*ext, fn) {
				return false
			}
		}
		return true
	})
}

// eachBlock calls fn for each block (displacement, number of old instances
// extent(old) apart, old) of a contiguous, vector, indexed or struct type
// that holds data, in order, with displacements relative to base. Blocks
// without data (no instances, or an old type of size 0) are skipped in
// O(1) whatever their count, so that walks cost O(description + data).
func (t *Type) eachBlock(base int64, fn func(disp, n int64, old *Type) bool) bool {
	switch t.combiner {
	case CombinerContiguous:
		if t.types[0].size == 0 {
			return true
		}
		return fn(base, t.count, t.types[0])
	case CombinerVector, CombinerHVector:
		old := t.types[0]
		if old.size == 0 || t.blocklength == 0 {
			return true
		}
		sb := t.stride
		if t.combiner == CombinerVector {
			sb *= old.Extent()
		}
		for i := range t.count {
			if !fn(base+i*sb, t.blocklength, old) {
				return false
			}
		}
	case CombinerIndexed, CombinerHIndexed, CombinerIndexedBlock, CombinerHIndexedBlock:
		old := t.types[0]
		if old.size == 0 {
			return true
		}
		scale := int64(1)
		if t.combiner == CombinerIndexed || t.combiner == CombinerIndexedBlock {
			scale = old.Extent()
		}
		bls, displs := t.lists()
		for i, d := range displs {
			bl := t.blocklength
			if bls != nil {
				bl = bls[i]
			}
			if bl > 0 && !fn(base+d*scale, bl, old) {
				return false
			}
		}
	case CombinerStruct:
		for i, d := range t.displs {
			if t.blocklengths[i] > 0 && t.types[i].size > 0 && !fn(base+d, t.blocklengths[i], t.types[i]) {
				return false
			}
		}
	}
	return true
}

// Blocks calls fn for each maximal contiguous run of bytes (offset, length)
// of count instances, in type-map order; adjacent runs are merged. It stops
// early and returns false if fn returns false, and visits nothing if the
// offsets of count instances would overflow int64.
func (t *Type) Blocks(count int64, fn func(off, n int64) bool) bool {
	if t.size == 0 {
		return true
	}
	if _, _, err := t.Span(count); err != nil {
		return false
	}
	var cur, curLen int64
	open := false
	emit := func(off, n int64) bool {
		if open && cur+curLen == off {
			curLen += n
			return true
		}
		if open && !fn(cur, curLen) {
			return false
		}
		cur, curLen, open = off, n, true
		return true
	}
	ext := t.Extent()
	for i := range count {
		if !t.blocks(i*ext, emit) {
			return false
		}
	}
	if open {
		return fn(cur, curLen)
	}
	return true
}

func (t *Type) blocks(base int64, emit func(off, n int64) bool) bool {
	if t.size == 0 {
		return true
	}
	if t.contig {
		return emit(base+t.dataLB, t.size)
	}
	switch t.combiner {
	case CombinerNamed:
		return emit(base, t.x.pair.a.Size()) && emit(base+t.x.pair.offB, t.x.pair.b.Size())
	case CombinerDup, CombinerSubarray, CombinerDarray:
		return t.lower.blocks(base, emit)
	case CombinerResized:
		return t.types[0].blocks(base, emit)
	}
	return t.eachBlock(base, func(d, n int64, old *Type) bool {
		if old.size == 0 {
			return true
		}
		if old.contig && old.Extent() == old.size {
			return emit(d+old.dataLB, n*old.size)
		}
		ext := old.Extent()
		for j := range n {
			if !old.blocks(d+j*ext, emit) {
				return false
			}
		}
		return true
	})
}

// ExpandedNodes is the second result of Nodes without a limit (saturated
// at 2^61), known since construction: O(1).
func (t *Type) ExpandedNodes() int64 { return t.expanded }

// Nodes returns the number of distinct nodes of t's type tree (a subtype
// used several times counts once) and the number of nodes of the tree
// with every use of a subtype expanded, as a walk that does not remember
// the subtypes it has seen visits them (the simpler types subarray, darray
// and dup stand for included), saturated at limit. Sharing makes the
// second exponential in the first (t_i = struct of two t_{i-1}); it costs
// O(distinct nodes) to compute.
func (t *Type) Nodes(limit int64) (distinct, expanded int64) {
	if t.expanded <= 1 {
		return 1, min(1, limit)
	}
	memo := map[*Type]int64{}
	var count func(*Type) int64
	count = func(u *Type) int64 {
		if n, ok := memo[u]; ok {
			return n
		}
		n := int64(1)
		kids := u.types
		if u.lower != nil {
			kids = []*Type{u.lower}
		}
		for _, k := range kids {
			n = min(n+count(k), limit) // both at most limit: no overflow
		}
		memo[u] = n
		return n
	}
	expanded = min(count(t), limit)
	return int64(len(memo)), expanded
}
