package ctest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	flagNP     = flag.String("ctest.np", "2,4", "ranks to run each program with (comma-separated)")
	flagMPI    = flag.String("ctest.mpi", "mpich,openmpi", "MPI libraries (comma-separated: mpich, openmpi)")
	flagStrict = flag.Bool("ctest.strict", false, "fail on the library's known bugs too")
)

type mpi struct {
	name, cc, run, libEnv string
}

var mpis = []mpi{
	{"mpich", "mpicc.mpich", "mpirun.mpich", "DDT_INTERPOSE_MPICH"},
	{"openmpi", "mpicc.openmpi", "mpirun.openmpi", "DDT_INTERPOSE_OPENMPI"},
}

// launch is the command line that runs exe on np ranks with env set in
// their environment.
func (m mpi) launch(np int, env []string, exe string) []string {
	a := []string{m.run}
	if m.name == "openmpi" {
		a = append(a, "--oversubscribe")
		if os.Geteuid() == 0 {
			a = append(a, "--allow-run-as-root")
		}
	}
	a = append(a, "-np", strconv.Itoa(np))
	for _, kv := range env {
		if m.name == "mpich" {
			k, v, _ := strings.Cut(kv, "=")
			a = append(a, "-genv", k, v)
		} else {
			a = append(a, "-x", kv)
		}
	}
	return append(a, exe)
}

// program is one C program of testdata/ with its directives.
type program struct {
	name, path string
	want       []string
	skip       map[string]bool // MPI names
	skipPlain  map[string]bool
	known      string
}

func programs(t *testing.T) []program {
	files, err := filepath.Glob("testdata/*.c")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in testdata/: %v", err)
	}
	var ps []program
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := program{name: strings.TrimSuffix(filepath.Base(f), ".c"), path: f, skip: map[string]bool{}, skipPlain: map[string]bool{}}
		for _, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "*"))
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			val = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "*/"))
			switch key {
			case "want":
				p.want = strings.Fields(val)
			case "skip":
				for _, m := range strings.Fields(val) {
					p.skip[m] = true
				}
			case "skip-plain":
				for _, m := range strings.Fields(val) {
					p.skipPlain[m] = true
				}
			case "known":
				p.known = val
			}
		}
		ps = append(ps, p)
	}
	return ps
}

func TestPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("MPI programs skipped in -short mode")
	}
	ps := programs(t)
	var nps []int
	for _, s := range strings.Split(*flagNP, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			t.Fatalf("-ctest.np %q: want a list of rank counts", *flagNP)
		}
		nps = append(nps, n)
	}
	for _, m := range mpis {
		if !strings.Contains(","+*flagMPI+",", ","+m.name+",") {
			continue
		}
		t.Run(m.name, func(t *testing.T) {
			cc, err1 := exec.LookPath(m.cc)
			_, err2 := exec.LookPath(m.run)
			if err1 != nil || err2 != nil {
				t.Skipf("%s or %s not found: install %s", m.cc, m.run, m.name)
			}
			dir := t.TempDir()
			lib := library(t, m, dir)
			for _, p := range ps {
				exe := filepath.Join(dir, p.name)
				if out, err := exec.Command(cc, "-O1", "-std=gnu11", "-Wall", "-Wno-stringop-overflow", "-Werror", "-o", exe, p.path).CombinedOutput(); err != nil {
					t.Fatalf("%s %s: %v\n%s", m.cc, p.path, err, out)
				}
				t.Run(p.name, func(t *testing.T) {
					if p.skip[m.name] {
						t.Skipf("not run on %s (see the program's comment)", m.name)
					}
					for _, np := range nps {
						if !p.skipPlain[m.name] {
							if out, err := run(m, np, nil, exe); err != nil {
								t.Errorf("-np %d without the library: %v\n%s", np, err, out)
							}
						}
						if lib == "" {
							continue
						}
						out, err := run(m, np, []string{"LD_PRELOAD=" + lib, "DDT_MPI_STATS=1"}, exe)
						var fails []string
						if err != nil {
							fails = append(fails, fmt.Sprintf("-np %d with the library: %v\n%s", np, err, out))
						} else {
							fails = append(fails, checkStats(out, np, p.want)...)
						}
						for _, f := range fails {
							if p.known != "" && !*flagStrict {
								t.Logf("known library bug (%s): -np %d: %s", p.known, np, f)
							} else {
								t.Errorf("-np %d with the library: %s", np, f)
							}
						}
						if len(fails) == 0 && p.known != "" {
							t.Logf("-np %d: passes: the known bug (%s) looks fixed; drop the known: line", np, p.known)
						}
					}
				})
			}
		})
	}
}

// library returns the interposition library for m: $DDT_INTERPOSE_<MPI>,
// else one built by interpose/build.sh; "" after a log when there is no
// build script.
func library(t *testing.T, m mpi, dir string) string {
	if p := os.Getenv(m.libEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", m.libEnv, p, err)
		}
		return p
	}
	script, _ := filepath.Abs("../build.sh")
	if _, err := os.Stat(script); err != nil {
		t.Logf("no %s: runs with the library skipped", script)
		return ""
	}
	out := filepath.Join(dir, "libddtmpi-"+m.name+".so")
	if b, err := exec.Command("bash", script, m.name, out).CombinedOutput(); err != nil {
		t.Fatalf("bash %s %s %s: %v\n%s", script, m.name, out, err, b)
	}
	return out
}

// run runs exe on np ranks; it passes when it exits 0 and printed PASS.
func run(m mpi, np int, env []string, exe string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := m.launch(np, env, exe)
	cmd := exec.CommandContext(ctx, a[0], a[1:]...)
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "UCX_HANDLE_ERRORS=none")
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil && !strings.Contains(out.String(), "PASS") {
		err = fmt.Errorf("no PASS line")
	}
	return out.String(), err
}

// checkStats checks the statistics lines of a run with the library: one
// per rank, and the counters the program wants.
func checkStats(out string, np int, want []string) []string {
	sum := map[string]int64{}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		i := strings.Index(line, "ddt-mpi:")
		if i < 0 {
			continue
		}
		n++
		for _, f := range strings.Fields(line[i+len("ddt-mpi:"):]) {
			if k, v, ok := strings.Cut(f, "="); ok {
				x, _ := strconv.ParseInt(v, 10, 64)
				sum[k] += x
			}
		}
	}
	var fails []string
	if n != np {
		return []string{fmt.Sprintf("%d statistics lines for %d ranks (DDT_MPI_STATS=1)", n, np)}
	}
	for _, w := range want {
		switch w {
		case "packs":
			if sum["packs"]+sum["unpacks"] == 0 {
				fails = append(fails, "statistics: no pack or unpack served by ddt")
			}
		case "sends":
			if sum["sends"]+sum["recvs"] == 0 {
				fails = append(fails, "statistics: no message packed or unpacked by ddt")
			}
		}
	}
	return fails
}
