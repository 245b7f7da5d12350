package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoNetworkingCode checks that ddt links neither net nor cgo: with
// them, Go's threads take glibc stacks and malloc arenas, and ddt fails to
// start now and then under an address-space limit of 1 GB (ulimit -v).
// ddt serve runs the playground server as a program of its own for that.
func TestNoNetworkingCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for dep := range strings.FieldsSeq(string(out)) {
		if dep == "net" || dep == "runtime/cgo" {
			t.Errorf("ddt depends on %s", dep)
		}
	}
}
