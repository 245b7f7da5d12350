package datatype

import (
	"bytes"
	"math/bits"
	"sync/atomic"
	"unsafe"
	"weak"
)

// BlockStats describes the blocks of an indexed or hindexed type made from
// explicit lists, as found while its constructor copied them. The byte
// displacement of block i is D(i): the displacement times the old type's
// extent for indexed, the displacement itself for hindexed.
type BlockStats struct {
	// MinBlocklength and MaxBlocklength bound the block lengths; both
	// are at least 1 (no block is empty).
	MinBlocklength, MaxBlocklength int64
	// Total is the sum of the block lengths: old instances per instance.
	Total int64
	// Touching counts the blocks i >= 1 that start where block i-1 ends,
	// counted in extents of the old type: D(i) == D(i-1) +
	// blocklength(i-1)·extent(old).
	Touching int
	// ByteOr is the OR of the byte displacements D(i).
	ByteOr uint64
}

// BlockStats returns the statistics of t's blocks when its constructor
// recorded them, and ok false otherwise. They are recorded for indexed and
// hindexed types of at least 16 blocks kept as lists (not as runs), none
// empty, of an old type with data and a non-negative extent, whose values
// are small enough (below 2^60 in magnitude, as nearly all are) for the
// one-pass path; reading them costs nothing.
func (t *Type) BlockStats() (s BlockStats, ok bool) {
	if t.x == nil || t.x.facts == nil {
		return BlockStats{}, false
	}
	return t.x.facts.stats, true
}

// copyForward gives t its copy of the lists bls and displs (one
// allocation for short lists; see clone2) and, for the usual lists (no
// empty block, an old type with data and a non-negative extent, every
// value below 2^60 in magnitude), finds t's layout in one pass over each
// copy while it is in the cache: every block spans [d + lb, d + ub +
// (n-1)·extent) and its data [d + dataLB, d + dataUB + (n-1)·extent), so
// the bounds follow from the smallest start and the largest end of the
// blocks. Values are computed in plain, wrapping arithmetic and used only
// once the ranges checked first guarantee that none wrapped. When keep,
// the displacements of lists of minRunList blocks or more are kept in
// bytes, times scale (see ByteLists); such lists also get their block
// statistics (BlockStats), and from shareMin blocks on equal lists share
// one copy. It returns false, with the copies set and the layout not,
// when the lists are not of that kind: the checked paths decide then.
func (t *Type) copyForward(bls, displs []int64, scale int64, keep bool, old *Type) bool {
	n := len(bls)
	ext := old.Extent()
	if n == 0 || len(displs) != n || ext < 0 || old.ub < old.lb || old.size <= 0 ||
		abs64(old.lb) > limit || abs64(old.ub) > limit || abs64(old.trueLB) > limit || abs64(old.trueUB) > limit ||
		abs64(old.dataLB) > limit || abs64(old.dataUB) > limit || abs64(ext) > limit || abs64(scale) > limit {
		t.blocklengths, t.displs = clone2(bls, displs)
		return false
	}
	maxD := under(abs64(scale))              // largest |displacement| whose scaled value stays within limit
	maxN := min(under(ext), under(old.size)) // largest block length whose span and size stay within limit
	maxTotal := under(old.size)              // most old instances whose size stays within limit
	keep = keep && n >= minRunList
	slot := -1
	if n >= shareMin {
		slot = listSlot(bls, displs, scale, keep)
		if x := findShared(slot, bls, displs, scale, ext, keep); x != nil && x.facts.fitsOld(n, maxN, maxTotal) {
			f := x.facts
			t.setForward(old, f.shared.lo, f.shared.hi, f.stats.Total,
				forwardContig(old, f.shared.bls, displs, f.stats.MaxBlocklength, f.stats.Touching, scale))
			t.blocklengths, t.displs, t.x = f.shared.bls, f.shared.displs, x
			return true
		}
	}
	nb, nd := clone2(bls, displs)
	t.blocklengths, t.displs = nb, nd

	// the lengths: all in [1, maxN], their sum at most maxTotal
	total, nmin, nmax := sumMinMax(nb)
	if nmin <= 0 || nmax > maxN {
		return false
	}
	if hi, lo := bits.Mul64(uint64(nmax), uint64(n)); hi != 0 || lo > uint64(maxTotal) {
		return false
	}
	// the displacements: all of magnitude at most maxD; from here no
	// product or sum below leaves 2^62 in magnitude
	dmin, dmax := bounds(nd)
	if abs64(dmin) > maxD || abs64(dmax) > maxD {
		return false
	}
	or, touching, far := scanBlocks(nd, nb, scale, ext, keep)
	lo, hi := dmin*scale, far-ext
	if scale < 0 {
		lo = dmax * scale
	}
	t.setForward(old, lo, hi, total, forwardContig(old, nb, displs, nmax, touching, scale))
	if n < minRunList {
		return true // short lists: nothing kept beyond the copy
	}
	f := &listFacts{stats: BlockStats{
		MinBlocklength: nmin, MaxBlocklength: nmax, Total: total, Touching: touching, ByteOr: or,
	}}
	x := &extra{facts: f}
	if keep {
		x.byteScale = scale
	}
	t.x = x
	if slot >= 0 {
		f.shared = sharedLists{bls: nb, displs: nd, scale: scale, ext: ext, keep: keep, lo: lo, hi: hi}
		wp := weak.Make(x)
		recentLists[slot].Store(&wp)
	}
	return true
}

// forwardContig reports whether the data of a type of forward blocks of
// old (see copyForward), block lengths bls (the longest nmax) at
// displacements displs in units of scale bytes, touching blocks of which
// touch in extents of old, is one contiguous run: old is, its instances
// touch if a block has several, and each block's data starts where the
// data of the one before ends.
func forwardContig(old *Type, bls, displs []int64, nmax int64, touching int, scale int64) bool {
	ext := old.Extent()
	if !old.contig || (nmax != 1 && ext != old.size) {
		return false
	}
	dataLen := old.dataUB - old.dataLB
	if dataLen == ext {
		return touching == len(bls)-1
	}
	for i := 1; i < len(bls); i++ {
		if displs[i]*scale != displs[i-1]*scale+(bls[i-1]-1)*ext+dataLen {
			return false
		}
	}
	return true
}

// scanBlocks returns, for blocks of bls[i] instances of extent ext at
// displacements ds[i] in units of scale bytes, the OR of their byte
// displacements, the number of blocks that start where the one before
// ends and the largest end of a block; with write it turns ds into bytes.
// (A loop of its own, with few live values, keeps them all in registers.)
func scanBlocks(ds, bls []int64, scale, ext int64, write bool) (or uint64, touching int, far int64) {
	bls = bls[:len(ds)]
	end := ds[0]*scale - 1 // no block ends there
	far = ds[0]*scale + bls[0]*ext
	for i, d := range ds {
		db := d * scale
		if write {
			ds[i] = db
		}
		or |= uint64(db)
		if db == end {
			touching++
		}
		end = db + bls[i]*ext
		far = max(far, end)
	}
	return or, touching, far
}

// sumMinMax returns the sum (wrapping), the smallest and the largest of xs
// (not empty). It is not inlined: inside copyForward, with its many live
// values, the loop kept its sums on the stack (three times the
// instructions).
//
//go:noinline
func sumMinMax(xs []int64) (sum, lo, hi int64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		sum += x
		lo, hi = min(lo, x), max(hi, x)
	}
	return sum, lo, hi
}

// Types built again and again from equal long lists (a halo or an
// irregular exchange that makes its type per message) share one copy of
// the lists and what copyForward found in them: the lists are compared in
// one pass, and nothing of their size is allocated or written. A table of
// recently built list copies, held weakly (a copy lives as long as some
// type uses it), finds them; it is a cache, so losing an entry to another
// list or to the collector costs only a copy.

// shareMin is the number of blocks from which equal lists are shared.
const shareMin = 1024

// listFacts are what copyForward found in a type's lists.
type listFacts struct {
	stats  BlockStats
	shared sharedLists // for lists of at least shareMin blocks, what an equal type needs to share them
}

// fitsOld reports whether the lists of f, of n blocks, are within the
// fast path's range for an old type whose limits are maxN and maxTotal
// (equal lists over an old type of the same extent but a larger size may
// not be).
func (f *listFacts) fitsOld(n int, maxN, maxTotal int64) bool {
	hi, lo := bits.Mul64(uint64(f.stats.MaxBlocklength), uint64(n))
	return f.stats.MaxBlocklength <= maxN && hi == 0 && lo <= uint64(maxTotal)
}

// sharedLists is the key and the findings of a type's copy of its lists.
type sharedLists struct {
	bls, displs []int64 // the copies (displs in bytes when keep)
	scale, ext  int64
	keep        bool
	lo, hi      int64 // the smallest start and the largest end of the blocks, in bytes
}

// recentLists holds weak pointers to the extras of recently built types
// with long lists, by a hash of a sample of their lists.
var recentLists [64]atomic.Pointer[weak.Pointer[extra]]

// listSlot returns the slot of recentLists of these lists: a hash of their
// length, scale and 32 of their values (not of the old type's extent:
// lists over old types of different extents meet in one slot, and
// findShared tells them apart).
func listSlot(bls, displs []int64, scale int64, keep bool) int {
	n := len(bls)
	h := uint64(n)*0x9E3779B97F4A7C15 ^ uint64(scale)*0xBF58476D1CE4E5B9
	if keep {
		h = ^h
	}
	for k := range 16 {
		i := k * (n - 1) / 15
		h = (h ^ uint64(bls[i])) * 0x100000001B3
		h = (h ^ uint64(displs[i])) * 0x100000001B3
	}
	return int(h >> 58)
}

// findShared returns the extra of a live type made from lists equal to
// bls and displs with the same scale, extent and keep, or nil.
func findShared(slot int, bls, displs []int64, scale, ext int64, keep bool) *extra {
	wp := recentLists[slot].Load()
	if wp == nil {
		return nil
	}
	x := wp.Value()
	if x == nil {
		return nil
	}
	if x.facts == nil {
		return nil
	}
	s := &x.facts.shared
	if s.scale != scale || s.ext != ext || s.keep != keep || !equalInts(s.bls, bls) {
		return nil
	}
	if !keep {
		if !equalInts(s.displs, displs) {
			return nil
		}
		return x
	}
	// equal in bytes, and within the range where scaling is exact (a
	// displacement 2^61 away from another can wrap to the same bytes)
	dmin, dmax := displs[0], displs[0]
	for i, d := range displs {
		if d*scale != s.displs[i] {
			return nil
		}
		dmin, dmax = min(dmin, d), max(dmax, d)
	}
	if maxD := under(abs64(scale)); abs64(dmin) > maxD || abs64(dmax) > maxD {
		return nil
	}
	return x
}

// equalInts reports whether a and b hold the same values, comparing their
// bytes (the runtime's vectorized comparison).
func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b)))
}
