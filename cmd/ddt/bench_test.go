package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		st   int
		want string // in stderr
	}{
		{[]string{"bench", "--count", "3"}, 2, "--count needs --type"},
		{[]string{"bench", "--filter", "nosuch"}, 1, `no layout matches --filter "nosuch"`},
		{[]string{"bench", "--list", "--filter", "nosuch"}, 1, `no layout matches --filter "nosuch"`},
		{[]string{"bench", "--rounds", "0"}, 2, "--rounds 0"},
		{[]string{"bench", "--time", "-1s"}, 2, "--time -1s"},
		{[]string{"bench", "--fig", "13"}, 2, "--fig 13: the figures are 14, 15, 16 and 17"},
		{[]string{"bench", "--fig", "17", "--engine", "auto"}, 2, "--fig takes only"},
		{[]string{"bench", "--fig", "15", "--filter", "nosuch"}, 1, `no layout matches --filter "nosuch"`},
		{[]string{"bench", "--fig", "15", "--filter", "mpipack/L1", "--sizes", "X"}, 1, "no layout of sizes X"},
		// a type whose image would be 8 GB: refused before allocating
		{[]string{"bench", "--type", "-", "--count", "1000000"}, 1, "over the limit of 448 MiB (--mem)"},
	}
	for _, c := range cases {
		_, errs, st := cli(t, "vector(1000, 1, 1000, double)", c.args...)
		if st != c.st || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: status %d, stderr %q; want %d and %q on one line", c.args, st, errs, c.st, c.want)
		}
	}
}

func TestBenchList(t *testing.T) {
	out, errs, st := cli(t, "", "bench", "--list", "--filter", "mpipack/L1,seed003")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[1], "mpipack/L1 ") || !strings.HasPrefix(lines[6], "seed003/transpose ") {
		t.Errorf("list:\n%s", out)
	}
}

func TestBenchOneType(t *testing.T) {
	out, errs, st := cli(t, "vector(64, 2, 5, double)", "bench", "--type", "-", "--count", "3", "--time", "50us", "--rounds", "3", "--json")
	if st != 0 {
		t.Fatalf("status %d: %s", st, errs)
	}
	var rep struct {
		Machine struct{ Kernels string }
		Rounds  int
		Rows    []struct {
			Packed int64              `json:"packed_bytes"`
			Pack   map[string]float64 `json:"pack_mbs"`
			Best   map[string]float64 `json:"pack_best_mbs"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Rounds != 3 || rep.Machine.Kernels == "" || len(rep.Rows) != 1 || rep.Rows[0].Packed != 3*64*2*8 {
		t.Fatalf("report %+v", rep)
	}
	for _, e := range []string{"reference", "interpreter", "compiled", "auto"} {
		if m, b := rep.Rows[0].Pack[e], rep.Rows[0].Best[e]; m <= 0 || b < m {
			t.Errorf("%s: median %v MB/s, best %v MB/s", e, m, b)
		}
	}
}

// TestBenchFigures runs each figure briefly on one small layout: a
// table with a header and at least one row of numbers.
func TestBenchFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the figures")
	}
	for _, fig := range []string{"15", "16", "17"} {
		out, errs, st := cli(t, "", "bench", "--fig", fig, "--filter", "mpipack/L8", "--sizes", "S", "--time", "50us", "--rounds", "1")
		if st != 0 && strings.Contains(errs, "needs native code") {
			continue
		}
		if st != 0 || !strings.Contains(out, "mpipack/L8") || !strings.HasPrefix(out, "# ddt bench --fig "+fig) {
			t.Errorf("--fig %s: status %d, stderr %q, out:\n%s", fig, st, errs, out)
		}
	}
}
