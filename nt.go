package ddt

import (
	"math"
	"os"
	"sync"
	"unsafe"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/host"
)

// Large packs write their output with non-temporal stores, which write
// the destination's lines without reading them first and without
// evicting the source from the caches: by the native engine's own code
// where it has a variant with such stores (jit.Engine.PackNT: blocks of
// 1 KiB and more), otherwise through a small cache-resident buffer: the
// engine packs a piece into it (the engines resume at any byte of the
// packed stream), and engine.CopyNT copies the piece out. This pays only
// where the destination does not stay in the caches anyway: from ntMin
// packed bytes (see NonTemporalMin; docs/performance.md has the
// measurements).

// ntBuf is the size of the scratch buffer.
const ntBuf = 1 << 20

// ntChunk is the piece a large pack moves through the scratch buffer (at
// most ntBuf; a variable for tests): it stays in the second-level cache
// between the engine's stores and the copy's loads. Pieces are rounded to
// whole units of the engines (ntPiece).
var ntChunk int64 = 256 << 10

// ntMin is NonTemporalMin (a variable for tests and benchmarks).
var ntMin = ntMinDefault()

// NonTemporalMin is the packed size from which Pack writes its output
// with non-temporal stores (amd64 with AVX2): in the native code's
// variant for long blocks, or through a cache-resident buffer
// (DDT_NTJIT=0: always the buffer). It is the last-level cache size
// (sysfs, or 32 MiB where the system does not say), overridden by
// DDT_NTMIN=bytes (K, M, G suffixes accepted; at least 64 KiB) and
// disabled by DDT_NONT=1, all read once when the program starts;
// math.MaxInt64 when off.
func NonTemporalMin() int64 { return ntMin }

func ntMinDefault() int64 {
	if !engine.HasNT() || os.Getenv("DDT_NONT") == "1" {
		return math.MaxInt64
	}
	if s := os.Getenv("DDT_NTMIN"); s != "" {
		if n, ok := host.ParseSize(s); ok {
			return max(n, 64<<10)
		}
	}
	return host.LLC()
}

// scratch holds the buffers of packNT, ntBuf bytes on a 64-byte
// boundary each.
var scratch = sync.Pool{New: func() any {
	b := make([]byte, ntBuf+64)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & 63)
	b = b[off : off+ntBuf]
	return &b
}}

// ntPiece is the size of the pieces packNT moves for a program p (nil
// for the reference engine) of size packed bytes per instance: whole
// units of native code where that keeps them at most ntBuf bytes (a
// piece that cut a unit would run it on the fallback engine), ntChunk
// bytes otherwise. The unit is an instance, or for instances larger
// than ntBuf a block of a root loop.
func ntPiece(p *dame.Program, size int64) int64 {
	u := size
	if p != nil && p.Root != nil && u > ntBuf {
		switch n := p.Root; n.Op {
		case dame.Contig, dame.Vector, dame.BlockIndex:
			if nb := n.NumBlocks(); nb > 0 && n.Size%nb == 0 {
				u = n.Size / nb
			}
		}
	}
	switch {
	case u <= 0 || u > ntBuf:
		return ntChunk
	case u <= ntChunk:
		return ntChunk / u * u
	}
	return u
}

// ntPacker is an engine with non-temporal stores in its own code (the
// native engine: a second variant of its code, jit.Engine.PackNT, which
// stores the long blocks of the layout without the scratch buffer's
// second pass). PackNT returns false when it has no such code.
type ntPacker interface {
	PackNT(dst, src []byte, origin, count, from int64) bool
}

// ntJIT lets packNT use an engine's own non-temporal code; DDT_NTJIT=0,
// read once at start, sends every large pack through the scratch buffer
// instead (to compare the two; a variable for the benchmarks too).
var ntJIT = os.Getenv("DDT_NTJIT") != "0"

// packNT is e.Pack(dst, src, origin, count, from) with non-temporal
// stores: by the engine's own code where it has such code (ntPacker),
// otherwise through the scratch buffer, in pieces of piece bytes (at most
// ntBuf) that start at multiples of piece in the packed stream, each
// copied out with non-temporal stores.
func packNT(e engine.Engine, piece int64, dst, src []byte, origin, count, from int64) {
	if p, ok := e.(ntPacker); ok && ntJIT && p.PackNT(dst, src, origin, count, from) {
		return
	}
	bp := scratch.Get().(*[]byte)
	buf := *bp
	n := int64(len(dst))
	for off := int64(0); off < n; {
		k := min(n-off, piece-(from+off)%piece)
		e.Pack(buf[:k], src, origin, count, from+off)
		engine.CopyNT(dst[off:off+k], buf[:k])
		off += k
	}
	scratch.Put(bp)
}

// ntCount is the most instances of size packed bytes each (size > 0)
// that pack to fewer than ntMin bytes: the bound of the native fast path
// for Pack, above which packNT runs.
func ntCount(size int64) int64 {
	return (ntMin - 1) / size
}

// ntPiece is the piece size of packNT for c's program.
func (c *Committed) ntPiece() int64 {
	var p *dame.Program
	if c.kind != Reference {
		p = c.prog
	}
	return ntPiece(p, c.bounds.size)
}
