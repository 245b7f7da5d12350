package bench

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkCommitCycle creates and commits each mpipack layout per
// iteration, as the anchors harness times MPICH's create+commit+free (the
// Go type is freed by the garbage collector, whose cost the loop pays), and
// reports beside ddt's time MPICH's figure for the same layout measured in
// the same run, and their ratio (x-mpich below 1 means ddt is cheaper):
//
//	go test -run - -bench CommitCycle ./cmd/ddt/internal/bench
//
// MPICH's figures come from the anchors harness (mpipack.c, the cycle_ns
// column), built with mpicc.mpich from $DDT_MPIPACK (default
// ../shared/anchors/mpipack beside the repository) and run once before the
// first layout; without them only ddt's time is reported.
func BenchmarkCommitCycle(b *testing.B) {
	mp := mpichCycles(b)
	for _, d := range mpCases {
		c := resolve(d)
		b.Run("layout="+c.id+c.size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ddt.Commit(c.makeType()); err != nil {
					b.Fatal(err)
				}
			}
			if m, ok := mp[c.id+" "+c.size]; ok && m > 0 {
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(m, "mpich-ns/cycle")
				b.ReportMetric(ns/m, "x-mpich")
			}
		})
	}
}

var (
	mpichOnce sync.Once
	mpichNS   map[string]float64
)

// mpichCycles runs MPICH's build of the anchors harness over every layout
// once and returns its create+commit+free time (ns) by "ID SIZE", or nil
// when MPICH or the harness is missing (the reason is logged).
func mpichCycles(b *testing.B) map[string]float64 {
	mpichOnce.Do(func() {
		src := os.Getenv("DDT_MPIPACK")
		if src == "" {
			src = filepath.Join("..", "..", "..", "shared", "anchors", "mpipack")
		}
		c := filepath.Join(src, "mpipack.c")
		if _, err := os.Stat(c); err != nil {
			b.Logf("no MPICH figures: %v (set DDT_MPIPACK to the anchors harness directory)", err)
			return
		}
		cc, err := exec.LookPath("mpicc.mpich")
		if err != nil {
			b.Logf("no MPICH figures: %v", err)
			return
		}
		dir, err := os.MkdirTemp("", "ddt-mpipack")
		if err != nil {
			b.Logf("no MPICH figures: %v", err)
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "mpipack_mpich")
		if out, err := exec.Command(cc, "-O3", "-march=native", "-std=gnu11", c, "-o", bin).CombinedOutput(); err != nil {
			b.Logf("no MPICH figures: %s: %v\n%s", cc, err, out)
			return
		}
		out, err := exec.Command(bin, "-k", "200").Output()
		if err != nil {
			b.Logf("no MPICH figures: %s: %v", bin, err)
			return
		}
		mpichNS = parseCycles(out)
	})
	return mpichNS
}

// parseCycles reads the cycle_ns column of mpipack's R lines by the
// "#cols" header.
func parseCycles(out []byte) map[string]float64 {
	m := map[string]float64{}
	col := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case f[0] == "#cols" && len(f) > 1:
			for i, name := range strings.Fields(f[1]) {
				if name == "cycle_ns" {
					col = i
				}
			}
		case f[0] == "R" && col > 0 && col < len(f) && len(f) > 3:
			if v, err := strconv.ParseFloat(f[col], 64); err == nil {
				m[f[2]+" "+f[3]] = v
			}
		}
	}
	return m
}
