package ddt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
)

// TestJITNow checks that Auto with JITNow runs native code where the JIT
// is available (and the compiled engine's kernels otherwise), and that
// tiering compiles a type after enough use.
func TestJITNow(t *testing.T) {
	ty, _ := datatype.Vector(100, 1, 3, datatype.Of(datatype.Double))
	c, err := CommitWith(ty, Options{JITNow: true})
	if err != nil {
		t.Fatal(err)
	}
	native := c.Engine() == Native
	// Kernels "go" (DDT_NOASM=1, DDT_ASM=go) turns native code off too.
	jitOn := engine.NativeAvailable() && engine.DefaultLevel() != engine.LevelGo
	if jitOn && !strings.Contains(c.Plan(), "byte vector moves") {
		t.Fatalf("JITNow: plan %q", c.Plan())
	}
	if !jitOn && native {
		t.Fatalf("JIT off, yet plan %q", c.Plan())
	}
	if jitOn != native {
		t.Fatalf("Engine() = %v with JIT available %v", c.Engine(), jitOn)
	}
	if n, _ := CommitWith(ty, Options{Engine: Native}); n.Engine() != c.Engine() || strings.Contains(n.Plan(), "\nnative code: ") != native {
		t.Fatalf("Native: plan %q, want %q", n.Plan(), c.Plan())
	}
	lazy, _ := Commit(ty)
	src := make([]byte, 8*300)
	for i := range src {
		src[i] = byte(i * 7)
	}
	want := make([]byte, 800)
	if _, err := c.Pack(want, src, 0, 1); err != nil {
		t.Fatal(err)
	}
	for range 512 { // the tiering compiles after about 300 calls of 800 bytes (jit.TieredCalls)
		got := make([]byte, 800)
		if _, err := lazy.Pack(got, src, 0, 1); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("tiered pack differs (%v)", err)
		}
	}
	if jitOn && !strings.Contains(lazy.Plan(), "byte vector moves") {
		t.Fatalf("not compiled after 512 packs: plan %q", lazy.Plan())
	}
	if c, _ := CommitWith(ty, Options{JITNow: true, Kernels: "go"}); c.Engine() == Native || strings.Contains(c.Plan(), "\nnative code: ") {
		t.Fatalf("Kernels go, yet plan %q", c.Plan())
	}
}

// TestParseEngine checks that every engine, Native included, parses from
// its name, and that the names are those the command line accepts.
func TestParseEngine(t *testing.T) {
	for _, e := range []Engine{Auto, Reference, Interpreter, Compiled, Native} {
		if got, err := ParseEngine(e.String()); err != nil || got != e {
			t.Errorf("ParseEngine(%q) = %v, %v", e.String(), got, err)
		}
	}
	if Native.String() != "native" {
		t.Errorf("Native is %q", Native)
	}
	if _, err := ParseEngine("jit"); err == nil {
		t.Error("ParseEngine(jit) succeeded")
	}
}
