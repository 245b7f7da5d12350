package datatype

import (
	"math"
	"sync/atomic"
)

// Run is Count values Start, Start+Step, Start+2·Step, … of a list: the
// block lengths or displacements of an indexed type stored compressed (see
// Type.Runs).
type Run struct{ Start, Step, Count int64 }

// The lists of an indexed type are kept as runs when they hold at least
// minRunList values in at most maxRuns runs: the row and the column of a
// matrix, a strided list, constant block lengths. Such a type costs O(runs)
// memory, its construction writes no copy of the lists, and commit builds
// its program from the runs; the lists are written out on first request
// (Args, Contents, walks), once.
const (
	minRunList = 16
	maxRuns    = 8
)

// runLists is an indexed type's lists as runs, and the lists written out
// once asked for.
type runLists struct {
	n      int   // number of blocks
	bl, ds []Run // bl is nil for block-indexed types
	lists  atomic.Pointer[[2][]int64]
}

// toRuns returns xs as at most maxRuns runs, or nil if it needs more.
func toRuns(xs []int64) []Run {
	var buf [maxRuns]Run
	k := 0
	for i := 0; i < len(xs); {
		if k == maxRuns {
			return nil
		}
		// A run is an arithmetic progression of integers: its step and
		// every value fit in int64 (checked), so its values are monotone
		// and its ends are its smallest and largest value, which the
		// bounds computed from runs rely on.
		r := Run{Start: xs[i], Count: 1}
		if i+1 < len(xs) {
			if step, err := sub(xs[i+1], xs[i]); err == nil {
				r.Step = step
				// the values after xs[i+1] that the progression reaches
				// without overflow: at most more of them
				more := len(xs) - (i + 2)
				// (distances to the ends of int64 are exact as uint64)
				switch {
				case step == math.MinInt64:
					more = 0
				case step > 0:
					more = int(min(uint64(more), (uint64(math.MaxInt64)-uint64(xs[i+1]))/uint64(step)))
				case step < 0:
					more = int(min(uint64(more), (uint64(xs[i+1])+1<<63)/uint64(-step)))
				}
				j, end := i+2, i+2+more
				for want := xs[i+1] + step; j < end && xs[j] == want; j++ {
					want += step // no overflow: j < end
				}
				r.Count = int64(j - i)
			}
		}
		buf[k] = r
		k++
		i += int(r.Count)
	}
	out := make([]Run, k)
	copy(out, buf[:k])
	return out
}

// expand writes the runs out.
func expand(rs []Run, n int) []int64 {
	xs := make([]int64, 0, n)
	for _, r := range rs {
		for v, c := r.Start, r.Count; c > 0; c-- {
			xs = append(xs, v)
			v += r.Step
		}
	}
	return xs
}

// compressLists returns bls (nil for block-indexed types) and displs as
// runs when both compress (see minRunList), or nil.
func compressLists(bls, displs []int64) *runLists {
	if len(displs) < minRunList {
		return nil
	}
	ds := toRuns(displs)
	if ds == nil {
		return nil
	}
	var bl []Run
	if bls != nil {
		if bl = toRuns(bls); bl == nil {
			return nil
		}
	}
	return &runLists{n: len(displs), bl: bl, ds: ds}
}

// lists returns t's block lengths (nil when they are one length) and
// displacements, writing them out on first use when they are stored as
// runs.
func (t *Type) lists() (bls, displs []int64) {
	if t.x == nil || (t.x.runs == nil && t.x.byteScale == 0) {
		return t.blocklengths, t.displs
	}
	if s := t.x.byteScale; s != 0 {
		if u := t.x.units.Load(); u != nil {
			return t.blocklengths, *u
		}
		u := make([]int64, len(t.displs))
		for i, d := range t.displs {
			u[i] = d / s // exact: d is a displacement times s
		}
		if !t.x.units.CompareAndSwap(nil, &u) {
			u = *t.x.units.Load()
		}
		return t.blocklengths, u
	}
	r := t.x.runs
	if l := r.lists.Load(); l != nil {
		return l[0], l[1]
	}
	l := new([2][]int64)
	l[1] = expand(r.ds, r.n)
	if r.bl != nil {
		l[0] = expand(r.bl, r.n)
	}
	if !r.lists.CompareAndSwap(nil, l) {
		l = r.lists.Load()
	}
	return l[0], l[1]
}

// nblocks is the number of blocks of an indexed or struct type.
func (t *Type) nblocks() int {
	if t.x != nil && t.x.runs != nil {
		return t.x.runs.n
	}
	return len(t.displs)
}

// ByteLists returns the block lengths and the displacements in bytes of an
// indexed type that keeps them so (an indexed list of an old type of
// extent 2 or more, not kept as runs), and ok false otherwise. The
// displacements are those of Args times the old type's extent.
func (t *Type) ByteLists() (blocklengths, byteDisplacements []int64, ok bool) {
	if t.x == nil || t.x.byteScale == 0 {
		return nil, nil, false
	}
	return t.blocklengths, t.displs, true
}

// Runs returns the block lengths (nil for block-indexed types, whose one
// block length is in Args) and the displacements of an indexed type as
// runs when the type stores them so, and ok false otherwise (then Args has
// the lists). Reading them costs O(runs); the values are those of Args.
func (t *Type) Runs() (bls, displs []Run, ok bool) {
	if t.x == nil || t.x.runs == nil {
		return nil, nil, false
	}
	return t.x.runs.bl, t.x.runs.ds, true
}
