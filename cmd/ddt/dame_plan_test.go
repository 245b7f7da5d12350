package main

import (
	"strings"
	"testing"
)

// TestDamePlan checks that dame --plan prints the engine chosen and why,
// then the plan, and that --engine native is accepted.
func TestDamePlan(t *testing.T) {
	for _, c := range []struct{ engine, want string }{
		{"interpreter", "engine interpreter: asked\ninterpreter "},
		{"reference", "engine reference: asked\nreference (type-tree walk)\n"},
		{"compiled", "engine compiled: asked\ncompiled "},
		{"native", "engine "},
		{"auto", "engine "},
	} {
		out, errOut, st := cli(t, "vector(3, 1, 2, int)\n", "dame", "--plan", "--engine", c.engine, "-")
		if st != 0 || !strings.HasPrefix(out, c.want) {
			t.Errorf("dame --plan --engine %s: status %d (%s), output %q", c.engine, st, errOut, out)
		}
	}
	if _, _, st := cli(t, "vector(3, 1, 2, int)\n", "dame", "--plan", "--engine", "jit", "-"); st == 0 {
		t.Error("dame --plan --engine jit succeeded")
	}
}
