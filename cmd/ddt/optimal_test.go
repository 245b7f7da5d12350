package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rowColTypemap is seed 000 §II for an n x n int matrix as a TYPEMAP.
func rowColTypemap(n int) string {
	var b strings.Builder
	b.WriteString("# row, then column\n")
	for k := range n {
		fmt.Fprintf(&b, "int %d\n", 4*k)
	}
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "int %d   # column\n", 4*n*k)
	}
	return b.String()
}

func TestReconstruct(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "m.typemap", rowColTypemap(10))
	outFile := filepath.Join(dir, "out.ddt")
	out, errs, st := cli(t, "", "reconstruct", in, "-o", outFile)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	want := "cost: 18\nstruc(2, [0, 40], [vec(10, 4, leaf(int)), vec(9, 40, leaf(int))])\n"
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	// The written type's type map is the input.
	tm, errs, st := cli(t, "", "typemap", outFile)
	if st != 0 {
		t.Fatalf("typemap: %s", errs)
	}
	var plain strings.Builder
	for _, l := range strings.Split(rowColTypemap(10), "\n") {
		if l, _, _ = strings.Cut(l, "#"); strings.TrimSpace(l) != "" {
			plain.WriteString(strings.Join(strings.Fields(l), " ") + "\n")
		}
	}
	if tm != plain.String() {
		t.Fatalf("type map of -o file:\n%s\nwant\n%s", tm, plain.String())
	}
}

func TestReconstructOptions(t *testing.T) {
	m := "int 3\nint 5\nint 7\nint 9\nint 11\n"
	out, errs, st := cli(t, m, "reconstruct", "-")
	if st != 0 || out != "cost: 8\nidxbuc(1, 2, [3], [5], leaf(int))\n" {
		t.Fatalf("stdin: %d %q %s", st, out, errs)
	}
	out, errs, st = cli(t, m, "reconstruct", "-", "--constructors", "leaf,vec,idx")
	if st != 0 || !strings.HasPrefix(out, "cost: 10\nidx(") {
		t.Fatalf("leaf,vec,idx: %d %q %s", st, out, errs)
	}
	out, errs, st = cli(t, m, "reconstruct", "-", "--cost", "idxbuc=40,vec=1")
	if st != 0 || !strings.HasPrefix(out, "cost: 7\n") || strings.Contains(out, "idxbuc") {
		t.Fatalf("--cost: %d %q %s", st, out, errs)
	}
	out, errs, st = cli(t, "int 0\nint 4\nint 8\n", "reconstruct", "-", "--constructors", "all")
	if st != 0 || out != "cost: 2\nleaf(3, int)\n" {
		t.Fatalf("all: %d %q %s", st, out, errs)
	}
}

func TestNormalizeCommand(t *testing.T) {
	dir := t.TempDir()
	// Seed 000 §II as INDEXED: the row as one block, the column element by
	// element.
	var bls, ds []string
	bls, ds = append(bls, "100"), append(ds, "0")
	for k := 1; k < 100; k++ {
		bls, ds = append(bls, "1"), append(ds, fmt.Sprint(100*k))
	}
	src := fmt.Sprintf("indexed([%s], [%s], int)\n", strings.Join(bls, ", "), strings.Join(ds, ", "))
	in := writeFile(t, dir, "indexed.ddt", src)
	outFile := filepath.Join(dir, "norm.ddt")
	out, errs, st := cli(t, "", "normalize", in, "-o", outFile)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	want := "cost_before: 206\ncost_after: 18\nstruc(2, [0, 400], [vec(100, 4, leaf(int)), vec(99, 400, leaf(int))])\n"
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	for _, count := range []string{"1", "3"} {
		a, _, _ := cli(t, "", "typemap", in, "--count", count)
		b, errs, st := cli(t, "", "typemap", outFile, "--count", count)
		if st != 0 || a != b {
			t.Fatalf("type map of %s instances differs after normalize (%s)", count, errs)
		}
	}
	sa, _, _ := cli(t, "", "show", in)
	sb, _, _ := cli(t, "", "show", outFile)
	for _, key := range []string{"size:", "extent:", "lb:", "elements:", "blocks:", "signature:"} {
		if line(sa, key) != line(sb, key) {
			t.Errorf("show %s: %q vs %q", key, line(sa, key), line(sb, key))
		}
	}
	// Already optimal: printed as is, and -o writes the input type.
	out, errs, st = cli(t, "", "normalize", "testdata/rowcol.ddt", "--cost", "vec=4")
	if st != 0 || !strings.HasPrefix(out, "cost_before: 18\ncost_after: 18\nstruc(") {
		t.Fatalf("rowcol: %d %q %s", st, out, errs)
	}
	out, errs, st = cli(t, "contiguous(0, int)", "normalize", "-")
	if st != 0 || !strings.HasPrefix(out, "cost_before: 6\ncost_after: 6\n") {
		t.Fatalf("empty type: %d %q %s", st, out, errs)
	}
}

func line(out, key string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, key) {
			return l
		}
	}
	return ""
}

func TestOptimalErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "m.typemap", "int 0\nint 8\n")
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
		st    int // 1 failure, 2 usage error
	}{
		{"", []string{"reconstruct"}, "missing TYPEMAP", 2},
		{"", []string{"reconstruct", good, good}, "unexpected argument", 2},
		{"", []string{"reconstruct", filepath.Join(dir, "none")}, "no such file", 1},
		{"", []string{"reconstruct", good, "--cost", "foo=1"}, `unknown cost key "foo"`, 2},
		{"", []string{"reconstruct", good, "--cost", "vec"}, "KEY=VALUE", 2},
		{"", []string{"reconstruct", good, "--cost", "vec=-1"}, "out of range", 2},
		{"", []string{"reconstruct", good, "--constructors", "leaf,tree"}, `unknown constructor "tree"`, 2},
		{"int 0\nint\n", []string{"reconstruct", "-"}, "line 2", 1},
		{"int 0\nint 1x\n", []string{"reconstruct", "-"}, `invalid displacement "1x"`, 1},
		{"int 0\n3 0\n", []string{"reconstruct", "-"}, "invalid basic type name", 1},
		{"# nothing\n", []string{"reconstruct", "-"}, "empty type map", 1},
		{"int 4\n", []string{"reconstruct", "-", "--constructors", "leaf,vec"}, "not representable", 1},
		{"widget 0\n", []string{"reconstruct", "-", "-o", filepath.Join(dir, "w.ddt")}, "not a basic MPI type", 1},
		{"int 0\nbogus 4\n", []string{"reconstruct", "-"}, "element 2 (bogus 4): \"bogus\" is not a basic MPI type", 1},
		{"", []string{"reconstruct", good, "--bogus"}, "bogus", 2},
		{"", []string{"normalize"}, "missing TYPE", 2},
		{"", []string{"normalize", "testdata/none.ddt"}, "no such file", 1},
		{"vector(", []string{"normalize", "-"}, "<stdin>", 1},
		{"int", []string{"normalize", "-", "--cost", "leaf=x"}, "invalid integer", 2},
		{"int", []string{"normalize", "-", "--constructors", "all"}, "constructors", 2},
	} {
		out, errs, st := cli(t, c.stdin, c.args...)
		if st != c.st || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, "goroutine") {
			t.Errorf("%v: status %d, stdout %q, stderr %q (want %d and one line containing %q)", c.args, st, out, errs, c.st, c.want)
		}
	}
}

func TestOptimalHelp(t *testing.T) {
	for _, cmd := range []string{"reconstruct", "normalize"} {
		_, errs, st := cli(t, "", cmd, "-h")
		if st != 0 || !strings.Contains(errs, "Usage: ddt "+cmd) {
			t.Errorf("%s -h: %d %q", cmd, st, errs)
		}
	}
}

// TestReconstructLarge: above 4096 elements reconstruct answers by the
// approximation (the rewrite rules' tree here), with the same stdout format
// and on stderr the certificate (here the shape bound meets the cost: seed
// 000's row and column is proven optimal); -o still writes a type whose
// type map is the input.
func TestReconstructLarge(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "big.typemap", rowColTypemap(3000)) // 5999 elements
	outFile := filepath.Join(dir, "out.ddt")
	out, errs, st := cli(t, "", "reconstruct", in, "-o", outFile)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	want := "cost: 18\nstruc(2, [0, 24000], [vec(3001, 4, leaf(int)), vec(2998, 12000, leaf(int))])\n"
	if out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	if !strings.Contains(errs, "5999 elements, more than 4096: by the approximation; optimal (the cost meets the lower bound 18)") {
		t.Errorf("stderr %q", errs)
	}
	tm, errs, st := cli(t, "", "typemap", outFile)
	if st != 0 || strings.Count(tm, "\n") != 5999 || !strings.HasPrefix(tm, "int 0\nint 4\n") {
		t.Fatalf("typemap of -o file: status %d %s, %d lines", st, errs, strings.Count(tm, "\n"))
	}
}

// TestReconstructChain: over leaf,vec,idx a map above 4096 elements is
// exact (the chain reconstruction), with nothing on stderr.
func TestReconstructChain(t *testing.T) {
	var b strings.Builder
	for i := range 64 {
		for j := range 1024 {
			fmt.Fprintf(&b, "int %d\n", 8+i*i*100000+j*4)
		}
	}
	in := writeFile(t, t.TempDir(), "chain.typemap", b.String())
	out, errs, st := cli(t, "", "reconstruct", in, "--constructors", "leaf,vec,idx")
	if st != 0 || errs != "" {
		t.Fatalf("status %d: %s", st, errs)
	}
	if !strings.HasPrefix(out, "cost: 73\nidx(64, [8, 100008, 400008,") || !strings.HasSuffix(out, "], vec(1024, 4, leaf(int)))\n") {
		t.Fatalf("output %.200q", out)
	}
}

// reconstructText runs `ddt reconstruct` on the type map text and returns
// its output and stderr; a nonzero status fails the test.
func reconstructText(t *testing.T, text string) (out, errs string) {
	t.Helper()
	in := writeFile(t, t.TempDir(), "map.typemap", text)
	out, errs, st := cli(t, "", "reconstruct", in)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	return out, errs
}

// TestReconstructPeriodic: a periodic map above 4096 elements (strided
// buckets: bucket b at 4096·b, 1 + b mod 7 ints 8 B apart; period 28) is
// answered by the exact program for periodic maps, and stderr says it is
// optimal although the lower bound alone does not prove it.
func TestReconstructPeriodic(t *testing.T) {
	var b strings.Builder
	n := 0
	for k := 0; n < 5000; k++ {
		for j := 0; j < 1+k%7 && n < 5000; j++ {
			fmt.Fprintf(&b, "int %d\n", 4096*k+8*j)
			n++
		}
	}
	out, errs := reconstructText(t, b.String())
	if !strings.HasPrefix(out, "cost: 48\nstruc(2, [0, ") {
		t.Errorf("output %.200q", out)
	}
	const say = "5000 elements, more than 4096: optimal, by the exact program for periodic maps (period 28 elements, O(p·n²)); the lower bound alone gives "
	var lb int
	if i := strings.Index(errs, say); i < 0 {
		t.Errorf("stderr %q", errs)
	} else if _, err := fmt.Sscan(errs[i+len(say):], &lb); err != nil || lb < 18 || lb >= 48 {
		t.Errorf("lower bound %d (%v) in %q", lb, err, errs)
	}
}

// TestReconstructGatheredShape: DDTBench's LAMMPS send layout (blocks of
// three doubles gathered at the indices of a list, then arrays gathered
// at the same indices) and SPECFEM3D_cm's (the blocks alone) above 4096
// elements are proven optimal by the lower bound (the excess bound and
// the window bound over it), and stderr says so.
func TestReconstructGatheredShape(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	idx := r.Perm(20000)[:1400]
	for _, arrays := range []int{0, 3} {
		var b strings.Builder
		for _, k := range idx {
			for j := range 3 {
				fmt.Fprintf(&b, "double %d\n", 24*k+8*j)
			}
		}
		for a := range arrays {
			for _, k := range idx {
				fmt.Fprintf(&b, "double %d\n", 1000000+200000*a+8*k)
			}
		}
		n := 1400 * (3 + arrays)
		out, errs := reconstructText(t, b.String())
		// idx(1400, vec(3, 8, leaf)); with arrays a struc of it and
		// vec(3, idx(1400, leaf))
		want := int64(3 + 1400 + 4 + 2)
		if arrays > 0 {
			want = 2 + 2*2 + want + 4 + 3 + 1400 + 2
		}
		if !strings.HasPrefix(out, fmt.Sprintf("cost: %d\n", want)) {
			t.Errorf("%d arrays: output %.200q", arrays, out)
		}
		if !strings.Contains(errs, fmt.Sprintf("%d elements, more than 4096: by the approximation; optimal (the cost meets the lower bound %d)", n, want)) {
			t.Errorf("%d arrays: stderr %q", arrays, errs)
		}
	}
}

// TestReconstructWRFShape: DDTBench's WRF send layout (four runs of 26
// blocks of 3 floats, then five runs of big blocks at irregular starts)
// above 4096 elements is proven optimal by the lower bound (the window
// bound), and stderr says so.
func TestReconstructWRFShape(t *testing.T) {
	var b strings.Builder
	run := func(at int64, blocks int) {
		for k := range blocks {
			for j := range 3 {
				fmt.Fprintf(&b, "float %d\n", at+int64(k)*96+int64(j)*4)
			}
		}
	}
	for k := range 4 {
		run(440+int64(k)*3264, 26)
	}
	for _, d := range []int64{0, 212160, 424320, 848640, 1272960} {
		run(38072+d, 300)
	}
	out, errs := reconstructText(t, b.String())
	if !strings.HasPrefix(out, "cost: 28\nidxbuc(9, 96, ") {
		t.Errorf("output %.200q", out)
	}
	if !strings.Contains(errs, "4812 elements, more than 4096: by the approximation; optimal (the cost meets the lower bound 28)") {
		t.Errorf("stderr %q", errs)
	}
}
