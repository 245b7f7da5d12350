package opt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// compileByBuild is CompileInto without its direct paths (simple,
// basicStruct): every type through build, with a memo.
func compileByBuild(t *datatype.Type) *dame.Program {
	p := new(dame.Program)
	p.Reset(t.Size(), t.Extent())
	if t.Size() == 0 {
		return p
	}
	var z builder
	n, off := z.build(t, new(builtMemo))
	p.SetRoot(n, off)
	return p
}

// progText is what must agree between two compilations of one type (the
// text leaves out the root node's own extent).
func progText(p *dame.Program) string {
	rootExt := int64(0)
	if p.Root != nil {
		rootExt = p.Root.Extent
	}
	return fmt.Sprintf("%s off %d size %d extent %d root extent %d depth %d align %d",
		p.String(), p.Off, p.Size, p.Extent, rootExt, p.Depth, p.Align)
}

// randomBasicStruct is a struct of 1-6 blocks of predefined types (basic
// and pair types, some not contiguous, blocks of length 0 among them) at
// displacements in [-64, 64), under a resized type half of the time.
func randomBasicStruct(r *rand.Rand, names []string) (*datatype.Type, error) {
	n := 1 + r.IntN(6)
	bls, ds := make([]int64, n), make([]int64, n)
	types := make([]*datatype.Type, n)
	for i := range n {
		bls[i] = int64(r.IntN(5))
		ds[i] = int64(r.IntN(128) - 64)
		if r.IntN(3) == 0 && i > 0 {
			ds[i] = ds[i-1] + bls[i-1]*types[i-1].Extent() // touching blocks
		}
		types[i] = datatype.Predefined(names[r.IntN(len(names))])
	}
	t, err := datatype.Struct(bls, ds, types)
	if err != nil || r.IntN(2) == 0 {
		return t, err
	}
	return datatype.Resized(t, int64(r.IntN(32)-16), int64(r.IntN(96)-16))
}

// TestDirectPathsMatchBuild: the programs CompileInto builds on its direct
// paths (vectors and resized types of predefined types, structs of
// predefined types) are those of build, for random structs of predefined
// types and typegen's random types.
func TestDirectPathsMatchBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 3))
	names := datatype.PredefinedNames()
	direct := 0
	check := func(i int, ty *datatype.Type) {
		var z builder // the direct paths take types with data (CompileInto's test first)
		if ty.Size() > 0 {
			if _, _, ok := z.simple(ty); ok {
				direct++
			} else if _, _, ok := z.basicStruct(ty); ok {
				direct++
			}
		}
		if got, want := progText(Compile(ty)), progText(compileByBuild(ty)); got != want {
			t.Fatalf("type %d (%v): CompileInto\n%s\nbuild\n%s", i, ty, got, want)
		}
	}
	for i := range 3000 {
		ty, err := randomBasicStruct(r, names)
		if err != nil {
			continue
		}
		check(i, ty)
	}
	opts := typegen.Options{Constructors: []datatype.Combiner{datatype.CombinerStruct, datatype.CombinerVector,
		datatype.CombinerHVector, datatype.CombinerResized}, MaxDepth: 2}
	for i := range 2000 {
		check(3000+i, typegen.Random(r, opts))
	}
	if direct < 2000 {
		t.Fatalf("only %d of 5000 types took a direct path", direct)
	}
}
