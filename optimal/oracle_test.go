package optimal

// Two independent oracles for Reconstruct:
//
//   - exhaustiveCost: the least cost over all trees (for small n) whose
//     every node sits at an absolute offset within a window V around the
//     map's displacements. It does not use the paper's lemmas (alignment,
//     nice trees); it enumerates parameters directly.
//   - paperCost: a literal implementation of seed 000's O(n^4) algorithm
//     (Listings 3 and 4: explicit O(n) repetition checks per divisor and a
//     fresh shortest-path search per segment), with either the paper's
//     Lemma 5 post-processing for unaligned maps or a corrected one.

import "math"

const oinf = int64(math.MaxInt64 / 4)

// wrapCost is the cheapest count-1 irregular node, or oinf.
func wrapCost(cm CostModel, set Constructors) int64 {
	w := oinf
	if set.Has(AllowIdx) {
		w = min(w, cm.Idx+cm.Ix)
	}
	if set.Has(AllowIdxBuc) {
		w = min(w, cm.IdxBuc+cm.Ix+cm.Bucket)
	}
	if set.Has(AllowStruc) {
		w = min(w, cm.Struc+cm.Ix+cm.Type)
	}
	return w
}

// blocksEqual reports whether the c blocks of length q of m[i:] are equal
// after alignment.
func blocksEqual(m TypeMap, i, q, c int) bool {
	for k := 1; k < c; k++ {
		for r := 0; r < q; r++ {
			a, b := m[i+r], m[i+k*q+r]
			if a.Type != b.Type || a.Disp-m[i].Disp != b.Disp-m[i+k*q].Disp {
				return false
			}
		}
	}
	return true
}

func isContig(m TypeMap, i, j int, sizes Sizer) bool {
	sz, ok := sizes.Size(m[i].Type)
	if !ok || sz <= 0 {
		return false
	}
	for k := i + 1; k <= j; k++ {
		if m[k].Type != m[i].Type || m[k].Disp-m[k-1].Disp != sz {
			return false
		}
	}
	return true
}

func positions(m TypeMap, i, q, c int) []int64 {
	pos := make([]int64, c)
	for k := range pos {
		pos[k] = m[i+k*q].Disp - m[i].Disp
	}
	return pos
}

// exhaustiveCost returns the least cost of a tree representing m over the
// window of offsets [min(disp,0)-slack, max(disp,0)+slack], or oinf.
func exhaustiveCost(m TypeMap, o Options) int64 {
	o, _ = o.normalized()
	cm, set := o.Cost, o.Constructors
	n := len(m)
	const slack = 3
	lo, hi := int64(0), int64(0)
	for _, e := range m {
		lo, hi = min(lo, e.Disp), max(hi, e.Disp)
	}
	lo, hi = lo-slack, hi+slack
	nv := int(hi - lo + 1)
	// best[i][j][v-lo]: least cost of a tree for m[i..j] shifted by -v.
	best := make([][][]int64, n)
	anyv := make([][]int64, n) // min over v
	for i := range best {
		best[i] = make([][]int64, n)
		anyv[i] = make([]int64, n)
	}
	wrap := wrapCost(cm, set)
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l - 1
			base := make([]int64, nv)
			// Costs that do not depend on v.
			indep := oinf
			for q := 1; q < l; q++ {
				if l%q != 0 {
					continue
				}
				c := l / q
				if !blocksEqual(m, i, q, c) {
					continue
				}
				pos := positions(m, i, q, c)
				ch := anyv[i][i+q-1]
				if set.Has(AllowIdx) {
					indep = min(indep, cm.Idx+int64(c)*cm.Ix+ch)
				}
				if set.Has(AllowIdxBuc) {
					// Every composition of the c copies into buckets.
					for mask := 0; mask < 1<<(c-1); mask++ {
						nb := int64(1)
						s, sok, ok := int64(0), false, true
						for k := 1; k < c && ok; k++ {
							if mask&(1<<(k-1)) != 0 {
								nb++
								continue
							}
							g := pos[k] - pos[k-1]
							if !sok {
								s, sok = g, true
							} else if g != s {
								ok = false
							}
						}
						if ok {
							indep = min(indep, cm.IdxBuc+nb*(cm.Ix+cm.Bucket)+ch)
						}
					}
				}
			}
			if set.Has(AllowStruc) && l >= 2 {
				// g[a]: least weight of a partition of [a..j] into >= 1 parts.
				g := make([]int64, l+1)
				g[l] = 0
				w := cm.Ix + cm.Type
				for a := l - 1; a >= 1; a-- {
					g[a] = oinf
					for b := a; b < l; b++ {
						g[a] = min(g[a], w+anyv[i+a][i+b]+g[b+1])
					}
				}
				for b := 0; b < l-1; b++ {
					indep = min(indep, cm.Struc+w+anyv[i][i+b]+g[b+1])
				}
			}
			for vi := range base {
				v := lo + int64(vi)
				c := indep
				if l == 1 && m[i].Disp == v {
					c = min(c, cm.Leaf)
				}
				if l >= 2 && set.Has(AllowContig) && m[i].Disp == v && isContig(m, i, j, o.Sizes) {
					c = min(c, cm.Contig)
				}
				for q := 1; q < l; q++ {
					if l%q != 0 || !blocksEqual(m, i, q, l/q) {
						continue
					}
					cnt := l / q
					pos := positions(m, i, q, cnt)
					ch := best[i][i+q-1][vi]
					if set.Has(AllowVec) {
						ok := true
						for k := 2; k < cnt; k++ {
							ok = ok && pos[k]-pos[k-1] == pos[1]
						}
						if ok {
							c = min(c, cm.Vec+ch)
						}
					}
					if set.Has(AllowSBuc) {
						if _, _, sz, ok := sbucBuckets(pos); ok {
							c = min(c, cm.SBuc+int64(len(sz))*cm.Bucket+ch)
						}
					}
				}
				base[vi] = c
			}
			minBase := oinf
			for _, c := range base {
				minBase = min(minBase, c)
			}
			anyv[i][j] = oinf
			for vi := range base {
				base[vi] = min(base[vi], minBase+wrap)
				anyv[i][j] = min(anyv[i][j], base[vi])
			}
			best[i][j] = base
		}
	}
	return best[0][n-1][-lo]
}

// paperCost implements seed 000's algorithm literally. With fixed=false the
// unaligned case follows the paper's Lemma 5; with fixed=true it keeps, for
// every prefix, the least cost of a tree with an irregular node on every
// root-to-leaf path.
func paperCost(m TypeMap, o Options, fixed bool) int64 {
	o, _ = o.normalized()
	cm, set := o.Cost, o.Constructors
	n := len(m)
	T := make([][]int64, n)
	irr := make([][]bool, n) // chosen tree has an irregular node on its chain
	for i := range T {
		T[i] = make([]int64, n)
		irr[i] = make([]bool, n)
	}
	w := cm.Ix + cm.Type
	// sp returns the shortest path from v_i to v_{j+1} over edges of
	// segments shorter than the whole (or including it with whole=true).
	sp := func(i, j int, whole bool) int64 {
		l := j - i + 1
		dist := make([]int64, l+1)
		for k := 1; k <= l; k++ {
			dist[k] = oinf
			for a := 0; a < k; a++ {
				if k-a == l && !whole {
					continue
				}
				if dist[a] < oinf && T[i+a][i+k-1] < oinf {
					dist[k] = min(dist[k], dist[a]+w+T[i+a][i+k-1])
				}
			}
		}
		return dist[l]
	}
	type cand struct {
		cost int64
		irr  bool
	}
	// repetition lists the repetition-rooted candidates for [i, j] whose
	// subtree cost comes from sub(q).
	repetition := func(i, j int, sub func(q int) (int64, bool), withC1 bool) []cand {
		l := j - i + 1
		var out []cand
		for q := 1; q <= l; q++ {
			if l%q != 0 || (q == l && !withC1) {
				continue
			}
			c := l / q
			if !blocksEqual(m, i, q, c) {
				continue
			}
			ch, chIrr := sub(q)
			if ch >= oinf {
				continue
			}
			pos := positions(m, i, q, c)
			if set.Has(AllowIdx) {
				out = append(out, cand{cm.Idx + int64(c)*cm.Ix + ch, true})
			}
			if set.Has(AllowIdxBuc) {
				freq := map[int64]int{}
				f := 0
				for k := 1; k < c; k++ {
					g := pos[k] - pos[k-1]
					freq[g]++
					f = max(f, freq[g])
				}
				out = append(out, cand{cm.IdxBuc + int64(c-f)*(cm.Ix+cm.Bucket) + ch, true})
			}
			if c >= 2 && set.Has(AllowVec) {
				ok := true
				for k := 2; k < c; k++ {
					ok = ok && pos[k]-pos[k-1] == pos[1]
				}
				if ok {
					out = append(out, cand{cm.Vec + ch, chIrr})
				}
			}
			if c >= 2 && set.Has(AllowSBuc) {
				if _, _, sz, ok := sbucBuckets(pos); ok {
					out = append(out, cand{cm.SBuc + int64(len(sz))*cm.Bucket + ch, chIrr})
				}
			}
		}
		return out
	}
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l - 1
			bc := cand{oinf, false}
			if l == 1 {
				bc = cand{cm.Leaf, false}
			} else if set.Has(AllowContig) && isContig(m, i, j, o.Sizes) {
				bc = cand{cm.Contig, false}
			}
			for _, c := range repetition(i, j, func(q int) (int64, bool) { return T[i][i+q-1], irr[i][i+q-1] }, false) {
				if c.cost < bc.cost {
					bc = c
				}
			}
			if set.Has(AllowStruc) && l >= 2 {
				if s := sp(i, j, false); s < oinf && cm.Struc+s < bc.cost {
					bc = cand{cm.Struc + s, true}
				}
			}
			T[i][j], irr[i][j] = bc.cost, bc.irr
		}
	}
	if m[0].Disp == 0 {
		return T[0][n-1]
	}
	if !fixed {
		// Lemma 5 as written: shift the optimal aligned tree if it has an
		// irregular node, else the best irregular root with any count.
		if irr[0][n-1] {
			return T[0][n-1]
		}
		best := oinf
		for _, c := range repetition(0, n-1, func(q int) (int64, bool) { return T[0][q-1], irr[0][q-1] }, true) {
			if c.irr {
				best = min(best, c.cost)
			}
		}
		if set.Has(AllowStruc) {
			best = min(best, cm.Struc+sp(0, n-1, true))
		}
		return best
	}
	// Corrected: A[j] for every prefix [0..j].
	A := make([]int64, n)
	wrap := wrapCost(cm, set)
	for j := 0; j < n; j++ {
		a := oinf
		if T[0][j] < oinf {
			a = T[0][j] + wrap
		}
		if irr[0][j] {
			a = min(a, T[0][j])
		}
		for _, c := range repetition(0, j, func(q int) (int64, bool) { return T[0][q-1], irr[0][q-1] }, false) {
			if c.irr {
				a = min(a, c.cost)
			}
		}
		// vec and sbuc over an absorbing prefix.
		for _, c := range repetition(0, j, func(q int) (int64, bool) { return A[q-1], true }, false) {
			if c.irr {
				a = min(a, c.cost)
			}
		}
		if set.Has(AllowStruc) && j >= 1 {
			a = min(a, cm.Struc+sp(0, j, false))
		}
		A[j] = a
	}
	return A[n-1]
}
