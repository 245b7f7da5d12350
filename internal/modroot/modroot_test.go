package modroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root, err := Find(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "modroot", "modroot.go")); err != nil {
		t.Fatalf("Find(.) = %s, not the module root: %v", root, err)
	}
	if _, err := Find(t.TempDir()); err == nil {
		t.Fatal("Find of a directory outside the checkout succeeded")
	}
}
