package ddt

import (
	"math"
	"runtime"
	"sync"

	"github.com/ddtlab/ddt/internal/engine"
)

// threading returns the thread count a Committed keeps for Options.Threads
// n (at most MaxInt32: no message splits into more pieces) and par, the
// message size from which it splits messages.
func threading(n int) (int32, int64) {
	switch {
	case n == 0:
		return 0, ParallelMin
	case n == 1:
		return 1, math.MaxInt64
	}
	return int32(min(n, math.MaxInt32)), 2 * minPiece
}

// pieces is how many ranges a message of size packed bytes is split into.
func (c *Committed) pieces(size int64) int64 {
	n, least := int64(c.threads), int64(minPiece)
	if n == 0 {
		n, least = int64(runtime.GOMAXPROCS(0)), ParallelMin/2
	}
	return max(1, min(n, size/least))
}

// parallel moves the whole message (pk holds exactly its packed bytes,
// checked against both buffers by the caller) with several goroutines,
// each running e on one range of the packed stream; ranges start at
// multiples of 64 bytes, so no two goroutines write one cache line of the
// packed buffer. The caller runs the first range itself.
func (c *Committed) parallel(e engine.Engine, pack bool, mem, pk []byte, origin, count int64) {
	size := int64(len(pk))
	n := c.pieces(size)
	step := (size/n + 63) &^ 63
	run := func(lo, hi int64) {
		if pack && size >= ntMin {
			packNT(e, c.ntPiece(), pk[lo:hi], mem, origin, count, lo)
		} else if pack {
			e.Pack(pk[lo:hi], mem, origin, count, lo)
		} else {
			e.Unpack(mem, pk[lo:hi], origin, count, lo)
		}
	}
	var wg sync.WaitGroup
	for lo := step; lo < size; lo += step {
		wg.Go(func() { run(lo, min(lo+step, size)) })
	}
	run(0, min(step, size))
	wg.Wait()
}
