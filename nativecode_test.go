package ddt

import (
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
