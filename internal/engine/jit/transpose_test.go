package jit

import (
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
)

// TestTransposeLeftToKernel checks that the native engine declines the
// programs the compiled engine runs with its tiled transpose kernel (seed
// 003 Fig. 2, columns of ints side by side), and takes a plain strided one.
func TestTransposeLeftToKernel(t *testing.T) {
	if !Available() || engine.MaxLevel() == engine.LevelGo {
		t.Skip("no code generation here")
	}
	n := int64(64)
	col, err := datatype.HVector(n, 1, n*4, datatype.Of(datatype.Int))
	if err != nil {
		t.Fatal(err)
	}
	ds := make([]int64, n)
	for i := range ds {
		ds[i] = int64(i) * 4
	}
	tr, err := datatype.HIndexedBlock(1, ds, col)
	if err != nil {
		t.Fatal(err)
	}
	p := opt.Compile(tr)
	if !engine.Transposes(p) {
		t.Fatalf("Transposes = false for the transpose:\n%s", p)
	}
	if _, ok := engine.NewNative(p, engine.MaxLevel()); ok {
		t.Fatal("native engine chosen for a transpose")
	}
	if plan := engine.NewCompiled(p, engine.MaxLevel()).String(); !strings.Contains(plan, "transpose") {
		t.Fatalf("compiled plan has no transpose kernel:\n%s", plan)
	}
	vec, err := datatype.Vector(n, 1, 3, datatype.Of(datatype.Double))
	if err != nil {
		t.Fatal(err)
	}
	if pv := opt.Compile(vec); engine.Transposes(pv) {
		t.Fatalf("Transposes = true for a strided line:\n%s", pv)
	} else if _, ok := engine.NewNative(pv, engine.MaxLevel()); !ok {
		t.Fatal("native engine declined a strided line")
	}
}
