package main

import (
	"strings"
	"testing"
)

func TestDameAsm(t *testing.T) {
	out, errOut, st := cli(t, "resized(struct([1, 3, 1, 2], [0, 8, 32, 36], [int, double, char, float]), 0, 48)\n", "dame", "--asm", "-")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	for _, want := range []string{"pack instances of", "unpack instances of", "[rdi]", "ret"} {
		if !strings.Contains(out, want) {
			t.Errorf("dame --asm output lacks %q:\n%.400s", want, out)
		}
	}
	out, _, st = cli(t, "contiguous(4, int)\n", "dame", "--asm", "-")
	if st != 0 || !strings.Contains(out, "not compiled") {
		t.Errorf("contiguous type: status %d, output %q", st, out)
	}
	// without --asm the command prints the program as before
	out, _, st = cli(t, "vector(3, 1, 2, int)\n", "dame", "-")
	if st != 0 || !strings.HasPrefix(out, "EXIT(") {
		t.Errorf("dame without --asm: status %d, output %q", st, out)
	}
}
