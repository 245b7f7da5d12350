package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ddt runs one command line and returns stdout, stderr and the status.
func cli(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	st := run(&env{strings.NewReader(stdin), &out, &errb}, args)
	return out.String(), errb.String(), st
}

func TestShow(t *testing.T) {
	out, errs, st := cli(t, "", "show", "testdata/rowcol.ddt")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	for _, want := range []string{"size: 7996\n", "extent: 3996004\n", "lb: 0\n", "true_ub: 3996004\n",
		"elements: 1999\n", "blocks: 999\n", "depth: 2\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
}

func TestTypemapStdin(t *testing.T) {
	out, errs, st := cli(t, "x = resized(vector(2, 1, -3, short), -8, 20)\n", "typemap", "-", "--count", "2")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	want := "short 0\nshort -6\nshort 20\nshort 14\n"
	if out != want {
		t.Errorf("typemap = %q, want %q", out, want)
	}
}

func TestErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "img")
	os.WriteFile(img, make([]byte, 10), 0o644)
	cases := [][]string{
		{},
		{"nosuch"},
		{"show"},
		{"show", "testdata/none.ddt"},
		{"show", "-"},
		{"typemap", "testdata/rowcol.ddt", "--count", "-1"},
		{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", filepath.Join(dir, "o")},
		{"pack", "testdata/rowcol.ddt", "--in", img, "--out", filepath.Join(dir, "o")},
		{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", filepath.Join(dir, "o"), "--engine", "x"},
		{"unpack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", filepath.Join(dir, "missing")},
		{"show", "testdata/rowcol.ddt", "--bogus"},
	}
	for _, args := range cases {
		stdin := "vector(1, 2,"
		out, errs, st := cli(t, stdin, args...)
		if st != 1 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") > 0 && len(args) > 0 || errs == "" {
			t.Errorf("ddt %v: status %d, stdout %q, stderr %q: want status 1 and a one-line error", args, st, out, errs)
		}
		if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
			t.Errorf("ddt %v: panicked: %s", args, errs)
		}
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	img := make([]byte, 4000000)
	for i := range img {
		img[i] = byte(i * 31)
	}
	in := filepath.Join(dir, "img")
	os.WriteFile(in, img, 0o644)
	whole, chunked := filepath.Join(dir, "p1"), filepath.Join(dir, "p2")
	for _, args := range [][]string{
		{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", in, "--out", whole},
		{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", in, "--out", chunked, "--chunk", "7", "--engine", "reference"},
	} {
		if _, errs, st := cli(t, "", args...); st != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	p1, _ := os.ReadFile(whole)
	p2, _ := os.ReadFile(chunked)
	if len(p1) != 7996 || !bytes.Equal(p1, p2) {
		t.Fatalf("packed %d bytes; chunked equal: %v", len(p1), bytes.Equal(p1, p2))
	}
	if !bytes.Equal(p1[:4000], img[:4000]) || !bytes.Equal(p1[4000:4004], img[4000:4004]) || !bytes.Equal(p1[4004:4008], img[8000:8004]) {
		t.Errorf("packed bytes are not the row then the column")
	}
	out := filepath.Join(dir, "out")
	blank := make([]byte, len(img))
	os.WriteFile(out, blank, 0o644)
	if _, errs, st := cli(t, "", "unpack", "testdata/rowcol.ddt", "--count", "1", "--in", whole, "--out", out, "--chunk", "1000"); st != 0 {
		t.Fatal(errs)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got[:4004], img[:4004]) || got[4004] != 0 || !bytes.Equal(got[8000:8004], img[8000:8004]) {
		t.Errorf("unpack did not restore exactly the covered bytes")
	}
}

func TestSigEqualSignatures(t *testing.T) {
	out, errs, st := cli(t, "", "sig", "testdata/rowcol.ddt", "testdata/contig1999.ddt")
	if st != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out)
	}
	a, b := strings.Fields(lines[0]), strings.Fields(lines[1])
	if a[0] != b[0] || a[1] != "1999" || b[2] != "testdata/contig1999.ddt" {
		t.Errorf("row+column and 1999 contiguous ints must hash equal: %q", out)
	}
	show, _, _ := cli(t, "", "show", "testdata/rowcol.ddt")
	if !strings.Contains(show, "signature: "+a[0]+"\n") {
		t.Errorf("show's signature differs from sig's: %s", show)
	}
}

func TestExportC(t *testing.T) {
	out, errs, st := cli(t, "", "export", "--lang", "c", "testdata/rowcol.ddt")
	if st != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"MPI_Type_contiguous(1000, MPI_INT", "MPI_Type_vector(999, 1, 1000, MPI_INT", "MPI_Type_commit("} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %q:\n%s", want, out)
		}
	}
	if _, _, st := cli(t, "", "export", "--lang", "cobol", "testdata/rowcol.ddt"); st != 1 {
		t.Errorf("unsupported language must fail")
	}
}

// FuzzCommands feeds arbitrary .ddt text to the commands that read a type:
// they must answer with output or a one-line error, never a panic.
func FuzzCommands(f *testing.F) {
	f.Add("contiguous(3, int)")
	f.Add("a = vector(2, 1, -3, double)\nstruct([1, 2], [0, 16], [a, short_int])")
	f.Add("subarray([4, 5], [2, 3], [1, 1], Fortran, float)")
	f.Add("darray(4, 1, [8, 8], [block, cyclic], [default, 2], [2, 2], C, int)")
	f.Add("resized(hindexed([1, 0, 2], [-8, 0, 100], long_double), -4, 0)")
	f.Fuzz(func(t *testing.T, src string) {
		for _, args := range [][]string{{"show", "-"}, {"export", "--lang", "c", "-"}, {"sig", "-", "--count", "3"}, {"dame", "-"}} {
			var out, errb bytes.Buffer
			st := run(&env{strings.NewReader(src), &out, &errb}, args)
			if st != 0 && st != 1 || strings.Contains(errb.String(), "internal error") {
				t.Fatalf("%v on %q: status %d, %s", args, src, st, errb.String())
			}
			if st == 1 && strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("%v on %q: error is not one line: %q", args, src, errb.String())
			}
		}
	})
}
