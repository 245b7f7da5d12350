package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedIsCurrent: comm/m../lib/zconstruct.c is what the constructor
// table generates now (run `go generate ./interpose` after changing it).
func TestGeneratedIsCurrent(t *testing.T) {
	have, err := os.ReadFile("../lib/zconstruct.c")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, Generate()) {
		t.Fatal("comm/m../lib/zconstruct.c is stale: run go generate ./interpose")
	}
}
