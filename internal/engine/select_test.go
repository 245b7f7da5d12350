package engine

import (
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// TestTransposeLeftToKernel checks that Select declines native code for
// the programs the compiled engine runs with its tiled transpose kernel
// (seed 003 Fig. 2, columns of ints side by side), and takes a plain
// strided one.
func TestTransposeLeftToKernel(t *testing.T) {
	if !jit.Available() || MaxLevel() == LevelGo {
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
	if !Transposes(p) {
		t.Fatalf("Transposes = false for the transpose:\n%s", p)
	}
	if _, r := Select(p, Caps{Level: MaxLevel()}); r.Kind != KindCompiled || !strings.Contains(r.Why, "transpose") {
		t.Fatalf("Select chose %v for a transpose", r)
	}
	if plan := NewCompiled(p, MaxLevel()).String(); !strings.Contains(plan, "transpose") {
		t.Fatalf("compiled plan has no transpose kernel:\n%s", plan)
	}
	vec, err := datatype.Vector(n, 1, 3, datatype.Of(datatype.Double))
	if err != nil {
		t.Fatal(err)
	}
	if pv := opt.Compile(vec); Transposes(pv) {
		t.Fatalf("Transposes = true for a strided line:\n%s", pv)
	} else if e, r := Select(pv, Caps{Level: MaxLevel(), Now: true}); r.Kind != KindNative || e.Whole() == nil {
		t.Fatalf("Select declined native code for a strided line: %v", r)
	}
}

// TestSelect checks the engine Select returns for each kind asked, and
// that Auto never selects native code at the Go kernel level.
func TestSelect(t *testing.T) {
	ty, _ := datatype.Vector(8, 1, 3, datatype.Of(datatype.Double))
	p := opt.Compile(ty)
	for _, c := range []struct {
		caps Caps
		prog *dame.Program
		want Kind
	}{
		{Caps{Want: KindReference, Type: ty}, p, KindReference},
		{Caps{Want: KindCompiled, Type: ty}, nil, KindReference},
		{Caps{Want: KindInterpreter}, p, KindInterpreter},
		{Caps{Want: KindCompiled, Level: MaxLevel()}, p, KindCompiled},
		{Caps{Want: Auto, Level: LevelGo}, p, KindCompiled},
		{Caps{Want: KindNative, Level: LevelGo}, p, KindCompiled},
	} {
		e, r := Select(c.prog, c.caps)
		if r.Kind != c.want || e == nil || r.Why == "" {
			t.Errorf("Select(%v) = %v, want %v", c.caps, r, c.want)
		}
	}
}
