package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/external32"
	"github.com/ddtlab/ddt/lang"
)

// TestPackExternal32 checks ddt pack/unpack --datarep external32, whole and
// in chunks, against package external32.
func TestPackExternal32(t *testing.T) {
	dir := t.TempDir()
	const src = "struct([2, 1, 1], [0, 16, 32], [long, long_double, resized(vector(2, 1, 2, int), 0, 16)])\n"
	typ := filepath.Join(dir, "t.ddt")
	img := filepath.Join(dir, "img")
	os.WriteFile(typ, []byte(src), 0o644)
	b := make([]byte, 3*48+8)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	os.WriteFile(img, b, 0o644)

	ty, err := lang.Parse("t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := ddt.Commit(ty)
	x := external32.New(c)
	want := make([]byte, 3*(4+4+16+8))
	if _, err := x.Pack(want, b, 8, 3); err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []string{"0", "1", "7"} {
		out := filepath.Join(dir, "p"+chunk)
		if _, errs, st := cli(t, "", "pack", typ, "--count", "3", "--in", img, "--out", out, "--origin", "8", "--chunk", chunk, "--datarep", "external32"); st != 0 {
			t.Fatalf("pack --chunk %s: %s", chunk, errs)
		}
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("pack --chunk %s: %x, want %x", chunk, got, want)
		}
		dst := filepath.Join(dir, "u"+chunk)
		os.WriteFile(dst, make([]byte, len(b)), 0o644)
		if _, errs, st := cli(t, "", "unpack", typ, "--count", "3", "--in", out, "--out", dst, "--origin", "8", "--chunk", chunk, "--datarep", "external32"); st != 0 {
			t.Fatalf("unpack --chunk %s: %s", chunk, errs)
		}
		gotImg, _ := os.ReadFile(dst)
		wantImg := make([]byte, len(b))
		if _, err := x.Unpack(wantImg, want, 8, 3); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotImg, wantImg) {
			t.Errorf("unpack --chunk %s: image differs", chunk)
		}
	}
	_, errs, st := cli(t, "", "pack", typ, "--count", "3", "--in", img, "--out", filepath.Join(dir, "x"), "--datarep", "xdr")
	if st != 2 || !strings.Contains(errs, "--datarep") {
		t.Errorf("bad --datarep: status %d, %q", st, errs)
	}
}
