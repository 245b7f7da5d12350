package datatype

// runSum summarizes the contiguous byte runs of one instance, in type-map
// order after merging adjacent runs: their number and the first and last
// run, [fs, fe) and [ls, le), relative to the instance's origin. Summaries
// concatenate and repeat without visiting the runs, so counting the runs of
// a type costs O(nodes), not O(elements).
type runSum struct {
	n              int64
	fs, fe, ls, le int64
}

func (a runSum) shift(d int64) runSum {
	if a.n == 0 {
		return a
	}
	return runSum{a.n, a.fs + d, a.fe + d, a.ls + d, a.le + d}
}

// cat is the summary of a's runs followed by b's.
func cat(a, b runSum) runSum {
	if a.n == 0 {
		return b
	}
	if b.n == 0 {
		return a
	}
	merge := a.le == b.fs
	r := runSum{n: a.n + b.n, fs: a.fs, fe: a.fe, ls: b.ls, le: b.le}
	if merge {
		r.n--
		if a.n == 1 {
			r.fe = b.fe
		}
		if b.n == 1 {
			r.ls = a.ls
		}
	}
	return r
}

// rep is the summary of n copies of a, stride bytes apart. Copies are
// translates of each other, so either every boundary between consecutive
// copies merges (a's last run ends where the next copy's first run
// starts) or none does.
func rep(a runSum, n, stride int64) runSum {
	if n <= 0 || a.n == 0 {
		return runSum{}
	}
	merge := n > 1 && a.le == a.fs+stride
	last := (n - 1) * stride
	r := runSum{n: n * a.n, fs: a.fs, fe: a.fe, ls: a.ls + last, le: a.le + last}
	if merge {
		r.n -= n - 1
		if a.n == 1 { // one run throughout
			r.fe, r.ls = r.le, a.fs
		}
	}
	return r
}

func (t *Type) runSummary(memo map[*Type]runSum) runSum {
	if t.size == 0 {
		return runSum{}
	}
	if t.contig {
		return runSum{1, t.dataLB, t.dataUB, t.dataLB, t.dataUB}
	}
	if r, ok := memo[t]; ok {
		return r
	}
	var r runSum
	switch t.combiner {
	case CombinerNamed:
		a, b := t.x.pair.a.Size(), t.x.pair.b.Size()
		r = cat(runSum{1, 0, a, 0, a}, runSum{1, t.x.pair.offB, t.x.pair.offB + b, t.x.pair.offB, t.x.pair.offB + b})
	case CombinerDup, CombinerSubarray, CombinerDarray:
		r = t.lower.runSummary(memo)
	case CombinerResized:
		r = t.types[0].runSummary(memo)
	case CombinerVector, CombinerHVector:
		old := t.types[0]
		sb := t.stride
		if t.combiner == CombinerVector {
			sb *= old.Extent()
		}
		blk := rep(old.runSummary(memo), t.blocklength, old.Extent())
		r = rep(blk, t.count, sb)
	default:
		t.eachBlock(0, func(d, n int64, old *Type) bool {
			r = cat(r, rep(old.runSummary(memo), n, old.Extent()).shift(d))
			return true
		})
	}
	memo[t] = r
	return r
}

// NumBlocks is the number of maximal contiguous byte runs of count
// instances, after merging adjacent runs in type-map order: the number of
// entries Blocks(count, ...) yields, computed without visiting them in
// O(nodes). It is 0 if the offsets of count instances overflow int64.
func (t *Type) NumBlocks(count int64) int64 {
	if _, _, err := t.Span(count); err != nil {
		return 0
	}
	return rep(t.runSummary(map[*Type]runSum{}), count, t.Extent()).n
}
