package engine

import "unsafe"

// A moveList is the data movement of one instance of a node made of a few
// small blocks of bytes (a C struct such as {int; double[3]; char;
// float[2]}), compiled into fixed-size word moves: no per-block length
// switch or copy call at run time.
//
// Unpack must write exactly the bytes of the type, so its list splits each
// block into moves of 8, 4, 2 and 1 bytes (the last move of a block may
// overlap the one before it, which writes the same bytes twice). Pack may
// write past a block into the packed bytes that follow inside the instance,
// as long as a later move rewrites them: its fast list moves blocks shorter
// than a word in one 8-byte move when that stays inside the instance's
// packed bytes. Since every move of a block comes after the moves of the
// blocks before it, each byte ends up written by its own block. The fast
// list also reads up to 7 bytes past a block in memory; the last instances
// of a call, whose reads could leave the bytes the caller checked, use the
// exact list.
//
// The lists run a column at a time over chunks of instances: one move for
// up to chunk instances, then the next move. A column is a strided copy of
// one fixed width, with no decoding per move.
type moveList struct {
	exact []move // exact moves
	fast  []move // pack only: over-writing moves
	// overM is how far the fast list reads past the instance's highest
	// memory byte; span is the instance's memory footprint (lowest to
	// highest byte) and disjoint whether no two blocks share a memory byte.
	overM, span int
	disjoint    bool
	size        int // packed bytes of one instance
}

// move copies w bytes (1, 2, 4 or 8) between memory offset m and packed
// offset p of an instance.
type move struct {
	m, p int
	w    int
}

// chunk is how many instances a column covers before the next move.
const chunk = 32

// newMoveList compiles the blocks of lens[i] bytes at memory displacements
// offs[i], packed one after the other (size bytes in all).
func newMoveList(offs, lens []int64, size int) *moveList {
	n := 2*len(offs) + size/8 + 1 // enough moves for either list
	ml := &moveList{size: size, disjoint: true, exact: make([]move, 0, n), fast: make([]move, 0, n)}
	q, loM, hiM, hiFast := 0, 0, 0, 0
	type iv struct{ lo, hi int }
	seen := make([]iv, 0, maxMoveBlocks)
	for i, o64 := range offs {
		o, L := int(o64), int(lens[i])
		if L == 0 {
			continue
		}
		ml.exact = appendExact(ml.exact, o, q, L)
		if L < 8 && q+8 <= size {
			ml.fast = append(ml.fast, move{o, q, 8})
		} else {
			ml.fast = appendExact(ml.fast, o, q, L)
		}
		if len(seen) == 0 {
			loM, hiM = o, o+L
		}
		loM, hiM = min(loM, o), max(hiM, o+L)
		hiFast = max(hiFast, o+max(L, 8))
		for _, b := range seen {
			if o < b.hi && b.lo < o+L {
				ml.disjoint = false
			}
		}
		seen = append(seen, iv{o, o + L})
		q += L
	}
	ml.overM, ml.span = hiFast-hiM, hiM-loM
	return ml
}

// appendExact appends the moves of exactly the L bytes at memory offset o,
// packed offset q.
func appendExact(ms []move, o, q, L int) []move {
	for _, w := range [...]int{8, 4, 2, 1} {
		if L >= w {
			for c := 0; c+w <= L; c += w {
				ms = append(ms, move{o + c, q + c, w})
			}
			if L%w != 0 {
				ms = append(ms, move{o + L - w, q + L - w, w}) // overlaps the previous move
			}
			return ms
		}
	}
	return ms
}

// run moves cnt instances, instance k's memory at m+mo+k*ext and its packed
// bytes at p+po+k*size.
func (ml *moveList) run(pack bool, m unsafe.Pointer, mo int, p unsafe.Pointer, po int, cnt, ext int) {
	if !pack {
		if ext > 0 && ext >= ml.span && ml.disjoint {
			// no two moves write the same memory byte: any order will do
			columns(m, mo, ext, p, po, ml.size, cnt, ml.exact, false)
		} else {
			rows(m, mo, ext, p, po, ml.size, cnt, ml.exact, false)
		}
		return
	}
	// instance k may use the fast list when the bytes it reads past its
	// last block belong to instances k+1..cnt-1
	fast := 0
	if ext > 0 {
		fast = max(cnt-(ml.overM+ext-1)/ext, 0)
	}
	if fast > 0 {
		columns(m, mo, ext, p, po, ml.size, fast, ml.fast, true)
	}
	if fast < cnt {
		columns(m, mo+fast*ext, ext, p, po+fast*ml.size, ml.size, cnt-fast, ml.exact, true)
	}
}

// columns runs ms on cnt instances (memory at m+mo+k*ext, packed bytes at
// p+po+k*size; memory to packed when pack is set) a move at a time over
// chunks of instances. Within an instance the moves run in list order.
func columns(m unsafe.Pointer, mo, ext int, p unsafe.Pointer, po, size, cnt int, ms []move, pack bool) {
	for cnt > 0 {
		b := min(cnt, chunk)
		for _, x := range ms {
			if pack {
				column(p, po+x.p, size, m, mo+x.m, ext, b, x.w)
			} else {
				column(m, mo+x.m, ext, p, po+x.p, size, b, x.w)
			}
		}
		cnt -= b
		mo += b * ext
		po += b * size
	}
}

// column moves n words of w bytes: word i from s+so+i*ss to d+do+i*ds.
func column(d unsafe.Pointer, do, ds int, s unsafe.Pointer, so, ss, n, w int) {
	switch w {
	case 8:
		for range n {
			*(*uint64)(at(d, do)) = *(*uint64)(at(s, so))
			do += ds
			so += ss
		}
	case 4:
		for range n {
			*(*uint32)(at(d, do)) = *(*uint32)(at(s, so))
			do += ds
			so += ss
		}
	case 2:
		for range n {
			*(*uint16)(at(d, do)) = *(*uint16)(at(s, so))
			do += ds
			so += ss
		}
	default:
		for range n {
			*(*uint8)(at(d, do)) = *(*uint8)(at(s, so))
			do += ds
			so += ss
		}
	}
}

// rows runs ms on cnt instances an instance at a time.
func rows(m unsafe.Pointer, mo, ext int, p unsafe.Pointer, po, size, cnt int, ms []move, pack bool) {
	for k := 0; k < cnt; k++ {
		for _, x := range ms {
			d, s := at(m, mo+x.m), at(p, po+x.p)
			if pack {
				d, s = s, d
			}
			switch x.w {
			case 8:
				*(*uint64)(d) = *(*uint64)(s)
			case 4:
				*(*uint32)(d) = *(*uint32)(s)
			case 2:
				*(*uint16)(d) = *(*uint16)(s)
			default:
				*(*uint8)(d) = *(*uint8)(s)
			}
		}
		mo += ext
		po += size
	}
}
