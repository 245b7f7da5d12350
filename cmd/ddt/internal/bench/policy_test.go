package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestNormalizePolicy (DDT_POLICY=1 go test -run NormalizePolicy -v
// ./cmd/ddt/internal/bench) measures commit's normalization policy in one
// process, interleaved: for each mpipack layout (S, M), seed 000's row and
// column at n = 10^5 (as hindexed_block, indexed and struct) and each
// DDTBench layout of the suite (S, M), the committed program's cost
// (opt.Cost) and the minimum times over 12 samples of create+commit and of
// one pack, with normalization never, auto (the default) and always.
func TestNormalizePolicy(t *testing.T) {
	if os.Getenv("DDT_POLICY") != "1" {
		t.Skip("set DDT_POLICY=1 to measure")
	}
	type row struct {
		name          string
		typ           func() *datatype.Type
		count, origin int64
		alloc         int64
		sparse        bool
		fill          func([]byte)
	}
	var rows []row
	for _, d := range mpCases {
		if d.size != "S" && d.size != "M" {
			continue
		}
		c := resolve(d)
		rows = append(rows, row{d.id + " " + d.size, c.makeType, c.count, 0, c.alloc, c.sparse, nil})
	}
	for _, k := range []mpKind{kRCHIB, kRCIdx, kRCStruct} {
		c := resolve(mpDef{"RC", "row+col", "n=1e5", k, 100000, 0, 0})
		rows = append(rows, row{fmt.Sprintf("rowcol1e5/%s", c.ctor), c.makeType, c.count, 0, c.alloc, c.sparse, nil})
	}
	// lists of rows listed element by element (issue 24): 16 or 200 rows
	// of 64 doubles 16 B apart at random row starts, and the same in 8
	// planes (a 3-D block)
	rowsAt := func(rowsN, planes int) func() *datatype.Type {
		return func() *datatype.Type {
			r := rand.New(rand.NewPCG(24, 4))
			starts := r.Perm(5000)[:rowsN/planes]
			slices.Sort(starts)
			var ds []int64
			for p := range planes {
				for _, s := range starts {
					for j := range 64 {
						ds = append(ds, int64(p)*1<<26+int64(s)*4096+int64(j)*16)
					}
				}
			}
			t, err := datatype.HIndexedBlock(1, ds, datatype.Of(datatype.Double))
			if err != nil {
				panic(err)
			}
			return t
		}
	}
	for _, n := range []int{16, 200} {
		for _, planes := range []int{1, 8} {
			t := rowsAt(n, planes)()
			lo, hi, _ := t.Span(1)
			rows = append(rows, row{fmt.Sprintf("%d rows listed, %d plane(s)", n, planes), rowsAt(n, planes), 1, -lo, hi - lo, false, nil})
		}
	}
	ls, err := suite()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if len(l.name) < 9 || l.name[:9] != "ddtbench/" || (l.size != "S" && l.size != "M") {
			continue
		}
		rows = append(rows, row{l.name[9:] + " " + l.size, l.typ, l.count, l.origin, l.alloc, l.sparse, l.fill})
	}
	modes := []ddt.Normalization{ddt.NormalizeNever, ddt.NormalizeAuto, ddt.NormalizeAlways}
	fmt.Printf("%-34s | %8s %8s %8s | %10s %10s %10s | %10s %10s %10s\n", "layout", "cost nv", "auto", "always",
		"c+c nv us", "auto", "always", "pack nv us", "auto", "always")
	for _, r := range rows {
		src, free, err := region(r.alloc, r.sparse)
		if err != nil {
			t.Fatal(err)
		}
		if r.fill != nil {
			r.fill(src)
		} else if !r.sparse {
			fillDense(src)
		}
		var fns []func()
		var cts []*ddt.Committed
		var costs []int64
		for _, m := range modes {
			o := ddt.Options{Normalize: m}
			ct, err := ddt.CommitWith(r.typ(), o)
			if err != nil {
				t.Fatal(err)
			}
			cts, costs = append(cts, ct), append(costs, opt.Cost(ct.Program()))
			fns = append(fns, func() {
				if _, err := ddt.CommitWith(r.typ(), o); err != nil {
					panic(err)
				}
			})
		}
		packed, err := cts[0].PackSize(r.count)
		if err != nil {
			t.Fatal(err)
		}
		pk := make([]byte, packed)
		for _, ct := range cts {
			fns = append(fns, func() { ct.Pack(pk, src, r.origin, r.count) })
		}
		st := benchMulti(fns, 12, 0.5e-3)
		us := func(i int) float64 { return st[i].min * 1e6 }
		fmt.Printf("%-34s | %8d %8d %8d | %10.2f %10.2f %10.2f | %10.2f %10.2f %10.2f\n", r.name, costs[0], costs[1], costs[2],
			us(0), us(1), us(2), us(3), us(4), us(5))
		free()
	}
}
