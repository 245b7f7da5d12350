package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamePlan checks that dame --plan prints the engine chosen and why,
// then the plan.
func TestDamePlan(t *testing.T) {
	out, errOut, st := cli(t, "vector(3, 1, 2, int)\n", "dame", "--plan", "-")
	if st != 0 || !strings.HasPrefix(out, "engine ") || !strings.Contains(out, "auto") {
		t.Errorf("dame --plan: status %d (%s), output %q", st, errOut, out)
	}
	out, _, st = cli(t, "contiguous(4, int)\n", "dame", "--plan", "-")
	if st != 0 || !strings.HasPrefix(out, "engine compiled: auto, no native code: ") {
		t.Errorf("dame --plan of a contiguous type: status %d, output %q", st, out)
	}
}

// TestEngineNative checks that pack accepts --engine native and packs
// what the reference engine packs.
func TestEngineNative(t *testing.T) {
	dir := t.TempDir()
	typ, in := filepath.Join(dir, "t.ddt"), filepath.Join(dir, "in")
	img := make([]byte, 8*300)
	for i := range img {
		img[i] = byte(i * 7)
	}
	if err := os.WriteFile(typ, []byte("vector(100, 1, 3, double)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, img, 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for _, e := range []string{"native", "reference"} {
		out := filepath.Join(dir, e)
		if _, errOut, st := cli(t, "", "pack", typ, "--count", "1", "--in", in, "--out", out, "--engine", e); st != 0 {
			t.Fatalf("pack --engine %s: status %d: %s", e, st, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil || len(b) != 800 {
			t.Fatalf("pack --engine %s: %d bytes (%v)", e, len(b), err)
		}
		outs = append(outs, b)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("--engine native packs other bytes than --engine reference")
	}
}
