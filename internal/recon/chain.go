package recon

import "fmt"

// ChainSet is the constructor set SolveChain handles: every tree over it
// is a chain of single-child nodes above one leaf.
const ChainSet = AllowVec | AllowIdx | AllowIdxBuc | AllowContig

// MaxChainLen is the longest sequence SolveChain accepts.
const MaxChainLen = 1 << 24

// SolveChain returns a least-cost tree over set ⊆ ChainSet (vec, idx,
// idxbuc and the contiguous leaf; plain leaves always) whose flattening is s, and its
// cost: the same optimum Solve finds for such a set, in O(n log log n)
// time and O(n) memory (the restricted reconstruction of seed 000 §VII).
//
// A tree over these constructors is a chain: level j repeats the block of
// the level below, of b(j-1) elements, b(j)/b(j-1) times, down to a leaf (or
// a contiguous leaf of b(1) elements). Its flattening is then made of n/b
// translated copies of its first b elements for every block length b of the
// chain, and the displacements of level j are those of the first elements
// of the blocks of b(j-1) elements within the first b(j) elements. So a
// least-cost chain is a least-cost path 1 = b(0) | b(1) | ... | b(k) = n
// through the divisors b of n at which s splits into translated copies of
// its prefix, a level costing Vec if its displacements form an arithmetic
// progression, Idx + c·Ix as an idx, and IdxBuc + (c − f)·(Ix + Bucket)
// as an idxbuc whose substride is the most frequent of the c − 1 gaps
// between block starts (f times; its buckets are the runs at that gap, as
// Solve forms them). Splits are tested with the
// Z-function of the gap sequence (O(n/b) for divisor b after O(n)), the
// longest arithmetic progression of block starts in O(n/b) per divisor,
// the gap frequencies of idxbuc levels in O(n/a) hash operations per
// divisor a, and the path in O(d(n)^2) for the d(n) divisors of n.
func SolveChain(s Seq, c Cost, set Set) (*Tree, int64, error) {
	n := len(s.Sym)
	if n == 0 || len(s.Disp) != n {
		return nil, 0, fmt.Errorf("recon: %d symbols at %d displacements", n, len(s.Disp))
	}
	if set&^ChainSet != 0 {
		return nil, 0, fmt.Errorf("recon: SolveChain takes vec, idx, idxbuc and contig only, got set %#x", uint8(set))
	}
	if n > MaxChainLen {
		return nil, 0, fmt.Errorf("recon: sequence of %d elements, more than %d", n, MaxChainLen)
	}
	sym := s.Sym[0]
	if sym < 0 || int(sym) >= len(s.LeafCost) {
		return nil, 0, fmt.Errorf("recon: element 0: symbol %d without a leaf cost", sym)
	}
	for i, d := range s.Disp {
		if d > MaxDisp || d < -MaxDisp {
			return nil, 0, fmt.Errorf("recon: element %d: displacement %d out of range ±2^61", i, d)
		}
		if s.Sym[i] != sym {
			// a chain has one leaf, so one symbol
			return nil, 0, notRepresentable(s.Disp[0])
		}
	}
	d := s.Disp
	// gap[k] = d[k+1]-d[k]; z[p] = longest common prefix of gap[p:] and gap.
	m := n - 1
	gap := make([]int64, m)
	for k := range gap {
		gap[k] = d[k+1] - d[k]
	}
	z := zFunction(gap)
	// the divisors at which s splits into translated copies of its prefix
	var splits []int
	for q := 1; q <= n; q++ {
		if n%q != 0 {
			continue
		}
		ok := true
		for t := q; t < n && ok; t += q {
			ok = int(z[t]) >= q-1
		}
		if ok {
			splits = append(splits, q)
		}
	}
	z = nil
	// arith[a]: how many block starts d[0], d[a], d[2a], ... form an
	// arithmetic progression from the first.
	arith := make([]int, len(splits))
	for x, a := range splits {
		k := 1
		if a < n {
			st := d[a] - d[0]
			k = 2
			for (k)*a < n && d[k*a]-d[(k-1)*a] == st {
				k++
			}
		}
		arith[x] = k
	}
	// buckets[x*len(splits)+y]: the fewest buckets of an idxbuc level
	// from blocks of splits[x] to splits[y] elements (c − f)
	var buckets []int64
	if set.Has(AllowIdxBuc) {
		ns := len(splits)
		buckets = make([]int64, ns*ns)
		freq := map[int64]int64{}
		for x, a := range splits {
			clear(freq)
			var top int64
			k := 1 // block starts seen
			for y := x + 1; y < ns; y++ {
				b := splits[y]
				if b%a != 0 {
					continue
				}
				for ; k < b/a; k++ {
					gp := d[k*a] - d[(k-1)*a]
					freq[gp]++
					top = max(top, freq[gp])
				}
				buckets[x*ns+y] = int64(b/a) - top
			}
		}
	}
	contigLen := 0 // the longest prefix that is one contiguous leaf
	if set.Has(AllowContig) && int(sym) < len(s.Size) && s.Size[sym] > 0 {
		contigLen = 1
		for contigLen < n && gap[contigLen-1] == s.Size[sym] {
			contigLen++
		}
	}
	const none = int64(-1)
	type choice struct {
		cost int64
		from int  // index in splits of the level below, -1 for a leaf
		kind Kind // of the level: Vec, Idx or IdxBuc
		abs  bool // the level below is its g entry (has an idx)
	}
	f := make([]choice, len(splits)) // least cost of a chain for [0, b)
	g := make([]choice, len(splits)) // the same with an idx level
	for x := range splits {
		f[x], g[x] = choice{cost: none}, choice{cost: none}
	}
	f[0] = choice{cost: s.LeafCost[sym], from: -1}
	better := func(ch *choice, v int64) bool { return v >= 0 && (ch.cost < 0 || v < ch.cost) }
	for y, b := range splits {
		if y > 0 && b <= contigLen && better(&f[y], c.Contig) {
			f[y] = choice{cost: c.Contig, from: -1}
		}
		for x := 0; x < y; x++ {
			a := splits[x]
			if b%a != 0 || f[x].cost < 0 {
				continue
			}
			cnt := int64(b / a)
			if set.Has(AllowVec) && int(cnt) <= arith[x] {
				if v := f[x].cost + c.Vec; better(&f[y], v) {
					f[y] = choice{cost: v, from: x, kind: Vec}
				}
				if g[x].cost >= 0 {
					if v := g[x].cost + c.Vec; better(&g[y], v) {
						g[y] = choice{cost: v, from: x, kind: Vec, abs: true}
					}
				}
			}
			irregular := func(lv int64, k Kind) {
				if v := f[x].cost + lv; better(&f[y], v) {
					f[y] = choice{cost: v, from: x, kind: k}
				}
				if better(&g[y], f[x].cost+lv) {
					g[y] = choice{cost: f[x].cost + lv, from: x, kind: k}
				}
				if g[x].cost >= 0 {
					if v := g[x].cost + lv; better(&g[y], v) {
						g[y] = choice{cost: v, from: x, kind: k, abs: true}
					}
				}
			}
			if set.Has(AllowIdx) {
				irregular(c.Idx+cnt*c.Ix, Idx)
			}
			if set.Has(AllowIdxBuc) {
				irregular(c.IdxBuc+buckets[x*len(splits)+y]*(c.Ix+c.Bucket), IdxBuc)
			}
		}
	}
	top := len(splits) - 1
	var build func(y int, tab []choice) *Tree
	build = func(y int, tab []choice) *Tree {
		ch := tab[y]
		b := splits[y]
		if ch.from < 0 {
			if b == 1 {
				return &Tree{Kind: Leaf, Sym: sym, Count: 1}
			}
			return &Tree{Kind: Leaf, Sym: sym, Count: int64(b), Size: s.Size[sym]}
		}
		a := splits[ch.from]
		below := f
		if ch.abs {
			below = g
		}
		child := build(ch.from, below)
		if ch.kind == Vec {
			return &Tree{Kind: Vec, Count: int64(b / a), Stride: d[a] - d[0], Child: child}
		}
		ds := make([]int64, b/a)
		for k := range ds {
			ds[k] = d[k*a] - d[0]
		}
		if ch.kind == IdxBuc {
			st, bd, sz := idxbucBuckets(ds)
			return &Tree{Kind: IdxBuc, Stride: st, Disps: bd, Sizes: sz, Child: child}
		}
		return &Tree{Kind: Idx, Disps: ds, Child: child}
	}
	if d[0] == 0 || f[top].cost < 0 {
		if f[top].cost < 0 {
			return nil, 0, notRepresentable(d[0])
		}
		return build(top, f), f[top].cost, nil
	}
	// the shift goes into an idx level: one of the chain, or one of count
	// 1 on top
	wrap, wrapBuc := none, false
	if set.Has(AllowIdx) {
		wrap = f[top].cost + c.Idx + c.Ix
	}
	if v := f[top].cost + c.IdxBuc + c.Ix + c.Bucket; set.Has(AllowIdxBuc) && (wrap < 0 || v < wrap) {
		wrap, wrapBuc = v, true
	}
	switch {
	case g[top].cost >= 0 && (wrap < 0 || g[top].cost <= wrap):
		t := build(top, g)
		shiftChain(t, d[0])
		return t, g[top].cost, nil
	case wrapBuc:
		return &Tree{Kind: IdxBuc, Disps: []int64{d[0]}, Sizes: []int64{1}, Child: build(top, f)}, wrap, nil
	case wrap >= 0:
		return &Tree{Kind: Idx, Disps: []int64{d[0]}, Child: build(top, f)}, wrap, nil
	}
	return nil, 0, ErrShift
}

// notRepresentable is Solve's error for a sequence no tree represents:
// ErrShift if it starts at a nonzero displacement, else ErrNotRepresentable.
func notRepresentable(d0 int64) error {
	if d0 != 0 {
		return ErrShift
	}
	return ErrNotRepresentable
}

// zFunction returns z with z[0] = len(x) and z[p] the length of the
// longest common prefix of x[p:] and x.
func zFunction(x []int64) []int32 {
	n := len(x)
	z := make([]int32, n+1) // z[n] = 0, so that callers may index one past
	if n == 0 {
		return z
	}
	z[0] = int32(n)
	l, r := 0, 0
	for p := 1; p < n; p++ {
		k := 0
		if p < r {
			k = min(r-p, int(z[p-l]))
		}
		for p+k < n && x[k] == x[p+k] {
			k++
		}
		z[p] = int32(k)
		if p+k > r {
			l, r = p, p+k
		}
	}
	return z
}
