package optimal

import "github.com/ddtlab/ddt/internal/recon"

// maxSegBlock bounds the block length segmentTree tries.
const maxSegBlock = 64

// segmentTree is a candidate of the approximation for maps made of
// consecutive pieces, each a run of equal blocks (an index list of small
// structs followed by an index list of scalars, as DDTBench's LAMMPS
// layouts): scanning left to right, the longest run of c ≥ 2 translated
// copies of a block of 2 to 64 elements starting at the current element
// is one piece — the least-cost chain of vec and idx levels over its
// block starts (vec, idx and idxbuc levels: recon.SolveChain) above the
// block's exact tree — and the
// elements between such runs are one piece each (their least-cost chain
// for one basic type, else their list). The pieces form a struc (or the
// one piece is the tree). ok is false when no run is found. Time O(64·n)
// plus the blocks' exact trees (O(64³) each, one per piece).
func segmentTree(m TypeMap, opts Options) (tree *Node, cost int64, ok bool) {
	n := len(m)
	// letters: type id and gap to the element before
	ty := make([]int32, n)
	gap := make([]int64, n)
	ids := map[string]int32{}
	for i, e := range m {
		id, ok := ids[e.Type]
		if !ok {
			id = int32(len(ids))
			ids[e.Type] = id
		}
		ty[i] = id
		if i > 0 {
			gap[i] = e.Disp - m[i-1].Disp
		}
	}
	// blockEq: the q elements from a and from b are translates.
	blockEq := func(a, b, q int) bool {
		if ty[a] != ty[b] {
			return false
		}
		for k := 1; k < q; k++ {
			if gap[a+k] != gap[b+k] || ty[a+k] != ty[b+k] {
				return false
			}
		}
		return true
	}
	type piece struct{ start, end, q int }
	var pieces []piece
	fill, runs := -1, 0
	for a := 0; a < n; {
		bq, bc := 0, 0
		for q := 2; q <= maxSegBlock && a+2*q <= n; q++ {
			c := 1
			for a+(c+1)*q <= n && blockEq(a, a+c*q, q) {
				c++
			}
			if c >= 2 && c*q > bc*bq {
				bq, bc = q, c
			}
		}
		if bq == 0 {
			if fill < 0 {
				fill = a
			}
			a++
			continue
		}
		if fill >= 0 {
			pieces = append(pieces, piece{fill, a, 0})
			fill = -1
		}
		pieces = append(pieces, piece{a, a + bc*bq, bq})
		runs++
		a += bc * bq
	}
	if fill >= 0 {
		pieces = append(pieces, piece{fill, n, 0})
	}
	if runs == 0 {
		return nil, 0, false
	}
	aligned := func(s, e int) TypeMap {
		x := make(TypeMap, e-s)
		for i := range x {
			x[i] = Elem{m[s+i].Type, m[s+i].Disp - m[s].Disp}
		}
		return x
	}
	root := &Node{Kind: Struc}
	for _, p := range pieces {
		var t *Node
		if p.q == 0 {
			x := aligned(p.start, p.end)
			t = listTree(x)
			if c, _, err := chainTree(x, opts); err == nil && oneType(x) && opts.Cost.Of(c) < opts.Cost.Of(t) {
				t = c
			}
		} else {
			block, bcost, err := Reconstruct(aligned(p.start, p.start+p.q), opts)
			if err != nil {
				return nil, 0, false
			}
			c := (p.end - p.start) / p.q
			seq := recon.Seq{Sym: make([]int32, c), Disp: make([]int64, c), LeafCost: []int64{bcost}}
			for k := range c {
				seq.Disp[k] = m[p.start+k*p.q].Disp - m[p.start].Disp
			}
			rt, _, err := recon.SolveChain(seq, recon.Cost(opts.Cost), recon.Set(opts.Constructors&(AllowVec|AllowIdx|AllowIdxBuc)))
			if err != nil {
				return nil, 0, false
			}
			t = overBlock(rt, block)
		}
		root.Disps = append(root.Disps, m[p.start].Disp)
		root.Children = append(root.Children, t)
	}
	if len(root.Children) == 1 && m[0].Disp == 0 {
		tree = root.Children[0]
	} else if !opts.Constructors.Has(AllowStruc) {
		return nil, 0, false
	} else {
		tree = root
	}
	return tree, opts.Cost.Of(tree), true
}

// overBlock converts a chain over one symbol to a tree whose leaf is block.
func overBlock(t *recon.Tree, block *Node) *Node {
	switch t.Kind {
	case recon.Vec:
		return &Node{Kind: Vec, Count: t.Count, Stride: t.Stride, Child: overBlock(t.Child, block)}
	case recon.Idx:
		return &Node{Kind: Idx, Disps: t.Disps, Child: overBlock(t.Child, block)}
	case recon.IdxBuc:
		return &Node{Kind: IdxBuc, Stride: t.Stride, Disps: t.Disps, Sizes: t.Sizes, Child: overBlock(t.Child, block)}
	}
	return block
}
