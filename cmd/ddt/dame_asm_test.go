package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestDameAsm(t *testing.T) {
	s7 := "resized(struct([1, 3, 1, 2], [0, 8, 32, 36], [int, double, char, float]), 0, 48)\n"
	// this machine's code: arm64 on arm64, amd64 elsewhere
	out, errOut, st := cli(t, s7, "dame", "--asm", "-")
	if st != 0 || strings.HasPrefix(out, "; arm64:") != (runtime.GOARCH == "arm64") {
		t.Fatalf("status %d on %s: %.100s%s", st, runtime.GOARCH, out, errOut)
	}
	out, errOut, st = cli(t, s7, "dame", "--asm", "--arch", "amd64", "-")
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
	// the arm64 code, listed on any machine
	out, errOut, st = cli(t, "vector(100, 8, 11, double)\n", "dame", "--asm", "--arch", "arm64", "-")
	if st != 0 {
		t.Fatalf("--arch arm64: status %d: %s", st, errOut)
	}
	for _, want := range []string{"; arm64:", "pack instances of", "ldp q0, q1, [x", "subs x", "b.ne", "ret"} {
		if !strings.Contains(out, want) {
			t.Errorf("dame --asm --arch arm64 output lacks %q:\n%.600s", want, out)
		}
	}
	if _, _, st = cli(t, "vector(100, 3, 7, double)\n", "dame", "--asm", "--arch", "sparc", "-"); st == 0 {
		t.Error("--arch sparc succeeded")
	}
	// without --asm the command prints the program as before
	out, _, st = cli(t, "vector(3, 1, 2, int)\n", "dame", "-")
	if st != 0 || !strings.HasPrefix(out, "EXIT(") {
		t.Errorf("dame without --asm: status %d, output %q", st, out)
	}
}
