package dame

import (
	"cmp"
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

// SortRule holds the thresholds of the displacement-sorting rule.
type SortRule struct {
	MinBlocks   int   // shorter lists have too little to gain
	MinSpan     int64 // memory spans below this stay in cache anyway
	MaxPacked   int64 // the out-of-order reads of the packed bytes must hit cache
	MinAvgBlock int64 // bytes per block on average
}

// DefaultSortRule is the rule the compiled engine applies. Measured on
// the project's 2-core AMD EPYC VM (go test -bench SortedUnpack
// ./internal/engine: 4096 blocks in random order, 8 or 64 bytes each, over
// 8 to 128 MiB), sorted unpack ran at 0.5-0.8x the list-order scatter
// kernels for 8-byte blocks and 0.9-1.2x for 64-byte blocks: the hardware
// absorbs random writes better than the paper's machines did, and the
// list-order path has vector scatter kernels. So the rule only fires for
// large blocks spread beyond the last-level cache.
var DefaultSortRule = SortRule{MinBlocks: 64, MinSpan: 64 << 20, MaxPacked: 1 << 20, MinAvgBlock: 64}

// UnpackOrder is the displacement-sorting rule (seed 003 §3.3, Fig. 14)
// with DefaultSortRule.
func UnpackOrder(n *Node) *Sorted { return DefaultSortRule.UnpackOrder(n) }

// UnpackOrder applies the rule to n: for a BlockIndex or Index node of a
// leaf whose displacements are mostly out of order, it returns the blocks
// sorted by displacement, so that unpack writes memory in ascending order
// and reads the (smaller, cached) packed bytes out of order. It returns nil
// where that does not pay or would be wrong: lists of fewer than MinBlocks
// blocks or of blocks under MinAvgBlock bytes on average, lists mostly in
// order (at most an eighth of the consecutive displacements descend),
// memory spans under MinSpan, packed sizes over MaxPacked, and blocks that
// overlap (unpack writes them in type-map order, which sorting would
// change). It costs O(n log n), once per plan.
func (r SortRule) UnpackOrder(n *Node) *Sorted {
	if (n.Op != BlockIndex && n.Op != Index) || !n.IsFinal() || n.Child.Extent != n.Child.Size {
		return nil
	}
	nb := len(n.Disps)
	if nb < r.MinBlocks || n.Size > r.MaxPacked || n.Size < r.MinAvgBlock*int64(nb) {
		return nil
	}
	descents := 0
	lo, hi := n.Disps[0], n.Disps[0]
	for i := 1; i < nb; i++ {
		if n.Disps[i] < n.Disps[i-1] {
			descents++
		}
		lo, hi = min(lo, n.Disps[i]), max(hi, n.Disps[i])
	}
	if descents*8 <= nb || hi-lo < r.MinSpan {
		return nil
	}
	buf := make([]int64, 3*nb)
	s := &Sorted{Disps: buf[:nb:nb], Packed: buf[nb : 2*nb : 2*nb], Lens: buf[2*nb:]}
	idx := make([]int32, nb)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		return cmp.Compare(n.Disps[a], n.Disps[b])
	})
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
