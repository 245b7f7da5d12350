package dame

// Lists of small blocks scattered over much memory (SPECFEM3D_oc L:
// 1,048,576 single floats at random places in 64 MiB; LAMMPS_atomic L:
// atoms of 24 bytes picked at random from 25 MB) miss the caches on
// nearly every block, and a loop over them keeps only as many misses in
// flight as the core's queues allow. The compiled engine's pack
// prefetches the block a fixed number of entries ahead there on AMD's
// cores (internal/engine); Scattered is its rule. (The native code's unrolled
// table loop measured no gain from the same prefetches.)

// Bounds of Scattered.
const (
	ScatterMinBlocks = 4096     // shorter lists gain too little for the extra loads
	ScatterMinSpan   = 16 << 20 // memory below it mostly stays in the last-level cache
	ScatterMaxBlock  = 64       // bytes per block, at most: one line
	scatterJump      = 4096     // a block more than a page from the one before is a jump
)

// Scattered reports whether n is a BlockIndex of at least
// ScatterMinBlocks blocks of at most ScatterMaxBlock contiguous bytes,
// spanning ScatterMinSpan bytes or more, at least half of them more than
// a page from the block before (sorted lists of near blocks are streams
// the hardware prefetchers follow). It takes time linear in the blocks.
func Scattered(n *Node) bool {
	if n == nil || n.Op != BlockIndex || len(n.Disps) < ScatterMinBlocks || n.Child == nil {
		return false
	}
	c := n.Child
	if c.Op != ContigFinal || c.Extent != c.Size || n.Blocklen <= 0 || n.Blocklen > ScatterMaxBlock ||
		n.Blocklen*c.Size > ScatterMaxBlock {
		return false
	}
	lo, hi, jumps := n.Disps[0], n.Disps[0], 0
	for i, d := range n.Disps {
		lo, hi = min(lo, d), max(hi, d)
		if i > 0 && (d-n.Disps[i-1] > scatterJump || n.Disps[i-1]-d > scatterJump) {
			jumps++
		}
	}
	return hi-lo >= ScatterMinSpan && 2*jumps >= len(n.Disps)
}
