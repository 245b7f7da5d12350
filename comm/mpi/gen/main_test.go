package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedIsCurrent: comm/mpi/zconstruct.h is what the constructor
// table generates now (run `go generate ./comm/mpi` after changing it).
func TestGeneratedIsCurrent(t *testing.T) {
	have, err := os.ReadFile("../zconstruct.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, Generate()) {
		t.Fatal("comm/mpi/zconstruct.h is stale: run go generate ./comm/mpi")
	}
}
