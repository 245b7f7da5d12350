package datatype

import "math/bits"

// limit bounds the magnitudes the fast path of uniformBlocks works with, so
// that sums of three of them cannot overflow int64.
const limit = 1 << 60

// abs64 is |a|, saturated at MaxInt64 (|MinInt64| does not fit), so that
// comparing it with a bound is always sound.
func abs64(a int64) int64 {
	if a == -1<<63 {
		return 1<<63 - 1
	}
	if a < 0 {
		return -a
	}
	return a
}

// under returns 2^(60-k) for the k bits of a >= 0, so that any value up
// to it times a value up to a stays within limit (2^60); 0 when a itself
// exceeds limit (the fast path then declines).
func under(a int64) int64 {
	k := bits.Len64(uint64(a))
	if k > 60 {
		return 0
	}
	return 1 << (60 - k)
}

// uniformBlocks is the fast path of finishBlocks for indexed types, whose
// blocks all hold the same old type: plain int64 arithmetic per block,
// with every operand bounded by limit checked up front. It computes exactly
// what blockAcc computes, and returns ok false (and nothing set) when a
// value is too large for the fast path, so that the checked path runs.
// bls is nil when every block has length bl.
func (t *Type) uniformBlocks(bls []int64, bl int64, displs []int64, scale int64, old *Type) (ok bool) {
	var runs *runLists
	if t.x != nil {
		runs = t.x.runs
	}
	ext := old.Extent()
	if abs64(old.lb) > limit || abs64(old.ub) > limit || abs64(old.trueLB) > limit || abs64(old.trueUB) > limit ||
		abs64(old.dataLB) > limit || abs64(old.dataUB) > limit || abs64(ext) > limit || abs64(scale) > limit {
		return false
	}
	// Powers of two instead of quotients (no division): a value below
	// 2^(60-k) times one below 2^k stays below limit.
	maxD := under(abs64(scale))                     // largest |displacement| whose scaled value stays within limit
	maxN := min(under(abs64(ext)), under(old.size)) // largest blocklength whose span and size stay within limit
	maxTotal := under(old.size)                     // most old instances whose size stays within limit
	if bls == nil && bl > 0 {
		return t.constBlocks(bl, displs, runs, scale, old, maxD, maxN, maxTotal)
	}
	if bls != nil && len(bls) == len(displs) && ext >= 0 && old.ub >= old.lb && old.size > 0 {
		// (explicit lists took copyForward, which checks what a forward
		// path would)
		if runs != nil && runs.bl != nil && t.forwardRuns(runs, scale, old, maxD, maxN, maxTotal) {
			return true
		}
	}
	var (
		found, dfound    bool
		lb, ub, dlb, dub int64
		total            int64 // old instances, bounded by limit
		contig           = true
		next             int64
	)
	blockContig := func(n int64) bool { return old.contig && (n == 1 || ext == old.size) }
	for i, d := range displs {
		n := bl
		if bls != nil {
			n = bls[i]
		}
		if n == 0 {
			continue
		}
		if n > maxN || abs64(d) > maxD {
			return false
		}
		total += n
		if total > maxTotal {
			return false
		}
		db := d * scale
		span := (n - 1) * ext
		var blb, bub int64
		if old.ub >= old.lb {
			blb, bub = old.lb+db, old.ub+db+span
		} else {
			blb, bub = old.lb+db+span, old.ub+db
		}
		if !found {
			found, lb, ub = true, blb, bub
		} else {
			lb, ub = min(lb, blb), max(ub, bub)
		}
		if old.size > 0 {
			bdlb := db + old.dataLB + min(0, span)
			bdub := db + old.dataUB + max(0, span)
			if !dfound {
				dfound, dlb, dub = true, bdlb, bdub
				contig = blockContig(n)
			} else {
				contig = contig && blockContig(n) && bdlb == next
				dlb, dub = min(dlb, bdlb), max(dub, bdub)
			}
			next = bdub
		}
	}
	if !found {
		t.zerolen()
		return true
	}
	t.lb, t.ub = lb, ub
	t.trueLB = lb + (old.trueLB - old.lb)
	t.trueUB = ub + (old.trueUB - old.ub)
	t.dataLB, t.dataUB = dlb, dub
	t.size = total * old.size
	t.elements = total * old.elements
	t.align = old.align
	t.contig = contig
	return true
}

// constBlocks is uniformBlocks for blocks of one length bl > 0: the
// bounds of the type follow from the smallest and the largest
// displacement, so the loop over the blocks only finds those and checks
// that each block starts where the one before ends (for contig).
func (t *Type) constBlocks(bl int64, displs []int64, runs *runLists, scale int64, old *Type, maxD, maxN, maxTotal int64) bool {
	if len(displs) == 0 {
		t.zerolen()
		return true
	}
	if hi, lo := bits.Mul64(uint64(bl), uint64(len(displs))); bl > maxN || hi != 0 || lo > uint64(maxTotal) {
		return false
	}
	ext := old.Extent()
	span := (bl - 1) * ext
	// Consecutive blocks touch when the data of one starts where the data
	// of the one before ends: their displacements differ by gap bytes.
	gap := old.dataUB - old.dataLB + abs64(span)
	contig := old.size == 0 || (old.contig && (bl == 1 || ext == old.size))
	var minD, maxDisp int64
	if runs != nil {
		// from the runs: O(runs)
		minD, maxDisp = runs.ds[0].Start, runs.ds[0].Start
		prev := runs.ds[0].Start - 1 // displacement of the block before
		for k, r := range runs.ds {
			last := r.Start + (r.Count-1)*r.Step // a value of the list: no overflow
			minD, maxDisp = min(minD, r.Start, last), max(maxDisp, r.Start, last)
			if contig && old.size > 0 && ((k > 0 && (r.Start-prev)*scale != gap) || (r.Count > 1 && r.Step*scale != gap)) {
				contig = false
			}
			prev = last
		}
	} else {
		if contig && old.size > 0 {
			// may wrap for displacements out of range, which fail below
			for i := 1; i < len(displs); i++ {
				if (displs[i]-displs[i-1])*scale != gap {
					contig = false
					break
				}
			}
		}
		minD, maxDisp = bounds(displs)
	}
	if abs64(minD) > maxD || abs64(maxDisp) > maxD {
		return false
	}
	lo, hi := minD*scale, maxDisp*scale // smallest and largest byte displacement
	if scale < 0 {
		lo, hi = hi, lo
	}
	if old.ub >= old.lb {
		t.lb, t.ub = old.lb+lo, old.ub+hi+span
	} else {
		t.lb, t.ub = old.lb+lo+span, old.ub+hi
	}
	t.trueLB = t.lb + (old.trueLB - old.lb)
	t.trueUB = t.ub + (old.trueUB - old.ub)
	if old.size > 0 {
		t.dataLB, t.dataUB = lo+old.dataLB+min(0, span), hi+old.dataUB+max(0, span)
	}
	total := bl * int64(len(displs))
	t.size = total * old.size
	t.elements = total * old.elements
	t.align = old.align
	t.contig = contig || old.size == 0
	return true
}

// minMax returns the smallest and the largest of xs (not empty), four
// independent chains at a time.
func minMax(xs []int64) (lo, hi int64) {
	lo, hi = xs[0], xs[0]
	l1, h1, l2, h2, l3, h3 := lo, hi, lo, hi, lo, hi
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		x := xs[i : i+4 : i+4]
		lo, hi = min(lo, x[0]), max(hi, x[0])
		l1, h1 = min(l1, x[1]), max(h1, x[1])
		l2, h2 = min(l2, x[2]), max(h2, x[2])
		l3, h3 = min(l3, x[3]), max(h3, x[3])
	}
	for ; i < len(xs); i++ {
		lo, hi = min(lo, xs[i]), max(hi, xs[i])
	}
	return min(lo, l1, l2, l3), max(hi, h1, h2, h3)
}

// bounds returns the smallest and the largest of xs (not empty): its ends
// when it is sorted (displacement lists usually are), which a loop of one
// compare per element finds out, minMax otherwise.
func bounds(xs []int64) (lo, hi int64) {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			return minMax(xs)
		}
	}
	return xs[0], xs[len(xs)-1]
}

// forwardRuns is copyForward's layout from the lists kept as runs, in O(runs): in
// a stretch of m blocks where both lists are arithmetic, the start and the
// end of a block are linear in its index, so their extremes are at the
// stretch's first and last block, and each block touches the next when
// the linear difference is zero at both ends.
func (t *Type) forwardRuns(runs *runLists, scale int64, old *Type, maxD, maxN, maxTotal int64) bool {
	ext := old.Extent()
	dataLen := old.dataUB - old.dataLB
	n := int64(runs.n)
	var (
		first         = true
		nmin, nmax    int64
		dmin, dmax    int64
		lo, hi, total int64
		contig        = old.contig
		prevD, prevB  int64 // the last block of the stretch before
		bi, di        int
		bdone, ddone  int64
		bl, ds        = runs.bl, runs.ds
	)
	for di < len(ds) {
		m := min(ds[di].Count-ddone, bl[bi].Count-bdone)
		b0, bstep := bl[bi].Start+bdone*bl[bi].Step, bl[bi].Step
		d0, dstep := ds[di].Start+ddone*ds[di].Step, ds[di].Step
		b1, d1 := b0+(m-1)*bstep, d0+(m-1)*dstep // list values: no overflow
		if first {
			nmin, nmax, dmin, dmax = b0, b0, d0, d0
		}
		nmin, nmax = min(nmin, b0, b1), max(nmax, b0, b1)
		dmin, dmax = min(dmin, d0, d1), max(dmax, d0, d1)
		if nmin <= 0 || nmax > maxN || abs64(dmin) > maxD || abs64(dmax) > maxD {
			return false // empty blocks, or values too large: the lists' loops decide
		}
		// every sum of block lengths below is at most nmax·n (a stretch
		// of varying lengths has m <= nmax blocks, so m·(m-1) <= nmax·n)
		if hi2, lo2 := bits.Mul64(uint64(nmax), uint64(n)); hi2 != 0 || lo2 > uint64(maxTotal) {
			return false
		}
		// from here every product below stays within 2^60
		db0, db1 := d0*scale, d1*scale
		e0, e1 := db0+(b0-1)*ext, db1+(b1-1)*ext
		if first {
			lo, hi = db0, e0
		}
		lo, hi = min(lo, db0, db1), max(hi, e0, e1)
		if contig && !first && prevD*scale+(prevB-1)*ext+dataLen != db0 {
			contig = false
		}
		if contig && m > 1 {
			// block j+1 starts where block j's data ends, for j = 0 and m-2
			step := dstep * scale
			if (b0-1)*ext+dataLen != step || (b0+(m-2)*bstep-1)*ext+dataLen != step {
				contig = false
			}
		}
		total += m*b0 + bstep*(m*(m-1)/2)
		prevD, prevB, first = d1, b1, false
		if ddone += m; ddone == ds[di].Count {
			di, ddone = di+1, 0
		}
		if bdone += m; bdone == bl[bi].Count {
			bi, bdone = bi+1, 0
		}
	}
	t.setForward(old, lo, hi, total, contig && (nmax == 1 || ext == old.size))
	return true
}

// setForward sets t's layout from its blocks of old (forward blocks: see
// copyForward): lo and hi are the smallest start and the largest end of
// the blocks in bytes from displacement 0, total the old instances.
func (t *Type) setForward(old *Type, lo, hi, total int64, contig bool) {
	t.lb, t.ub = old.lb+lo, old.ub+hi
	t.trueLB = t.lb + (old.trueLB - old.lb)
	t.trueUB = t.ub + (old.trueUB - old.ub)
	t.dataLB, t.dataUB = lo+old.dataLB, hi+old.dataUB
	t.size = total * old.size
	t.elements = total * old.elements
	t.align = old.align
	t.contig = contig
}
