package ddt

import (
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// TestNativeCode checks what NativeCode reports: nothing before the
// native code exists, then two distinct code addresses and a positive
// piece size once the engine has tiered up (where the JIT runs).
func TestNativeCode(t *testing.T) {
	ty, _ := datatype.Vector(100, 1, 3, datatype.Of(datatype.Double))
	c, err := Commit(ty)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := c.NativeCode(); ok {
		t.Fatal("NativeCode before any pack")
	}
	src, dst := make([]byte, 8*300), make([]byte, 800)
	for range 512 { // the tiering compiles after about 300 calls of 800 bytes (jit.TieredCalls)
		if _, err := c.Pack(dst, src, 0, 1); err != nil {
			t.Fatal(err)
		}
	}
	p, u, max, ok := c.NativeCode()
	if !jit.Available() || engine.DefaultLevel() == engine.LevelGo {
		if ok {
			t.Fatal("NativeCode without the JIT")
		}
		return
	}
	if !ok || p == 0 || u == 0 || p == u || max <= 0 {
		t.Fatalf("NativeCode after 512 packs: %#x %#x %d %v (plan %q)", p, u, max, ok, c.Plan())
	}
}

// TestNativeSteps checks what NativeSteps reports: nothing before the
// native code exists, then for a type larger than a unit of the code (no
// whole-message entry), once compiled, one step each way, a call of code
// that moves all 40 rows; nothing for types whose instances are units.
func TestNativeSteps(t *testing.T) {
	rows, _ := datatype.Vector(40, 1024, 1100, datatype.Of(datatype.Double))
	c, err := Commit(rows)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.NativeSteps(); ok {
		t.Fatal("NativeSteps before any pack")
	}
	lo, hi, _ := rows.Span(1)
	src, dst := make([]byte, hi-lo), make([]byte, rows.Size())
	var p, u []NativeStep
	ok := false
	for i := 0; i < 2048 && !ok; i++ { // until the tiering compiles
		if _, err := c.Pack(dst, src, -lo, 1); err != nil {
			t.Fatal(err)
		}
		p, u, ok = c.NativeSteps()
	}
	if !jit.Available() || engine.DefaultLevel() == engine.LevelGo {
		if ok {
			t.Fatal("NativeSteps without the JIT")
		}
		return
	}
	if !ok || len(p) != 1 || len(u) != 1 || p[0].Code == 0 || u[0].Code == 0 || p[0].Code == u[0].Code ||
		p[0].N != 40 || p[0].Packed != 0 || u[0].N != 40 {
		t.Fatalf("NativeSteps after up to 2048 packs: %+v %+v %v (plan %q)", p, u, ok, c.Plan())
	}
	if _, _, _, ok := c.NativeCode(); ok {
		t.Fatal("NativeCode for a type above a unit")
	}
	// types whose instances are units of the code: none (count of them
	// move by calls of the instance entry, not by steps per instance),
	// a small vector (NativeCode serves it) and L2's far-apart doubles
	small, _ := datatype.Vector(100, 1, 3, datatype.Of(datatype.Double))
	far, _ := datatype.Resized(datatype.Of(datatype.Double), 0, 192)
	for _, ty := range []*datatype.Type{small, far} {
		cs, err := Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(4096)
		buf, out := make([]byte, n*ty.Extent()), make([]byte, n*ty.Size())
		for i := 0; i < 512 && strings.Contains(cs.Plan(), "not compiled yet"); i++ {
			if _, err := cs.Pack(out, buf, 0, n); err != nil {
				t.Fatal(err)
			}
		}
		if !jit.Available() || engine.DefaultLevel() == engine.LevelGo {
			continue
		}
		if strings.Contains(cs.Plan(), "not compiled yet") {
			t.Fatalf("not compiled after 512 packs: %s", cs.Plan())
		}
		if p, u, ok := cs.NativeSteps(); ok {
			t.Fatalf("NativeSteps of %v: %+v %+v", ty, p, u)
		}
	}
}
