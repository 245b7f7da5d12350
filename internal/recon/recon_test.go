package recon

import (
	"errors"
	"fmt"
	"testing"
)

var paperCost = Cost{Leaf: 2, Vec: 4, Idx: 3, IdxBuc: 4, Struc: 2, Ix: 1, Bucket: 1, Type: 1, Contig: 2, SBuc: 4}

const paperSet = AllowVec | AllowIdx | AllowIdxBuc | AllowStruc

// flatten is the sequence a tree represents (seed 000, Listing 1).
func flatten(t *Tree, base int64, syms []int32, disps []int64) ([]int32, []int64) {
	switch t.Kind {
	case Leaf:
		for k := range max(t.Count, 1) {
			syms, disps = append(syms, t.Sym), append(disps, base+k*t.Size)
		}
	case Vec:
		for k := range t.Count {
			syms, disps = flatten(t.Child, base+k*t.Stride, syms, disps)
		}
	case Idx:
		for _, d := range t.Disps {
			syms, disps = flatten(t.Child, base+d, syms, disps)
		}
	case IdxBuc:
		for k, d := range t.Disps {
			for j := range t.Sizes[k] {
				syms, disps = flatten(t.Child, base+d+j*t.Stride, syms, disps)
			}
		}
	case SBuc:
		for k, a := range t.Sizes {
			for j := range a {
				syms, disps = flatten(t.Child, base+int64(k)*t.Stride+j*t.Inner, syms, disps)
			}
		}
	case Struc:
		for k, c := range t.Children {
			syms, disps = flatten(c, base+t.Disps[k], syms, disps)
		}
	}
	return syms, disps
}

func treeCost(t *Tree) int64 {
	switch t.Kind {
	case Leaf:
		if t.Count > 1 {
			return paperCost.Contig
		}
		return paperCost.Leaf
	case Vec:
		return paperCost.Vec + treeCost(t.Child)
	case Idx:
		return paperCost.Idx + int64(len(t.Disps))*paperCost.Ix + treeCost(t.Child)
	case IdxBuc:
		return paperCost.IdxBuc + int64(len(t.Disps))*(paperCost.Ix+paperCost.Bucket) + treeCost(t.Child)
	case SBuc:
		return paperCost.SBuc + int64(len(t.Sizes))*paperCost.Bucket + treeCost(t.Child)
	}
	c := paperCost.Struc + int64(len(t.Children))*(paperCost.Ix+paperCost.Type)
	for _, ch := range t.Children {
		c += treeCost(ch)
	}
	return c
}

func TestSolve(t *testing.T) {
	grid := Seq{LeafCost: []int64{2}}
	for a := range int64(5) {
		for b := range int64(4) {
			grid.Sym, grid.Disp = append(grid.Sym, 0), append(grid.Disp, 3+a*100+b*8)
		}
	}
	rowcol := Seq{LeafCost: []int64{2, 2}} // a row of symbol 0, a column of symbol 1
	for k := range int64(10) {
		rowcol.Sym, rowcol.Disp = append(rowcol.Sym, 0), append(rowcol.Disp, k*4)
	}
	for k := range int64(9) {
		rowcol.Sym, rowcol.Disp = append(rowcol.Sym, 1), append(rowcol.Disp, 40+k*40)
	}
	for _, c := range []struct {
		name string
		seq  Seq
		want string // the root and its child kinds
		cost int64
	}{
		// a 5 x 4 grid at 3: one bucket at 3 of rows 100 apart (the
		// shift and one repetition in one node), each a vector:
		// idxbuc(1, 100, [3], [5], vec(4, 8, s0)), cheaper than
		// idx(1, [3], vec(5, 100, vec(4, 8, s0)))
		{"grid", grid, "idxbuc vec leaf", 4 + 2 + 4 + 2},
		{"rowcol", rowcol, "struc", 2 + 2*2 + (4 + 2) + (4 + 2)},
	} {
		tr, cost, err := Solve(c.seq, paperCost, paperSet)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		syms, disps := flatten(tr, 0, nil, nil)
		if fmt.Sprint(syms, disps) != fmt.Sprint(c.seq.Sym, c.seq.Disp) {
			t.Errorf("%s: tree flattens to %v %v, want %v %v", c.name, syms, disps, c.seq.Sym, c.seq.Disp)
		}
		if cost != c.cost || treeCost(tr) != cost {
			t.Errorf("%s: cost %d (tree %d), want %d", c.name, cost, treeCost(tr), c.cost)
		}
		var kinds []string
		for n := tr; n != nil; n = n.Child {
			kinds = append(kinds, [...]string{"", "leaf", "vec", "idx", "idxbuc", "struc", "sbuc"}[n.Kind])
		}
		if got := fmt.Sprint(kinds); got != "["+c.want+"]" {
			t.Errorf("%s: kinds %s, want [%s]", c.name, got, c.want)
		}
	}
}

func TestSolveErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		seq  Seq
		set  Set
		want error
	}{
		{"empty", Seq{}, paperSet, nil},
		{"no leaf cost", Seq{Sym: []int32{1}, Disp: []int64{0}, LeafCost: []int64{2}}, paperSet, nil},
		{"far", Seq{Sym: []int32{0}, Disp: []int64{1 << 62}, LeafCost: []int64{2}}, paperSet, nil},
		{"shift without irregular nodes", Seq{Sym: []int32{0}, Disp: []int64{4}, LeafCost: []int64{2}}, AllowVec, ErrShift},
		{"two symbols without struc", Seq{Sym: []int32{0, 1}, Disp: []int64{0, 4}, LeafCost: []int64{2, 2}}, AllowVec | AllowIdx, ErrNotRepresentable},
		{"costs too large", Seq{Sym: []int32{0, 0}, Disp: []int64{0, 8}, LeafCost: []int64{1 << 30}}, paperSet, ErrCost},
	} {
		_, _, err := Solve(c.seq, paperCost, c.set)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}
