package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDraw(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rowcol.svg")
	stdout, errs, st := cli(t, "", "draw", "testdata/rowcol.ddt", "-o", out)
	if st != 0 || stdout != "" {
		t.Fatalf("status %d, stdout %q: %s", st, stdout, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", out, err)
		}
	}
	for _, want := range []string{"size 7996  extent 3996004", "row = 4000 B", "ub=3996004"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}

	stdout, errs, st = cli(t, "contiguous(3, int)\n", "draw", "-", "--text", "--count", "2")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	if !strings.Contains(stdout, "\n0  iiiiii\n   111111\n") {
		t.Errorf("text picture:\n%s", stdout)
	}
	stdout, _, _ = cli(t, "vector(2, 1, 3, double)", "draw", "-")
	if !strings.HasPrefix(stdout, "<?xml") {
		t.Errorf("SVG on stdout starts %q", stdout[:min(len(stdout), 40)])
	}
}

func TestDrawServeErrors(t *testing.T) {
	for _, c := range []struct {
		status int
		args   []string
	}{
		{2, []string{"draw"}},
		{2, []string{"draw", "testdata/rowcol.ddt", "--count", "-2"}},
		{2, []string{"draw", "testdata/rowcol.ddt", "--count", "0"}},
		{2, []string{"draw", "testdata/rowcol.ddt", "--width", "-1"}},
		{2, []string{"draw", "testdata/rowcol.ddt", "--cols", "100000"}},
		{1, []string{"draw", "testdata/none.ddt"}},
		{1, []string{"draw", "testdata/rowcol.ddt", "--cols", "4096", "--rows", "4096"}},
		{1, []string{"draw", "testdata/rowcol.ddt", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.svg")}},
		{2, []string{"serve", "extra"}},
		{1, []string{"serve", "--src", "/"}},
	} {
		_, errs, st := cli(t, "", c.args...)
		if st != c.status || strings.Count(strings.TrimSpace(errs), "\n") != 0 || errs == "" {
			t.Errorf("%v: status %d (want %d), stderr %q", c.args, st, c.status, errs)
		}
	}
	_, errs, st := cli(t, "resized(int, 0, 4611686018427387904)", "draw", "-", "--count", "3")
	if st != 1 || !strings.Contains(errs, "draw") {
		t.Errorf("overflowing span: status %d, %q", st, errs)
	}
}
