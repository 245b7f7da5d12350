package ddt

import (
	"fmt"
	"iter"
)

// Segments returns the I/O vector of count instances from packed byte
// from on: the contiguous memory segments (offset from instance 0's
// origin, length) that hold the packed bytes, in packed order, adjacent
// segments merged. Packing is the concatenation of the segments' bytes, so
// the list suits zero-copy writes (net.Buffers, writev). The list is
// produced as it is consumed, never materialized.
func (c *Committed) Segments(count, from int64) iter.Seq2[int64, int64] {
	return func(yield func(off, n int64) bool) {
		if count <= 0 || from < 0 {
			return
		}
		c.engine().Segments(count, from, yield)
	}
}

// Transpack copies srcCount instances of src's type from srcBuf (instance 0
// at srcOrigin) directly into the layout of dstCount instances of dst's type
// in dstBuf (instance 0 at dstOrigin), with no intermediate buffer: the
// result equals unpacking the packed bytes of the source. The two messages
// must have the same type signature (the same sequence of basic types). It
// returns the number of bytes moved.
func Transpack(dst *Committed, dstBuf []byte, dstOrigin, dstCount int64, src *Committed, srcBuf []byte, srcOrigin, srcCount int64) (int64, error) {
	size, err := src.checkImage("transpack", len(srcBuf), srcOrigin, srcCount)
	if err != nil {
		return 0, err
	}
	dsize, err := dst.checkImage("transpack", len(dstBuf), dstOrigin, dstCount)
	if err != nil {
		return 0, err
	}
	if size != dsize || !sameSignature(src, srcCount, dst, dstCount) {
		return 0, fmt.Errorf("transpack: the type signatures of %d x %v and %d x %v differ", srcCount, src.t, dstCount, dst.t)
	}
	next, stop := iter.Pull2(dst.Segments(dstCount, 0))
	defer stop()
	var doff, dn int64
	for soff, sn := range src.Segments(srcCount, 0) {
		for sn > 0 {
			if dn == 0 {
				doff, dn, _ = next()
			}
			k := min(sn, dn)
			copy(dstBuf[dstOrigin+doff:dstOrigin+doff+k], srcBuf[srcOrigin+soff:srcOrigin+soff+k])
			soff, sn, doff, dn = soff+k, sn-k, doff+k, dn-k
		}
	}
	return size, nil
}

// sameSignature reports whether na instances of a and nb of b have the
// same type signature, from the signatures computed at commit: exactly
// when either is uniform (one basic type) or the element counts differ,
// otherwise by the seed 004 hash (a false match needs x to be a root of a
// nonzero polynomial of degree below the element count: probability below
// n/(2^61-1)).
func sameSignature(a *Committed, na int64, b *Committed, nb int64) bool {
	sa, err1 := a.Signature().Repeat(na)
	sb, err2 := b.Signature().Repeat(nb)
	if err1 != nil || err2 != nil {
		return false
	}
	same, _ := sa.Same(sb)
	return same
}
