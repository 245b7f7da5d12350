package dame

import (
	"cmp"
	"math/bits"
	"os"
	"slices"
)

// Sorted is a list node's blocks in ascending order of displacement, with
// where each block's bytes lie in the packed stream: the plan of a
// displacement-sorted unpack (seed 003 §3.3, Fig. 14).
type Sorted struct {
	Disps  []int64 // memory displacements, ascending
	Packed []int64 // packed offset (within one instance) of each block
	Lens   []int64 // bytes of each block
}

// SortRule holds the thresholds of the displacement-sorting rule. A zero
// bound of a Max field is no bound.
type SortRule struct {
	MinBlocks   int   // shorter lists have too little to gain
	MinSpan     int64 // memory spans below this stay in the first caches anyway
	MaxSpan     int64 // beyond it, sorted unpack was measured to lose
	MaxPacked   int64 // the out-of-order reads of the packed bytes must hit cache
	MinAvgBlock int64 // bytes per block on average, at least
	MaxAvgBlock int64 // bytes per block on average, at most
	MaxGap      int64 // memory span per block on average, at most
	// Fixed sorts only lists of blocks of one length (BlockIndex) of
	// Lengths bytes (any when empty): the sizes whose sorted unpack moves
	// each block with one load and store (a general move per block made
	// sorting lose everywhere)
	Fixed   bool
	Lengths []int64
	// Off makes the rule never fire (HostSortRule)
	Off bool
}

// DefaultSortRule is the rule the compiled engine applies, set from `ddt
// bench --fig 14` (docs/performance.md, "Tuning from measurement"): on
// the project's 2-core x86 VM, unpack of random-order lists of 4- and
// 8-byte blocks 4 to 32 bytes apart over 128 KiB to 4 MiB (packed bytes
// up to 1 MiB) ran 1.1-1.9x faster sorted than in list order, on the
// compiled engine and against the native code (spans under 128 KiB were
// not measured; the rule stops at 64 KiB); blocks 256 bytes apart gained
// at most 1.07x and lost from 4 MiB up, 64- and 512-byte blocks lost
// (0.5-0.95x) at every span, and so did every list while sorted unpack
// made a general move per block: the list-order scatter kernels are
// vector code, and an out-of-order core overlaps the misses of random
// writes to distinct cache lines. Sorting pays where several blocks share
// each cache line: written in order, each line is filled at once instead
// of being visited again and again.
var DefaultSortRule = SortRule{MinBlocks: 64, MinSpan: 64 << 10, MaxSpan: 4 << 20, MaxPacked: 1 << 20,
	MinAvgBlock: 1, MaxAvgBlock: 8, MaxGap: 32, Fixed: true, Lengths: []int64{4, 8}}

// HostSortRule is the rule the engines apply on this machine:
// DefaultSortRule, measured on an Intel Xeon, or, for AMD's cores (amd
// set), a rule that never fires. On an AMD EPYC of family 26
// (2026-11-27) sorting lost where the default rule fires: LAMMPS_full.send
// L (five lists of 65,536 doubles in random order over 600 KB each, and
// a list of 24-byte blocks) unpacked at 0.90x of MPICH's speed sorted and
// at 1.06-1.08x in list order (the library preloaded, three processes
// per setting; on Open MPI 4.0x and 4.6x), and in C the same unpack took
// 280 µs sorted against 209 in list order. DDT_SORT=1 keeps
// DefaultSortRule on AMD's cores too (for measurements).
func HostSortRule(amd bool) SortRule {
	if amd && os.Getenv("DDT_SORT") != "1" {
		return SortRule{Off: true}
	}
	return DefaultSortRule
}

// UnpackOrder is the displacement-sorting rule (seed 003 §3.3, Fig. 14)
// with DefaultSortRule.
func UnpackOrder(n *Node) *Sorted { return DefaultSortRule.UnpackOrder(n) }

// Fires reports, in O(blocks) and without sorting, whether UnpackOrder
// may sort n: all its conditions but the overlap of blocks.
func (r SortRule) Fires(n *Node) bool {
	if r.Off || n == nil || (n.Op != BlockIndex && n.Op != Index) || !n.IsFinal() || n.Child.Extent != n.Child.Size {
		return false
	}
	nb := int64(len(n.Disps))
	if r.Fixed && (n.Op != BlockIndex || (len(r.Lengths) > 0 && !slices.Contains(r.Lengths, n.Blocklen*n.Child.Size))) {
		return false
	}
	if nb == 0 || nb < int64(r.MinBlocks) || n.Size > r.MaxPacked || n.Size < r.MinAvgBlock*nb ||
		(r.MaxAvgBlock > 0 && n.Size > r.MaxAvgBlock*nb) {
		return false
	}
	descents := int64(0)
	lo, hi := n.Disps[0], n.Disps[0]
	for i := int64(1); i < nb; i++ {
		if n.Disps[i] < n.Disps[i-1] {
			descents++
		}
		lo, hi = min(lo, n.Disps[i]), max(hi, n.Disps[i])
	}
	span := hi - lo + n.Size/nb // (the last block's bytes, on average)
	return descents*8 > nb && span >= r.MinSpan && (r.MaxSpan <= 0 || span <= r.MaxSpan) &&
		(r.MaxGap <= 0 || span <= r.MaxGap*nb)
}

// UnpackOrder applies the rule to n: for a BlockIndex or Index node of a
// leaf whose displacements are mostly out of order, it returns the blocks
// sorted by displacement, so that unpack writes memory in ascending order
// and reads the (smaller, cached) packed bytes out of order. It returns nil
// where that does not pay or would be wrong (Fires is false): lists of
// fewer than MinBlocks blocks, of blocks outside [MinAvgBlock,
// MaxAvgBlock] bytes on average or spread more than MaxGap bytes apart on
// average, lists mostly in order (at most an eighth of the consecutive
// displacements descend), memory spans outside [MinSpan, MaxSpan],
// packed sizes over MaxPacked; and blocks that overlap (unpack writes
// them in type-map order, which sorting would change). It costs
// O(n log n), once per plan.
func (r SortRule) UnpackOrder(n *Node) *Sorted {
	if !r.Fires(n) {
		return nil
	}
	nb := len(n.Disps)
	buf := make([]int64, 3*nb)
	s := &Sorted{Disps: buf[:nb:nb], Packed: buf[nb : 2*nb : 2*nb], Lens: buf[2*nb:]}
	idx := sortedIndex(n.Disps)
	cs := n.Child.Size
	var q int64
	// packed offsets in list order, then permuted
	for i := range nb {
		L := n.Blocklen * cs
		if n.Op == Index {
			L = n.Blocklens[i] * cs
		}
		s.Packed[i], s.Lens[i] = q, L
		q += L
	}
	pk, ls := slices.Clone(s.Packed), slices.Clone(s.Lens)
	for k, i := range idx {
		s.Disps[k], s.Packed[k], s.Lens[k] = n.Disps[i], pk[i], ls[i]
		if k > 0 && s.Disps[k-1]+s.Lens[k-1] > s.Disps[k] {
			return nil // overlapping blocks
		}
	}
	return s
}

// sortedIndex returns the indices of ds in ascending order of ds, equal
// displacements in list order. Lists of at least radixMin entries whose
// span and index fit one 64-bit key sort by radix (LSD, radixBits bits of
// displacement a pass, the index in the key's low bits): O(n) passes
// instead of O(n log n) comparisons through the index, which made
// sorting most of the time of compiling a long list (LAMMPS_full.send L:
// about 12 of 14 ms of the native code's generation).
func sortedIndex(ds []int64) []int32 {
	nb := len(ds)
	idx := make([]int32, nb)
	if nb == 0 {
		return idx
	}
	lo, hi := ds[0], ds[0]
	for _, d := range ds[1:] {
		lo, hi = min(lo, d), max(hi, d)
	}
	ib := bits.Len(uint(nb))
	sb := bits.Len64(uint64(hi) - uint64(lo))
	if nb < radixMin || ib+sb > 64 {
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortStableFunc(idx, func(a, b int32) int {
			return cmp.Compare(ds[a], ds[b])
		})
		return idx
	}
	keys, tmp := make([]uint64, nb), make([]uint64, nb)
	for i, d := range ds {
		keys[i] = (uint64(d)-uint64(lo))<<ib | uint64(i)
	}
	var cnt [1 << radixBits]int
	for sh := ib; sh < ib+sb; sh += radixBits {
		clear(cnt[:])
		for _, k := range keys {
			cnt[(k>>sh)&(1<<radixBits-1)]++
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, k := range keys {
			b := (k >> sh) & (1<<radixBits - 1)
			tmp[cnt[b]] = k
			cnt[b]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		idx[i] = int32(k & (1<<ib - 1))
	}
	return idx
}

// radixMin and radixBits: the least list length sortedIndex sorts by
// radix, and the bits of one radix pass.
const (
	radixMin  = 256
	radixBits = 11
)
