package opt

import (
	"github.com/ddtlab/ddt/dame"
	"math/bits"
	"slices"

	"github.com/ddtlab/ddt/datatype"
)

// The fast path of indexed types whose old type is contiguous bytes: long
// explicit lists (thousands to millions of blocks) are the common case, so
// every pass over the blocks is one loop without calls through closures or
// interfaces, and the only allocations are the program's own lists.

// leafRuns is the node of an indexed type whose old type is a leaf of size
// bytes, its origin off bytes from the old type's origin; a holds the
// type's arguments and scale the unit of its displacements. Touching blocks
// merge into byte runs. A first pass looks for a few segments of runs of
// constant length and stride (a row and a column of a matrix, say) without
// allocating; if there are many, a second pass lists the runs.
//
// When hasSt, st are the type's block statistics (datatype.BlockStats)
// counted in leaves of size bytes; they spare the passes that find
// whether its blocks are apart and its size.
func (z *builder) leafRuns(a datatype.Args, scale, off, size int64, st datatype.BlockStats, hasSt bool) (*dame.Node, int64) {
	if n, d, ok := z.leafSegments(a, scale, off, size); ok {
		return n, d
	}
	n := len(a.Displacements)
	bl, constBL := constBlocklen(a)
	if constBL {
		// Blocks of one length: list them as they are, counting the
		// blocks that touch their predecessor (and would merge).
		ds := make([]int64, n)
		if m, or := blockDisps(ds, a.Displacements, scale, off, bl*size); m == 0 || int64(n-m)*4 > int64(n)*3 {
			// No merge, or merging would leave most blocks apart (random
			// lists with a few neighbours): blocks of one length, as the
			// gather kernel of constant-size elements beats variable runs
			// by far. (Runs that differ in length take the general path:
			// they are not all one length when fewer than a quarter merge.)
			nd, d := z.constRuns(ds, bl*size)
			return withOr(nd, d, or)
		}
	}
	inBytes := scale == 1 && off == 0 // a.Displacements are the blocks' byte displacements
	if bls := a.Blocklengths; bls != nil && inBytes {
		// displacements in bytes as the type keeps them: share them too
		if hasSt {
			if st.MinBlocklength == 1 && st.MaxBlocklength != 1 && st.Touching == 0 {
				// what separateDisps finds, known: no pass over the blocks
				nd := z.alloc(dame.Node{Op: dame.Index, Blocklens: bls, Disps: a.Displacements, Child: z.leaf(size),
					Count: int64(n), Size: st.Total * size, Depth: 1})
				return withOr(nd, 0, st.ByteOr)
			}
		} else if or, ok := separateDisps(nil, a, scale, off, size); ok {
			return withOr(z.alloc(dame.Node{Op: dame.Index, Blocklens: bls, Disps: a.Displacements, Child: z.leaf(size)}).Finish(), 0, or)
		}
	}
	ds := make([]int64, n)
	if bls := a.Blocklengths; bls != nil && !(hasSt && inBytes) {
		if or, ok := separateDisps(ds, a, scale, off, size); ok {
			// No block is empty or touches the one before, and one has a
			// single leaf: the runs are the blocks, their lengths in
			// leaves the type's own block lengths (immutable, shared).
			return withOr(z.alloc(dame.Node{Op: dame.Index, Blocklens: bls, Disps: ds, Child: z.leaf(size)}).Finish(), 0, or)
		}
	}
	ls := make([]int64, n)
	k, or, lmin, lmax := scanRuns(ds, ls, a, scale, off, size)
	ds, ls = ds[:k], ls[:k]
	if lmin == lmax {
		nd, d := z.constRuns(slices.Clone(ds), lmin*size)
		return withOr(nd, d, or)
	}
	nd, d := z.unitRuns(ds, ls, size, lmin)
	return withOr(nd, d, or)
}

// withOr records or, the OR of the displacements of the blocks of n when
// it lists them (dame.BlockIndex, dame.Index), for align.
func withOr(n *dame.Node, d int64, or uint64) (*dame.Node, int64) {
	if n.Op == dame.BlockIndex || n.Op == dame.Index {
		n.WithDispsOr(or)
	}
	return n, d
}

// constBlocklen reports the block length of an indexed type's arguments
// when every block has it and it is not zero.
func constBlocklen(a datatype.Args) (int64, bool) {
	if a.Blocklengths == nil {
		return a.Blocklength, a.Blocklength > 0
	}
	if len(a.Blocklengths) == 0 || a.Blocklengths[0] == 0 || !constant(a.Blocklengths) {
		return 0, false
	}
	return a.Blocklengths[0], true
}

// blockDisps sets ds[i] to disps[i]*scale+off, the displacement of block
// i of L bytes, and returns the number of blocks that start where their
// predecessor ends and the OR of the displacements.
func blockDisps(ds, disps []int64, scale, off, L int64) (int, uint64) {
	ds = ds[:len(disps)]
	m := 0
	var or uint64
	end := disps[0]*scale + off - 1 // no block ends there
	for i, d := range disps {
		d = d*scale + off
		if d == end {
			m++
		}
		or |= uint64(d)
		ds[i], end = d, d+L
	}
	return m, or
}

// separateDisps writes the byte displacements of the blocks of an indexed
// type of a leaf (see leafRuns) to ds and returns their OR, if no block is
// empty or starts where the one before ends, some block has one leaf and
// not all have; ok is false otherwise (ds is then partly written).
func separateDisps(ds []int64, a datatype.Args, scale, off, size int64) (or uint64, ok bool) {
	disps, bls := a.Displacements, a.Blocklengths
	n := len(disps)
	bls = bls[:n]
	write := ds != nil // otherwise only check: the displacements are the bytes themselves
	ds = ds[:min(n, len(ds))]
	lmin, lmax := bls[0], bls[0]
	for _, bl := range bls {
		lmin, lmax = min(lmin, bl), max(lmax, bl)
	}
	if lmin != 1 || lmax == 1 {
		return 0, false // an empty block, or no block of one leaf, or all of one
	}
	end := disps[0]*scale + off - 1 // no block ends there
	for i, d := range disps {
		d = d*scale + off
		if d == end {
			return 0, false
		}
		or |= uint64(d)
		if write {
			ds[i] = d
		}
		end = d + bls[i]*size
	}
	return or, true
}

// scanRuns writes the runs of the blocks of an indexed type of a leaf (see
// leafRuns), touching blocks merged, to ds (displacements) and ls (lengths
// in leaves of size bytes), which have room for every block, and returns
// their number, the OR of their displacements and the smallest and
// largest length.
func scanRuns(ds, ls []int64, a datatype.Args, scale, off, size int64) (k int, or uint64, lmin, lmax int64) {
	disps, bls, bl := a.Displacements, a.Blocklengths, a.Blocklength
	lmin = 1<<63 - 1
	for i := 0; i < len(disps); {
		// the run starting at block i (the loops are written out in
		// full here and in leafSegments: a call per run costs more)
		if bls != nil {
			bl = bls[i]
		}
		if bl == 0 {
			i++
			continue
		}
		d, n := disps[i]*scale+off, bl
		for i++; i < len(disps); i++ {
			if bls != nil {
				bl = bls[i]
			}
			if bl == 0 {
				continue
			}
			if disps[i]*scale+off != d+n*size {
				break
			}
			n += bl // merge touching blocks
		}
		ds[k], ls[k] = d, n
		or |= uint64(d)
		lmin, lmax = min(lmin, n), max(lmax, n)
		k++
	}
	return k, or, lmin, lmax
}

// segment is count runs of L bytes, stride bytes apart, the first at disp;
// next is disp + count*stride, where the next run of the segment starts.
// A closed segment may stand for reps > 1 segments of its shape, gap bytes
// apart (the rows of a block of a matrix listed element by element).
type segment struct{ disp, L, stride, count, next, reps, gap int64 }

func (s segment) node(z *builder) *dame.Node {
	var n *dame.Node
	if s.count == 1 {
		n = z.leaf(s.L)
	} else {
		n = z.alloc(dame.Node{Op: dame.Vector, Count: s.count, Blocklen: 1, Stride: s.stride, Child: z.leaf(s.L)}).Finish()
		n.Extent = (s.count-1)*s.stride + s.L
	}
	if s.reps <= 1 {
		return n
	}
	v := z.vector(s.reps, 1, s.gap, n)
	if v != n && v.Op == dame.Vector && v.Extent == 0 {
		v.Extent = (s.reps-1)*s.gap + n.Extent
	}
	return v
}

// repeats reports whether closed segment c repeats the shape of segment
// group g (g.reps segments, gap apart) at g's next place, and adds it.
func (g *segment) repeats(c segment) bool {
	if c.L != g.L || c.count != g.count || c.count > 1 && c.stride != g.stride {
		return false
	}
	switch {
	case g.reps <= 1:
		g.reps, g.gap = 2, c.disp-g.disp
	case c.disp == g.disp+g.reps*g.gap:
		g.reps++
	default:
		return false
	}
	return true
}

// leafSegments describes the runs as at most a few segments of constant
// run length and stride, each a leaf or a vector, under a struct; ok is
// false when the runs need more segments than that (it then stops early).
// A run of the open segment's length continues it if the segment has one
// run (the stride is set by the second) or if it starts where the
// segment's next run would; another run opens a segment.
func (z *builder) leafSegments(a datatype.Args, scale, off, size int64) (*dame.Node, int64, bool) {
	s := segmenter{limit: 4 + len(a.Displacements)/256}
	disps, bls, bl := a.Displacements, a.Blocklengths, a.Blocklength
	if bls == nil && bl > 0 {
		// Blocks of one length (block-indexed types): the same walk with
		// the length hoisted, and a tight loop while runs of one block
		// continue the open segment (the column of a matrix).
		L0, n := bl*size, len(disps)
		// A block touches the one before when its displacement as given
		// is step more (when scale divides L0; otherwise none can).
		step, touchable := int64(0), scale != 0 && L0%scale == 0
		if touchable {
			step = L0 / scale
		}
		for i := 0; i < n; {
			d, L := disps[i]*scale+off, L0
			if touchable {
				j := i + 1
				for want := disps[i] + step; j < n && disps[j] == want; j++ {
					want += step // merge touching blocks
				}
				L += int64(j-i-1) * L0
				i = j
			} else {
				i++
			}
			opened := s.cur.count == 0 || !s.continues(d, L)
			if !s.add(d, L) {
				return nil, 0, false
			}
			if opened || L != L0 {
				continue
			}
			// cur has a stride and its runs are single blocks: follow it
			// on the displacements as given (d = raw·scale + off, exact
			// as the type's bounds fit in int64). Consecutive blocks of
			// the segment never touch (their runs would have merged:
			// the stride is not L0), so only the last block followed can
			// touch the block that ends the segment; it then starts a
			// run of its own.
			if scale == 0 {
				continue
			}
			rs, rn := s.cur.stride/scale, (s.cur.next-off)/scale
			j := i
			for j < n && disps[j] == rn {
				rn += rs
				j++
			}
			if j > i && j < n && disps[j]*scale == disps[j-1]*scale+L0 {
				j--
			}
			s.cur.count += int64(j - i)
			s.cur.next += int64(j-i) * s.cur.stride
			i = j
		}
		return s.node(z)
	}
	for i := 0; i < len(disps); {
		// the run starting at block i, as in scanRuns
		if bls != nil {
			bl = bls[i]
		}
		if bl == 0 {
			i++
			continue
		}
		d, L := disps[i]*scale+off, bl*size
		for i++; i < len(disps); i++ {
			if bls != nil {
				bl = bls[i]
			}
			if bl == 0 {
				continue
			}
			if disps[i]*scale+off != d+L {
				break
			}
			L += bl * size // merge touching blocks
		}
		if !s.add(d, L) {
			return nil, 0, false
		}
	}
	return s.node(z)
}

// constRuns returns the node of runs of L bytes at ds[i].
func (z *builder) constRuns(ds []int64, L int64) (*dame.Node, int64) {
	if len(ds) == 1 {
		return z.leaf(L), ds[0]
	}
	if s, ok := constStride(ds); ok {
		return z.alloc(dame.Node{Op: dame.Vector, Count: int64(len(ds)), Blocklen: 1, Stride: s, Child: z.leaf(L)}).Finish(), ds[0]
	}
	return z.alloc(dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: ds, Child: z.leaf(L)}).Finish(), 0
}

// unitRuns returns the node of runs of ls[i] leaves of size bytes at
// ds[i], of at least two lengths, the shortest lmin: an indexed node of
// leaves of size times the greatest common divisor of the lengths, which
// when a run has one leaf is 1 and leaves ls as it is (no pass over the
// runs). ls, owned by the caller, becomes its block lengths.
func (z *builder) unitRuns(ds, ls []int64, size, lmin int64) (*dame.Node, int64) {
	g := lmin
	if g > 1 {
		for _, l := range ls {
			if l%g != 0 {
				g = gcd(g, l)
				if g == 1 {
					break
				}
			}
		}
	}
	if g > 1 {
		for i, l := range ls {
			ls[i] = l / g
		}
	}
	return z.alloc(dame.Node{Op: dame.Index, Blocklens: ls, Disps: ds, Child: z.leaf(g * size)}).Finish(), 0
}

// byteRuns returns the node of contiguous runs of ls[i] > 0 bytes at
// ds[i]. Runs of different lengths become an indexed node of their
// greatest common divisor g; ls, owned by the caller, becomes its block
// lengths.
func (z *builder) byteRuns(ds, ls []int64) (*dame.Node, int64) {
	if len(ds) == 1 {
		return z.leaf(ls[0]), ds[0]
	}
	l0 := ls[0]
	or, mn, same := l0, l0, true
	for _, l := range ls[1:] {
		or |= l
		mn = min(mn, l)
		same = same && l == l0
	}
	if same {
		return z.constRuns(ds, l0)
	}
	// g divides every length, so the smallest, mn; the power of two
	// dividing every length is the lowest bit of their OR. When mn is a
	// power of two (that bit itself, or a larger one), so is g, which is
	// then that bit: no division, and dividing is shifting.
	g := or & -or
	if mn != g && mn&(mn-1) != 0 {
		g = l0
		for _, l := range ls[1:] {
			if l%g != 0 {
				if g = gcd(g, l); g == 1 {
					break // no more divisions (they cost a small struct's commit)
				}
			}
		}
	}
	if g&(g-1) == 0 {
		sh := bits.TrailingZeros64(uint64(g))
		for i, l := range ls {
			ls[i] = l >> sh
		}
	} else {
		for i, l := range ls {
			ls[i] = l / g
		}
	}
	return z.alloc(dame.Node{Op: dame.Index, Blocklens: ls, Disps: ds, Child: z.leaf(g)}).Finish(), 0
}

// segmenter groups runs of bytes, given in order, into segments of
// constant run length and stride, at most limit of them (see
// leafSegments). A run continues the open segment if that has one run (the
// stride is set by the second) or if it starts where the segment's next
// run would; another run opens a segment.
//
// The first closed segments live in buf, inside the segmenter, which the
// callers keep on their stack: lists of up to 7,679 blocks (limit at most
// len(buf)+1) allocate nothing until they succeed, and a random list (L6's
// 4096 blocks) gives up with no allocation at all. (A slice into buf would
// point into the segmenter and move it to the heap.)
type segmenter struct {
	buf   [32]segment // the first closed segments
	more  []segment   // the closed segments after buf's
	n     int         // closed segments, in buf and more
	cur   segment     // the open one; count 0 before the first run
	limit int
	// pend is the last run, held back while the next one may touch it
	pend    segment
	hasPend bool
}

// at returns closed segment i.
func (s *segmenter) at(i int) *segment {
	if i < len(s.buf) {
		return &s.buf[i]
	}
	return &s.more[i-len(s.buf)]
}

// push closes segment c.
func (s *segmenter) push(c segment) {
	if s.n < len(s.buf) {
		s.buf[s.n] = c
	} else {
		s.more = append(s.more, c)
	}
	s.n++
}

// continues reports whether the run of L bytes at d continues the open
// segment (rather than opening one).
func (s *segmenter) continues(d, L int64) bool {
	return L == s.cur.L && (s.cur.count == 1 || d == s.cur.next)
}

// add adds the run of L bytes at d to the segments; false when they pass
// the limit.
func (s *segmenter) add(d, L int64) bool {
	switch {
	case L == s.cur.L && s.cur.count == 1:
		s.cur.stride, s.cur.count, s.cur.next = d-s.cur.disp, 2, 2*d-s.cur.disp
	case L == s.cur.L && d == s.cur.next:
		s.cur.count++
		s.cur.next += s.cur.stride
	default:
		if s.cur.count > 0 {
			if s.n > 0 && s.at(s.n-1).repeats(s.cur) {
				// one more segment of the last one's shape, at its gap
			} else if s.n+1 == s.limit {
				return false
			} else {
				s.push(s.cur)
			}
		}
		s.cur = segment{disp: d, L: L, count: 1, next: d}
	}
	return true
}

// run takes the next block, L > 0 bytes at d: it merges with the held run
// when it starts where that ends, and is held in turn.
func (s *segmenter) run(d, L int64) bool {
	if s.hasPend && s.pend.disp+s.pend.L == d {
		s.pend.L += L
		return true
	}
	ok := !s.hasPend || s.add(s.pend.disp, s.pend.L)
	s.pend, s.hasPend = segment{disp: d, L: L}, true
	return ok
}

// strided takes m > 1 blocks of L bytes at d, d+S, … that do not touch
// each other (S != L): in O(1) once the open segment follows them.
func (s *segmenter) strided(d, L, S, m int64) bool {
	if !s.run(d, L) {
		return false
	}
	last := d + (m-1)*S // held back: the next block may touch it
	d, m = d+S, m-2
	if m > 0 {
		if !s.add(s.pend.disp, s.pend.L) {
			return false
		}
		s.hasPend = false
	}
	for m > 0 {
		if s.cur.L == L && s.cur.count >= 2 && s.cur.next == d && s.cur.stride == S {
			s.cur.count += m
			s.cur.next += m * S
			break
		}
		if !s.add(d, L) {
			return false
		}
		d, m = d+S, m-1
	}
	return s.run(last, L)
}

// node closes the segments and returns their node: nil if there are none.
func (s *segmenter) node(z *builder) (*dame.Node, int64, bool) {
	if s.hasPend && !s.add(s.pend.disp, s.pend.L) {
		return nil, 0, false
	}
	if s.cur.count == 0 {
		return nil, 0, false
	}
	if s.n == 0 || !s.at(s.n-1).repeats(s.cur) {
		s.push(s.cur)
	}
	if s.n == 1 {
		return s.buf[0].node(z), s.buf[0].disp, true
	}
	ds, bls1, kids := make([]int64, s.n), make([]int64, s.n), make([]*dame.Node, s.n)
	for i := range s.n {
		sg := s.at(i)
		ds[i], bls1[i], kids[i] = sg.disp, 1, sg.node(z)
	}
	b := blockList{disps: ds, bls: bls1, kids: kids}
	n, d := b.node(z)
	return n, d, true
}

// runSegments is leafSegments for a type whose lists are stored as runs
// (datatype.Type.Runs): the blocks of a stretch where both lists are
// arithmetic, with one block length, either all touch (one run) or form a
// strided sequence, so the work is O(runs) for the lists it applies to
// (those of a few segments); bl is the block length of block-indexed types
// (bls nil). It reports false as leafSegments does.
func (z *builder) runSegments(bls, ds []datatype.Run, bl, n int64, scale, off, size int64) (*dame.Node, int64, bool) {
	s := segmenter{limit: 4 + int(n/256)}
	bi, di := 0, 0
	var bdone, ddone int64 // blocks of runs bls[bi] and ds[di] already taken
	for di < len(ds) {
		m := ds[di].Count - ddone
		b0, bstep := bl, int64(0)
		if bls != nil {
			m = min(m, bls[bi].Count-bdone)
			b0, bstep = bls[bi].Start+bdone*bls[bi].Step, bls[bi].Step
		}
		d0, dstep := ds[di].Start+ddone*ds[di].Step, ds[di].Step
		switch {
		case bstep == 0 && b0 == 0:
			// empty blocks
		case bstep == 0 && (m == 1 || dstep*scale != b0*size):
			if m == 1 {
				if !s.run(d0*scale+off, b0*size) {
					return nil, 0, false
				}
			} else if !s.strided(d0*scale+off, b0*size, dstep*scale, m) {
				return nil, 0, false
			}
		case bstep == 0:
			// m blocks, each starting where the one before ends
			if !s.run(d0*scale+off, m*b0*size) {
				return nil, 0, false
			}
		default:
			for j := range m {
				if b := b0 + j*bstep; b > 0 && !s.run((d0+j*dstep)*scale+off, b*size) {
					return nil, 0, false
				}
			}
		}
		if ddone += m; ddone == ds[di].Count {
			di, ddone = di+1, 0
		}
		if bls != nil {
			if bdone += m; bdone == bls[bi].Count {
				bi, bdone = bi+1, 0
			}
		}
	}
	return s.node(z)
}
