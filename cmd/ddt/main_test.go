package main

import (
	"bytes"
	"errors"
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
	out := filepath.Join(dir, "o")
	packed := filepath.Join(dir, "packed")
	os.WriteFile(packed, make([]byte, 8000), 0o644)
	cases := []struct {
		args []string
		st   int
		want string
	}{
		{[]string{"nosuch"}, 2, `ddt: unknown command "nosuch"`},
		{[]string{"show"}, 2, "ddt show: missing TYPE (ddt show -h for usage)"},
		{[]string{"show", "testdata/none.ddt"}, 1, "ddt show: open testdata/none.ddt: no such file or directory"},
		{[]string{"show", "-"}, 1, "ddt show: <stdin>:1:13: expected a value, found end of file"},
		{[]string{"typemap", "testdata/rowcol.ddt", "--count", "-1"}, 2, "negative --count -1"},
		{[]string{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", out}, 1,
			"ddt pack: image too small (need 3996004 bytes, have 10): SRC " + img + " with --count 1 --origin 0"},
		{[]string{"pack", "testdata/rowcol.ddt", "--in", img, "--out", out}, 2, "--count N is required"},
		{[]string{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", out, "--engine", "x"}, 2, `unknown engine "x"`},
		{[]string{"pack", "-", "--count", "1", "--in", "-", "--out", out}, 2, "only one of TYPE, --in and --out can be -"},
		{[]string{"pack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", out, "--origin", "-1"}, 1,
			"reaches 1 bytes before the start of SRC"},
		{[]string{"unpack", "testdata/rowcol.ddt", "--count", "1", "--in", img, "--out", filepath.Join(dir, "missing")}, 1,
			"PACKED " + img + " holds 10 bytes, --count 1 needs 7996"},
		{[]string{"unpack", "testdata/contig1999.ddt", "--count", "1", "--in", packed, "--out", filepath.Join(dir, "missing")}, 1,
			"the memory image must exist"},
		{[]string{"show", "testdata/rowcol.ddt", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"export", "--name", "MPI_INT", "testdata/rowcol.ddt"}, 1, "reserves"},
		{[]string{"export", "--lang", "cobol", "testdata/rowcol.ddt"}, 2, `unsupported --lang "cobol"`},
		{[]string{"help", "nosuch"}, 2, "unknown command"},
		{[]string{"version", "x"}, 2, "unexpected argument"},
	}
	for _, c := range cases {
		stdin := "vector(1, 2,"
		out, errs, st := cli(t, stdin, c.args...)
		if st != c.st || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, c.want) {
			t.Errorf("ddt %v: status %d, stdout %q, stderr %q: want status %d and one line containing %q", c.args, st, out, errs, c.st, c.want)
		}
		if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") || strings.Contains(errs, "bug") {
			t.Errorf("ddt %v: panicked: %s", c.args, errs)
		}
	}
	// No arguments: the usage, exit status 2.
	if _, errs, st := cli(t, ""); st != 2 || !strings.Contains(errs, "Exit status") {
		t.Errorf("ddt: status %d, %q", st, errs)
	}
}

// TestNoRepeatedPrefix checks that the command's name appears once in its
// error line even where the packages below prefix it too.
func TestNoRepeatedPrefix(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"pack: output holds 3 bytes", "output holds 3 bytes"},
		{"f.ddt: sig: count: sig: overflow", "f.ddt: count: overflow"},
		{"sig", "sig"},
		{"line one\nline two", "line one; line two"},
	} {
		name := strings.Fields(c.err + " sig")[0]
		if strings.HasPrefix(c.err, "pack") {
			name = "pack"
		} else {
			name = "sig"
		}
		if got := errorText(name, errors.New(c.err)); got != c.want {
			t.Errorf("errorText(%q, %q) = %q, want %q", name, c.err, got, c.want)
		}
	}
	if got := errorText("show", errors.New(strings.Repeat("x", 10000))); len(got) > 500 {
		t.Errorf("a long error is not cut: %d bytes", len(got))
	}
}

// TestHelpEverywhere checks that every command answers -h with its usage
// and status 0, and that help names the papers it cites.
func TestHelpEverywhere(t *testing.T) {
	for _, c := range commands {
		out, errs, st := cli(t, "", c.name, "-h")
		if st != 0 || out != "" || !strings.Contains(errs, "Usage: ddt "+c.name) {
			t.Errorf("%s -h: status %d, stderr %q", c.name, st, errs)
		}
		if strings.Contains(errs, "(default -1)") || strings.Contains(errs, "(required) (default") {
			t.Errorf("%s -h shows a meaningless default:\n%s", c.name, errs)
		}
		for _, id := range []string{"000", "001", "002", "003", "004"} {
			if strings.Contains(errs, "seed "+id) && !strings.Contains(errs, "  seed "+id+"  ") {
				t.Errorf("%s -h cites seed %s without naming the paper:\n%s", c.name, id, errs)
			}
		}
		for _, w := range strings.Fields(c.args) {
			w = strings.Trim(w, "[]|")
			if strings.HasPrefix(w, "-") && w != "-" && !strings.Contains(errs, "\n  "+w) {
				t.Errorf("%s -h does not describe %s, which its usage line names:\n%s", c.name, w, errs)
			}
		}
		hout, _, hst := cli(t, "", "help", c.name)
		if hst != 0 || hout != errs {
			t.Errorf("help %s differs from %s -h", c.name, c.name)
		}
	}
	if _, errs, _ := cli(t, "", "dame", "-h"); strings.Contains(errs, "--engine") {
		t.Errorf("dame -h advertises --engine:\n%s", errs)
	}
}

func TestVersion(t *testing.T) {
	out, errs, st := cli(t, "", "version")
	if st != 0 || !strings.HasPrefix(out, "version: ") || !strings.Contains(out, "\nrevision: ") || !strings.Contains(out, "\ngo: go") {
		t.Errorf("version: status %d, %q %q", st, out, errs)
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
	if out2, _, st := cli(t, "", "export", "--lang", "C", "testdata/rowcol.ddt"); st != 0 || out2 != out {
		t.Errorf("--lang C must be --lang c")
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
	for _, s := range []string{
		strings.Repeat("[", 3000), strings.Repeat("dup(", 1100) + "int", strings.Repeat("x", 2000),
		"contiguous(" + strings.Repeat("9", 2000) + ", int)", "\x00", "int\xff",
		"t0 = hindexed_block(1, [-4, 4], int)\nhindexed_block(1, [0, -9223372036854775808], t0)",
		"hvector(2, 1, -9223372036854775808, int)",
		"z = contiguous(0, int)\nstruct([1, 4611686018427387904], [0, 0], [int, z])",
		"contiguous(4611686018427387904, contiguous(0, int))",
		"vector(1000000000, 1000000000, 1000000000, double)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, args := range [][]string{{"show", "-"}, {"export", "--lang", "c", "-"}, {"sig", "-", "--count", "3"}, {"dame", "-"}} {
			var out, errb bytes.Buffer
			st := run(&env{strings.NewReader(src), &out, &errb}, args)
			if st != 0 && st != 1 || strings.Contains(errb.String(), "bug:") {
				t.Fatalf("%v on %q: status %d, %s", args, src, st, errb.String())
			}
			if st == 1 && strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("%v on %q: error is not one line: %q", args, src, errb.String())
			}
		}
	})
}

func TestTypemapMax(t *testing.T) {
	out, errs, st := cli(t, "", "typemap", "testdata/rowcol.ddt", "--count", "2", "--max", "3997")
	if st != 1 || out != "" || !strings.Contains(errs, "has 3998 elements, more than --max 3997") {
		t.Errorf("status %d, %q", st, errs)
	}
	out, errs, st = cli(t, "", "typemap", "testdata/rowcol.ddt", "--count", "2", "--max", "3998")
	if st != 0 || strings.Count(out, "\n") != 3998 {
		t.Errorf("status %d, %d lines, %q", st, strings.Count(out, "\n"), errs)
	}
	out, _, st = cli(t, "", "typemap", "testdata/rowcol.ddt", "--count", "2", "--max", "0")
	if st != 0 || strings.Count(out, "\n") != 3998 {
		t.Errorf("--max 0: status %d", st)
	}
}
