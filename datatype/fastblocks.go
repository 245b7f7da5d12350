package datatype

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

// uniformBlocks is the fast path of finishBlocks for indexed types, whose
// blocks all hold the same old type: plain int64 arithmetic per block,
// with every operand bounded by limit checked up front. It computes exactly
// what blockAcc computes, and returns ok false (and nothing set) when a
// value is too large for the fast path, so that the checked path runs.
// bls is nil when every block has length bl.
func (t *Type) uniformBlocks(bls []int64, bl int64, displs []int64, scale int64, old *Type) (ok bool) {
	ext := old.Extent()
	if abs64(old.lb) > limit || abs64(old.ub) > limit || abs64(old.trueLB) > limit || abs64(old.trueUB) > limit ||
		abs64(old.dataLB) > limit || abs64(old.dataUB) > limit || abs64(ext) > limit || abs64(scale) > limit {
		return false
	}
	maxD := int64(limit) // largest |displacement| whose scaled value stays within limit
	if scale != 0 {
		maxD = limit / abs64(scale)
	}
	maxN := int64(limit) // largest blocklength whose span stays within limit
	if ext != 0 {
		maxN = limit / abs64(ext)
	}
	if old.size > 0 {
		maxN = min(maxN, limit/old.size)
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
		if total > limit/max(1, old.size) {
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
