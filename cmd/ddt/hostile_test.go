package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Bounds a hostile input must stay within: the built ddt runs under a
// virtual memory limit (ulimit -v) and must answer within hostileTime of
// CPU time (CPU, not wall time, so that a loaded machine does not fail the
// test; a run is killed after hostileWall).
const (
	hostileWall  = 5 * time.Minute
	hostileMemKB = 2 << 20 // 2 GiB of address space (the Go runtime and its threads reserve about 1 GiB of it)
	hostileTime  = 30 * time.Second
)

// buildDDT builds the ddt command into dir and returns its path.
func buildDDT(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ddt")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	cmd := exec.Command(gobin, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestHostileInputs runs the built ddt on inputs made to exhaust memory,
// time or the stack, under a memory limit: each must end within the time
// limit with status 1 and a one-line error that names the problem, never a
// panic, a crash or a multi-megabyte message.
func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ddt and writes large inputs")
	}
	if runtime.GOOS != "linux" {
		t.Skip("uses sh, ulimit and /dev/zero")
	}
	dir := t.TempDir()
	bin := buildDDT(t, dir)
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rep := func(s string, n int) []byte { return bytes.Repeat([]byte(s), n) }
	sparse := func(p string, n int64) string {
		f, err := os.Create(p)
		if err == nil {
			err = f.Truncate(n)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	rng := rand.New(rand.NewPCG(9, 12))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	var many, chain, longMap bytes.Buffer
	for i := range 300000 {
		fmt.Fprintf(&many, "a%d=dup(int)\n", i)
	}
	chain.WriteString("t0 = contiguous(1, int)\n")
	for i := 1; i < 200000; i++ {
		fmt.Fprintf(&chain, "t%d = contiguous(1, t%d)\n", i, i-1)
	}
	for i := range 1<<20 + 1 {
		fmt.Fprintf(&longMap, "int %d\n", 4*i)
	}
	img := file("img", make([]byte, 4096))
	rowcol := "testdata/rowcol.ddt"
	out := filepath.Join(dir, "out")

	cases := []struct {
		name  string
		args  []string
		stdin string // a file for stdin, or ""
		want  string
	}{
		{"brackets", []string{"show", file("brackets.ddt", rep("[", 7<<20))}, "", "a statement must be a type expression, not a list"},
		{"list brackets", []string{"show", file("lbrackets.ddt", append([]byte("contiguous("), rep("[", 7<<20)...))}, "", "count must be an integer, not a list"},
		{"parens", []string{"sig", file("parens.ddt", append(rep("dup(", 1<<20), "int"...))}, "", "nested more than 1000 levels deep"},
		{"dev zero", []string{"show", "/dev/zero"}, "", "unexpected byte 0x00"},
		{"dev zero stdin", []string{"dame", "-"}, "/dev/zero", "unexpected byte 0x00"},
		{"oversized stream", []string{"show", "-"}, file("spaces.ddt", rep(" ", 9<<20)), "larger than 8 MiB"},
		{"oversized file", []string{"show", sparse(filepath.Join(dir, "huge.ddt"), 1<<40)}, "", "has 1099511627776 bytes, more than the 8 MiB"},
		{"dense list stream", []string{"dame", "-"}, file("dense.ddt", append([]byte("hindexed_block(1, ["), rep("1,", 5<<20)...)), "larger than 8 MiB"},
		// random bytes: the first error is on line 1 unless a newline
		// comes first (CI saw "<stdin>:2:1: undefined type name e")
		{"endless stdin", []string{"sig", "-"}, "/dev/urandom", "<stdin>:"},
		{"identifier", []string{"show", file("ident.ddt", rep("a", 7<<20))}, "", "longer than 1024 bytes"},
		{"undefined long name", []string{"show", file("name.ddt", append(append([]byte("contiguous(1, "), rep("b", 1000)...), ")"...))}, "", "undefined type name bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb… (1000 bytes)"},
		{"digits", []string{"show", file("digits.ddt", append([]byte("contiguous("), rep("9", 7<<20)...))}, "", "does not fit in 64 bits"},
		{"garbage", []string{"show", file("garbage.ddt", garbage)}, "", "garbage.ddt:1:"},
		{"many calls", []string{"sig", file("many.ddt", many.Bytes())}, "", "more than 262144 constructor calls"},
		{"huge count", []string{"typemap", file("count.ddt", []byte("contiguous(9223372036854775807, int)\n"))}, "", "overflows"},
		{"huge instances", []string{"typemap", rowcol, "--count", "9223372036854775807"}, "", "overflow"},
		{"huge type map", []string{"typemap", file("bigmap.ddt", []byte("contiguous(1000000000000, int)\n"))}, "", "more than --max 67108864"},
		{"huge sig count", []string{"sig", rowcol, "--count", "9223372036854775807"}, "", "overflow"},
		{"huge pack", []string{"pack", file("big.ddt", []byte("contiguous(1000000000000, int)\n")), "--count", "1", "--in", img, "--out", out}, "",
			"image too small (need 4000000000000 bytes, have 4096)"},
		{"huge pack count", []string{"pack", rowcol, "--count", "1000000000", "--in", img, "--out", out}, "", "image too small"},
		{"sparse window", []string{"pack", file("sparse.ddt", []byte("vector(2, 1, 1000000000, char)\n")), "--count", "2", "--in", "-", "--out", out},
			"/dev/zero", "ddt holds in memory"},
		{"sparse image", []string{"pack", file("sparse2.ddt", []byte("vector(2, 1, 1500000000, char)\n")), "--count", "1", "--in", sparse(filepath.Join(dir, "sparse.img"), 1<<40), "--out", out},
			"", "ddt holds in memory"},
		{"pack device", []string{"pack", rowcol, "--count", "1", "--in", "/dev/zero", "--out", out}, "", "not a regular file"},
		{"unpack huge", []string{"unpack", rowcol, "--count", "1000000000", "--in", img, "--out", img}, "", "needs 7996000000000"},
		{"reconstruct long map", []string{"reconstruct", file("long.typemap", longMap.Bytes())}, "", "more than 1048576 elements"},
		{"reconstruct dev zero", []string{"reconstruct", "/dev/zero"}, "", "line longer than 1 MiB"},
		{"reconstruct blank lines", []string{"reconstruct", "-"}, file("blank.typemap", rep("\n", 65<<20)), "larger than 64 MiB"},
		{"normalize garbage", []string{"normalize", "-"}, file("garbage2.ddt", garbage), "<stdin>:1:"},
		{"export long name", []string{"export", "--name", strings.Repeat("x", 100000) + "-", rowcol}, "", "is not a C identifier"},
		{"chain", []string{"sig", file("chain.ddt", chain.Bytes())}, "", "chain.ddt:1025:9: contiguous: type tree depth 1025 exceeds the limit of 1024"},
		{"min int displacement", []string{"pack", file("minint.ddt", []byte("t0 = hindexed_block(1, [-4, 4], int)\nhindexed_block(1, [0, -9223372036854775808], t0)\n")),
			"--count", "1", "--in", img, "--out", out, "--origin", "4"}, "", "minint.ddt:2:1: hindexed_block: a bound overflows int64"},
		{"extent overflow", []string{"show", file("hvec.ddt", []byte("hvector(2, 1, -9223372036854775808, int)\n"))}, "", "hvec.ddt:1:1: hvector: extent (ub - lb) overflows int64"},
		{"empty repeats typemap", []string{"typemap", file("zero.ddt", []byte("z = contiguous(0, int)\nstruct([1, 4611686018427387904], [0, 0], [int, z])\n"))}, "", ""},
		{"empty repeats normalize", []string{"normalize", filepath.Join(dir, "zero.ddt")}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hostileWall)
			defer cancel()
			args := append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, hostileMemKB), bin}, c.args...)
			cmd := exec.CommandContext(ctx, "sh", args...)
			if c.stdin != "" {
				f, err := os.Open(c.stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			wall := time.Since(start)
			took := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			errs := stderr.String()
			if len(errs) > 300 {
				errs = errs[:300] + "..."
			}
			status := cmd.ProcessState.ExitCode()
			if took > hostileTime {
				t.Errorf("took %v of CPU time, more than %v", took, hostileTime)
			}
			if c.want == "" { // accepted or refused, but cleanly
				if status == 0 {
					return
				}
				c.want = ": "
			}
			if status != 1 || stdout.Len() != 0 {
				t.Errorf("status %d (want 1), %d bytes on stdout, stderr %q (%v)", status, stdout.Len(), errs, err)
			}
			if strings.Count(stderr.String(), "\n") != 1 || stderr.Len() > 600 {
				t.Errorf("the error is not one short line: %d bytes: %q", stderr.Len(), errs)
			}
			for _, bad := range []string{"panic", "goroutine", "fatal error", "bug:", "runtime error"} {
				if strings.Contains(stderr.String(), bad) {
					t.Errorf("stderr has %q: %q", bad, errs)
				}
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr %q does not say %q", errs, c.want)
			}
			t.Logf("%v CPU, %v wall: %s", took.Round(time.Millisecond), wall.Round(time.Millisecond), strings.TrimSpace(errs))
		})
	}
}
