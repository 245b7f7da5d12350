package agree

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

var (
	flagN    = flag.Int("agree.n", 40, "number of random types")
	flagSeed = flag.Uint64("agree.seed", 20261125, "seed of the random types")
	flagNP   = flag.Int("agree.np", 2, "ranks of the point-to-point runs under mpirun (0: singleton runs only)")
	flagMPI  = flag.String("agree.mpi", "mpich,openmpi", "MPI libraries to run (comma-separated: mpich, openmpi)")
	flagKeep = flag.String("agree.keep", "", "directory in which to keep the generated C program and the outputs")
)

// impl is one MPI library: its compiler wrapper, launcher and the
// launcher's way of setting a variable in the ranks' environment.
type impl struct {
	name, cc, run string
	libEnv        string // DDT_INTERPOSE_MPICH or _OPENMPI: a prebuilt library
	launch        func(np int, env []string, exe string) []string
}

var impls = []impl{
	{name: "mpich", cc: "mpicc.mpich", run: "mpirun.mpich", libEnv: "DDT_INTERPOSE_MPICH",
		launch: func(np int, env []string, exe string) []string {
			a := []string{"-np", strconv.Itoa(np)}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				a = append(a, "-genv", k, v)
			}
			return append(a, exe)
		}},
	{name: "openmpi", cc: "mpicc.openmpi", run: "mpirun.openmpi", libEnv: "DDT_INTERPOSE_OPENMPI",
		launch: func(np int, env []string, exe string) []string {
			a := []string{"--oversubscribe", "-np", strconv.Itoa(np)}
			if os.Geteuid() == 0 {
				a = append(a, "--allow-run-as-root")
			}
			for _, kv := range env {
				a = append(a, "-x", kv)
			}
			return append(a, exe)
		}},
}

// tcase is one random type and what ddt makes of it.
type tcase struct {
	t          *datatype.Type
	c          *ddt.Committed
	pofs, disp []int64 // long doubles of one instance: packed offsets, displacements
	memo       map[string]string
}

func TestAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("agreement with MPI skipped in -short mode")
	}
	cs := genCases(t)
	src := program(t, cs)
	want := map[string]bool{}
	for _, m := range strings.Split(*flagMPI, ",") {
		want[strings.TrimSpace(m)] = true
	}
	for _, m := range impls {
		if !want[m.name] {
			continue
		}
		t.Run(m.name, func(t *testing.T) { agree(t, m, cs, src) })
	}
}

func genCases(t *testing.T) []*tcase {
	r := rand.New(rand.NewPCG(*flagSeed, *flagSeed^0xa9ee))
	var cs []*tcase
	for range *flagN {
		ty := typegen.Random(r, typegen.Options{})
		c, err := ddt.Commit(ty)
		if err != nil {
			t.Fatalf("ddt.Commit(%s): %v", lang.Format(ty), err)
		}
		pofs, disp := longDoubles(ty)
		cs = append(cs, &tcase{t: ty, c: c, pofs: pofs, disp: disp, memo: map[string]string{}})
	}
	return cs
}

// program is the C source that builds every case and runs check on it.
func program(t *testing.T, cs []*tcase) []byte {
	var b bytes.Buffer
	b.WriteString(cPrelude)
	for i, c := range cs {
		name := fmt.Sprintf("T%d", i)
		block, err := lang.ExportC(c.t, name)
		if err != nil {
			t.Fatalf("type %d: ExportC: %v\n%s", i, err, lang.Format(c.t))
		}
		var span []int64
		for count := int64(1); count <= 3; count++ {
			lo, hi, err := c.t.Span(count)
			if err != nil {
				t.Fatalf("type %d: Span: %v", i, err)
			}
			span = append(span, lo, hi)
		}
		fmt.Fprintf(&b, "static const long P%d[] = {%s};\nstatic const long D%d[] = {%s};\nstatic const long R%d[] = {%s};\n",
			i, joinInts(c.pofs), i, joinInts(c.disp), i, joinInts(span))
		fmt.Fprintf(&b, "static void run%d(void)\n{\n    info in = {%d, P%d, D%d, R%d};\n%s    check(%d, %s, &in);\n    MPI_Type_free(&%s);\n}\n\n",
			i, len(c.pofs), i, i, i, indent(block), i, name, name)
	}
	b.WriteString("int main(int argc, char **argv)\n{\n    int iso = begin(argc, argv);\n    const char *skip = getenv(\"AGREE_SKIP\");\n")
	b.WriteString("    static void (*const runs[])(void) = {\n")
	for i := range cs {
		fmt.Fprintf(&b, "        run%d,\n", i)
	}
	b.WriteString("    };\n    for (int i = 0; i < (int)(sizeof runs / sizeof runs[0]); i++) {\n")
	b.WriteString("        if (skipped(i, skip))\n            continue;\n")
	b.WriteString("        if (iso)\n            isolate(i, runs[i]);\n        else\n            runs[i]();\n    }\n    end();\n    return 0;\n}\n")
	return b.Bytes()
}

// run is the output of one run of the program: per rank, per type, the
// lines by their key ("P 2": kind and count) without kind and index.
type run struct {
	name  string
	ranks []map[int]map[string]string
	stats map[string]int64 // summed over the ranks
	nstat int              // statistics lines seen
	died  map[int]bool     // types the program died on (left out)
}

func agree(t *testing.T, m impl, cs []*tcase, src []byte) {
	cc, err := exec.LookPath(m.cc)
	if err != nil {
		t.Skipf("%s not found: install %s's development package (Debian: %s)", m.cc, m.name, map[string]string{"mpich": "libmpich-dev mpich", "openmpi": "libopenmpi-dev openmpi-bin"}[m.name])
	}
	dir := *flagKeep
	if dir == "" {
		dir = t.TempDir()
	} else {
		dir = filepath.Join(dir, m.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfile, exe := filepath.Join(dir, "agree.c"), filepath.Join(dir, "agree")
	if err := os.WriteFile(cfile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := exec.Command(cc, "-O1", "-std=gnu99", "-Wall", "-o", exe, cfile).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", m.cc, cfile, err, firstLines(string(out), 30))
	}
	t.Logf("%d types built with %s in %v", len(cs), m.cc, time.Since(start).Round(time.Millisecond))

	// Without the library, each type isolated in a child process: MPI's
	// own crashes are recorded and those types left out of the other runs.
	plain := execute(t, m, dir, exe, "plain", 1, []string{"AGREE_ISOLATE=1"}, "", false, nil)
	var crashed []string
	for idx := range cs {
		if _, ok := plain.ranks[0][idx]["X"]; ok {
			crashed = append(crashed, strconv.Itoa(idx))
		}
	}
	skip := ""
	if len(crashed) > 0 {
		skip = "," + strings.Join(crashed, ",") + ","
		t.Logf("%s crashes without the library on types %s: left out of the other runs", m.name, strings.Join(crashed, ", "))
	}
	plainBad := versusDDT(t, cs, plain, nil, m.name+" without the library")
	known := map[int]bool{} // types a run without the library died on
	np := *flagNP
	var plainP2P *run
	var plainP2PBad map[int]bool
	if np > 1 {
		if _, err := exec.LookPath(m.run); err != nil {
			t.Logf("%s not found: point-to-point runs skipped", m.run)
			np = 0
		} else {
			plainP2P = execute(t, m, dir, exe, "plain-np"+strconv.Itoa(np), np, nil, skip, false, nil)
			for idx := range plainP2P.died {
				known[idx] = true
			}
			plainP2PBad = versusDDT(t, cs, plainP2P, nil, fmt.Sprintf("%s -np %d without the library", m.name, np))
		}
	}

	lib := library(t, m, dir)
	if lib == "" {
		return
	}
	// DDT_MPI=0: a pure pass-through, identical to the run without it.
	off := execute(t, m, dir, exe, "ddt-off", 1, []string{"LD_PRELOAD=" + lib, "DDT_MPI=0", "DDT_MPI_STATS=1"}, skip, false, nil)
	for idx := range off.died {
		known[idx] = true
	}
	sameAs(t, cs, off, plain, plainBad)
	if off.stats["packs"] != 0 || off.stats["mirrored"] != 0 {
		t.Errorf("DDT_MPI=0: the statistics say ddt worked: %v", off.stats)
	}

	with := execute(t, m, dir, exe, "ddt", 1, []string{"LD_PRELOAD=" + lib, "DDT_MPI_STATS=1"}, skip, true, known)
	versusDDT(t, cs, with, &fallback{plain, plainBad}, m.name+" with the library")
	checkStats(t, with, false)
	if np > 1 {
		p2p := execute(t, m, dir, exe, "ddt-np"+strconv.Itoa(np), np, []string{"LD_PRELOAD=" + lib, "DDT_MPI_STATS=1"}, skip, true, known)
		versusDDT(t, cs, p2p, &fallback{plainP2P, plainP2PBad}, fmt.Sprintf("%s -np %d with the library", m.name, np))
		sameElements(t, p2p, plainP2P)
		checkStats(t, p2p, true)
	}
}

// library returns the interposition library for m: $DDT_INTERPOSE_<MPI>,
// else one built now by interpose/build.sh; "" (the test skipped) when
// there is none.
func library(t *testing.T, m impl, dir string) string {
	if p := os.Getenv(m.libEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", m.libEnv, p, err)
		}
		return p
	}
	script, _ := filepath.Abs("../build.sh")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("the interposition library is not there yet (no %s): runs with the library skipped, those without it passed", script)
		return ""
	}
	out := filepath.Join(dir, "libddtmpi-"+m.name+".so")
	start := time.Now()
	cmd := exec.Command("bash", script, m.name, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash %s %s %s: %v\n%s", script, m.name, out, err, firstLines(string(b), 30))
	}
	t.Logf("library built in %v", time.Since(start).Round(time.Millisecond))
	return out
}

// execute runs exe until it finishes: a run that dies is run again
// without the type it died on (the type every rank began last, at the
// latest), at most 20 times. A run without the library that dies is MPI's
// fault and only logged; a run with it (lib) that dies is an error, unless
// it dies on a type in known (one a run without the library died on too:
// MPICH 4.0.2 crashes on some types depending on what it did before). The
// result is the last run's, with an X line for each type left out and the
// types in died.
func execute(t *testing.T, m impl, dir, exe, name string, np int, env []string, skip string, lib bool, known map[int]bool) *run {
	t.Helper()
	var died []int
	for attempt := 0; ; attempt++ {
		r, err, msg := once(t, m, dir, exe, name, np, env, skip)
		for _, idx := range died {
			for _, res := range r.ranks {
				res[idx] = map[string]string{"X": "died"}
			}
			r.died[idx] = true
		}
		if err == nil {
			return r
		}
		report := t.Logf
		if lib {
			report = t.Errorf
		}
		finished := true
		culprit := -1
		for _, res := range r.ranks {
			if _, done := res[-1]["E"]; !done {
				finished = false
			}
			if b := unfinished(res); b >= 0 && (culprit < 0 || b < culprit) {
				culprit = b
			}
		}
		if finished {
			report("%s (%s, -np %d): %v after the last type (in MPI_Finalize): results kept\n%s", name, m.name, np, err, firstLines(msg, 8))
			return r
		}
		if culprit >= 0 && lib && known[culprit] {
			report = t.Logf
		}
		if culprit < 0 || attempt >= 20 {
			t.Errorf("%s (%s, -np %d): %v\n%s", name, m.name, np, err, msg)
			return r
		}
		report("%s (%s, -np %d): %v on type %d: run again without it\n%s", name, m.name, np, err, culprit, firstLines(msg, 8))
		died = append(died, culprit)
		if skip == "" {
			skip = ","
		}
		skip += strconv.Itoa(culprit) + ","
	}
}

// unfinished is the type a rank began (N) and did not finish (F), or -1.
func unfinished(res map[int]map[string]string) int {
	for idx, lines := range res {
		_, begun := lines["N"]
		_, done := lines["F"]
		if begun && !done {
			return idx
		}
	}
	return -1
}

// once runs exe (a singleton when np is 1, else under the launcher) with
// the variables env and returns what every rank wrote.
func once(t *testing.T, m impl, dir, exe, name string, np int, env []string, skip string) (*run, error, string) {
	t.Helper()
	outPrefix := filepath.Join(dir, name)
	env = append(env, "AGREE_OUT="+outPrefix, "UCX_HANDLE_ERRORS=none")
	if skip != "" {
		env = append(env, "AGREE_SKIP="+skip)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if np == 1 {
		cmd = exec.CommandContext(ctx, exe)
		cmd.Env = append(os.Environ(), env...)
	} else {
		cmd = exec.CommandContext(ctx, m.run, m.launch(np, env, exe)...)
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err := cmd.Run()
	r := &run{name: name, stats: map[string]int64{}, died: map[int]bool{}}
	for rank := range np {
		r.ranks = append(r.ranks, readOut(t, fmt.Sprintf("%s.%d", outPrefix, rank)))
	}
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, "ddt-mpi:")
		if i < 0 || !strings.Contains(line, "rank=") {
			continue
		}
		r.nstat++
		for _, f := range strings.Fields(line[i+len("ddt-mpi:"):]) {
			if k, v, ok := strings.Cut(f, "="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				r.stats[k] += n
			}
		}
	}
	if err == nil {
		t.Logf("%s: -np %d ran in %v%s", name, np, time.Since(start).Round(time.Millisecond), statsNote(r))
	}
	return r, err, stderr.String()
}

func statsNote(r *run) string {
	if r.nstat == 0 {
		return ""
	}
	keys := []string{"types", "mirrored", "fallback", "packs", "unpacks", "sends", "recvs", "bytes"}
	var s []string
	for _, k := range keys {
		s = append(s, fmt.Sprintf("%s=%d", k, r.stats[k]))
	}
	return fmt.Sprintf("; statistics of %d ranks: %s", r.nstat, strings.Join(s, " "))
}

// readOut parses one rank's output file; the end line "E" is kept under
// index -1.
func readOut(t *testing.T, path string) map[int]map[string]string {
	res := map[int]map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return res
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "E" {
			res[-1] = map[string]string{"E": ""}
			continue
		}
		if len(f) < 2 {
			continue
		}
		idx, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		if res[idx] == nil {
			res[idx] = map[string]string{}
		}
		key := f[0]
		rest := f[2:]
		if f[0] != "T" && f[0] != "X" && f[0] != "N" && f[0] != "F" && len(f) > 2 {
			key += " " + f[2]
			rest = f[3:]
		}
		res[idx][key] = strings.Join(rest, " ")
	}
	return res
}

// fallback is the run without the library that a run with it is held to
// where MPI and ddt differ: the library must then leave the type to MPI.
type fallback struct {
	plain *run
	bad   map[int]bool
}

// versusDDT compares every line of r with ddt's results and returns the
// types that differ. Without fb (a run without the library) differences
// are MPI's and only logged; with fb a difference is an error unless the
// run without the library differs from ddt on that type too and r gives
// exactly its results (the library fell back to MPI).
func versusDDT(t *testing.T, cs []*tcase, r *run, fb *fallback, what string) map[int]bool {
	t.Helper()
	bad := map[int]bool{}
	var fellBack []int
	for rank, res := range r.ranks {
		if _, done := res[-1]["E"]; !done && fb != nil {
			t.Errorf("%s: rank %d did not finish", what, rank)
		}
		for idx, lines := range res {
			if idx < 0 {
				continue
			}
			if idx >= len(cs) {
				t.Errorf("%s: rank %d: unknown type %d", what, rank, idx)
				continue
			}
			c := cs[idx]
			keys := sortedKeys(lines)
			for _, k := range keys {
				if k == "X" && lines[k] == "died" && fb != nil {
					continue // execute has reported it
				}
				d := c.diff(k, lines[k])
				if d == "" {
					continue
				}
				first := !bad[idx]
				bad[idx] = true
				msg := fmt.Sprintf("%s: rank %d type %d: %s: %s", what, rank, idx, k, d)
				switch {
				case fb == nil:
					if first && len(bad) <= 5 {
						t.Logf("%s (first difference)\n%s", msg, lang.Format(c.t))
					}
				case fb.plain != nil && fb.bad[idx] && rank < len(fb.plain.ranks) && fb.plain.ranks[rank][idx][k] == lines[k]:
					fellBack = append(fellBack, idx)
				default:
					t.Errorf("%s\n%s", msg, lang.Format(c.t))
				}
			}
		}
	}
	if fb == nil && len(bad) > 0 {
		t.Logf("%s: %d of %d types differ from ddt (MPI's own; internal/conformance tracks them)", what, len(bad), len(cs))
	}
	if len(fellBack) > 0 {
		t.Logf("%s: on %d lines of types where MPI differs from ddt the library gives MPI's results", what, len(fellBack))
	}
	return bad
}

// sameAs checks that r printed exactly what plain printed, on the types
// where plain agrees with ddt (MPICH 4.0.2 packs a few types differently
// from one run to the next).
func sameAs(t *testing.T, cs []*tcase, r, plain *run, plainBad map[int]bool) {
	t.Helper()
	for idx := range cs {
		if plainBad[idx] {
			continue
		}
		a, b := r.ranks[0][idx], plain.ranks[0][idx]
		if _, x := b["X"]; x {
			continue
		}
		if _, x := a["X"]; x {
			continue
		}
		for _, k := range sortedKeys(b) {
			va, vb := a[k], b[k]
			if k == "A 2" {
				// MPICH's MPI_Get_elements_x differs from one run to
				// the next on some types; sameElements checks it
				va, vb = firstFields(va, 4), firstFields(vb, 4)
			}
			if va != vb {
				t.Errorf("%s: type %d: %s: %q, without the library %q", r.name, idx, k, a[k], b[k])
			}
		}
	}
}

// sameElements checks that MPI_Get_count and MPI_Get_elements on the
// status of a receive with the library say what they say without it.
func sameElements(t *testing.T, r, plain *run) {
	t.Helper()
	if plain == nil {
		return
	}
	for rank, res := range r.ranks {
		for idx, lines := range res {
			a, b := lines["A 2"], plain.ranks[rank][idx]["A 2"]
			if a == "" || b == "" {
				continue
			}
			fa, fb := strings.Fields(a), strings.Fields(b)
			if len(fa) == 5 && len(fb) == 5 && (fa[3] != fb[3] || fa[4] != fb[4]) {
				t.Errorf("%s: rank %d type %d: MPI_Get_count, MPI_Get_elements_x %s %s, without the library %s %s", r.name, rank, idx, fa[3], fa[4], fb[3], fb[4])
			}
		}
	}
}

// checkStats checks the statistics line (../shared/spec/interpose.md):
// one per rank, and ddt did the packing.
func checkStats(t *testing.T, r *run, p2p bool) {
	t.Helper()
	if r.nstat != len(r.ranks) {
		t.Errorf("%s: %d statistics lines for %d ranks (DDT_MPI_STATS=1)", r.name, r.nstat, len(r.ranks))
		return
	}
	for _, k := range []string{"types", "mirrored", "packs", "unpacks", "bytes"} {
		if r.stats[k] <= 0 {
			t.Errorf("%s: statistics %s=%d: ddt did not do the work", r.name, k, r.stats[k])
		}
	}
	if p2p && (r.stats["sends"] <= 0 || r.stats["recvs"] <= 0) {
		t.Errorf("%s: statistics sends=%d recvs=%d: ddt did not pack the messages", r.name, r.stats["sends"], r.stats["recvs"])
	}
	if r.stats["mirrored"]+r.stats["fallback"] > r.stats["types"] {
		t.Errorf("%s: statistics mirrored+fallback=%d > types=%d", r.name, r.stats["mirrored"]+r.stats["fallback"], r.stats["types"])
	}
}

func firstFields(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// diff compares one output line (key and fields) with ddt's result and
// says how it differs ("" if it does not).
func (c *tcase) diff(key, val string) string {
	kind, cnt, _ := strings.Cut(key, " ")
	count, _ := strconv.ParseInt(cnt, 10, 64)
	f := strings.Fields(val)
	num := func(i int) int64 {
		if i >= len(f) {
			return -1 << 62
		}
		v, _ := strconv.ParseInt(f[i], 10, 64)
		return v
	}
	ty := c.t
	switch kind {
	case "T":
		want := fmt.Sprintf("%d %d %d %d %d", ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent())
		if val != want {
			return fmt.Sprintf("size lb extent true_lb true_extent %s, ddt %s", val, want)
		}
	case "X":
		return "crashed (status " + val + ")"
	case "P", "I":
		want := fmt.Sprintf("%d %s", ty.Size()*count, c.packHash(count))
		if kind == "P" {
			want += " 1"
		}
		if val != want {
			return fmt.Sprintf("packed bytes, hash (and guards intact) %s, ddt %s", val, want)
		}
	case "Z":
		if num(0) < ty.Size()*count {
			return fmt.Sprintf("MPI_Pack_size %d < %d bytes packed", num(0), ty.Size()*count)
		}
	case "U", "C":
		lo, hi := num(0), num(1)
		stream := c.stream2(count)
		want := fmt.Sprintf("%d %d %s", lo, hi, c.unpackHash(count, lo, hi, stream, "u"))
		if kind == "U" {
			want += " 1"
		}
		if val != want {
			return fmt.Sprintf("unpacked image %s, ddt %s", val, want)
		}
	case "A":
		lo, hi := num(0), num(1)
		packed, _ := c.pack(count)
		want := fmt.Sprintf("%d %d %s", lo, hi, c.unpackHash(count, lo, hi, packed, "a"))
		if len(f) < 5 || strings.Join(f[:3], " ") != want {
			return fmt.Sprintf("received image %s, ddt %s", val, want)
		}
		wc := count
		if ty.Size() == 0 {
			wc = 0
		}
		if num(3) != wc {
			return fmt.Sprintf("MPI_Get_count %d, want %d", num(3), wc)
		}
	case "B":
		if val != c.packHash(count) {
			return fmt.Sprintf("received MPI_PACKED bytes %s, ddt %s", val, c.packHash(count))
		}
	case "S", "N", "F":
	default:
		return "unknown line"
	}
	return ""
}

// pack is ddt's packed bytes of count instances of a pattern-1 image,
// checked against the flattening of the type map.
func (c *tcase) pack(count int64) ([]byte, string) {
	lo, hi, _ := c.t.Span(count)
	img := patterned(lo, hi, 1)
	dst := make([]byte, c.t.Size()*count)
	n, err := c.c.Pack(dst, img, -lo, count)
	if err != nil {
		return nil, "ddt.Pack: " + err.Error()
	}
	dst = dst[:n]
	var naive []byte
	c.t.Walk(count, func(b datatype.Basic, d int64) bool {
		for k := range b.Size() {
			naive = append(naive, pattern(d+k, 1))
		}
		return true
	})
	if !bytes.Equal(naive, dst) {
		return nil, "ddt.Pack differs from the flattened type map"
	}
	return dst, ""
}

func (c *tcase) packHash(count int64) string {
	key := fmt.Sprintf("p%d", count)
	if h, ok := c.memo[key]; ok {
		return h
	}
	p, err := c.pack(count)
	h := err
	if err == "" {
		h = fmt.Sprintf("%016x", fnv64(c.maskStream(bytes.Clone(p), count)))
	}
	c.memo[key] = h
	return h
}

func (c *tcase) stream2(count int64) []byte {
	s := make([]byte, c.t.Size()*count)
	for i := range s {
		s[i] = pattern(int64(i), 2)
	}
	return s
}

// unpackHash is the hash of a pattern-3 image of [lo, hi) after ddt
// unpacked stream into it, checked against the flattening.
func (c *tcase) unpackHash(count, lo, hi int64, stream []byte, tag string) string {
	key := fmt.Sprintf("%s%d %d %d", tag, count, lo, hi)
	if h, ok := c.memo[key]; ok {
		return h
	}
	h := func() string {
		if stream == nil {
			return "no packed stream"
		}
		if hi < lo || hi-lo > 64<<20 {
			return "image too large"
		}
		img := patterned(lo, hi, 3)
		if _, err := c.c.Unpack(img, stream, -lo, count); err != nil {
			return "ddt.Unpack: " + err.Error()
		}
		naive := patterned(lo, hi, 3)
		var pos int64
		inside := c.t.Walk(count, func(b datatype.Basic, d int64) bool {
			if d < lo || d+b.Size() > hi {
				return false
			}
			copy(naive[d-lo:d-lo+b.Size()], stream[pos:])
			pos += b.Size()
			return true
		})
		if !inside {
			return "ddt writes outside the image"
		}
		if !bytes.Equal(img, naive) {
			return "ddt.Unpack differs from the flattened type map"
		}
		return fmt.Sprintf("%016x", fnv64(c.maskImage(img, count, lo)))
	}()
	c.memo[key] = h
	return h
}

func (c *tcase) maskStream(p []byte, count int64) []byte {
	size := c.t.Size()
	for i := range count {
		for _, o := range c.pofs {
			clear(p[i*size+o+10 : i*size+o+16])
		}
	}
	return p
}

func (c *tcase) maskImage(img []byte, count, lo int64) []byte {
	ext := c.t.Extent()
	for i := range count {
		for _, d := range c.disp {
			for k := int64(10); k < 16; k++ {
				if x := d + i*ext + k - lo; x >= 0 && x < int64(len(img)) {
					img[x] = 0
				}
			}
		}
	}
	return img
}

// longDoubles returns the packed offsets and displacements of the x87 long
// doubles of one instance (both halves of a long double complex): MPICH
// copies only their 10 significant bytes, so both sides mask the other 6.
func longDoubles(t *datatype.Type) (pofs, disps []int64) {
	var pos int64
	t.Walk(1, func(b datatype.Basic, d int64) bool {
		switch b {
		case datatype.LongDouble:
			pofs, disps = append(pofs, pos), append(disps, d)
		case datatype.CLongDoubleComplex:
			pofs, disps = append(pofs, pos, pos+16), append(disps, d, d+16)
		}
		pos += b.Size()
		return true
	})
	return pofs, disps
}

// pattern is the byte at displacement d of a patterned buffer (pat in C).
func pattern(d int64, salt uint64) byte {
	x := uint64(d)*0x9E3779B97F4A7C15 + salt
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return byte(x)
}

func patterned(lo, hi int64, salt uint64) []byte {
	b := make([]byte, hi-lo)
	for i := range b {
		b[i] = pattern(lo+int64(i), salt)
	}
	return b
}

func fnv64(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func joinInts(v []int64) string {
	if len(v) == 0 {
		return "0"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}

var flagCLI = flag.Int("agree.cli", 8, "types also packed and unpacked by the ddt command (ddt pack, ddt unpack)")

// TestCommand checks the reference the other runs are held to against the
// ddt command itself: `ddt pack` and `ddt unpack` (cmd/ddt) of the first
// types, count 2, give the bytes and images Committed.Pack and Unpack give.
func TestCommand(t *testing.T) {
	if testing.Short() || *flagCLI <= 0 {
		t.Skip("ddt command check skipped")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "ddt")
	if out, err := exec.Command("go", "build", "-o", exe, "github.com/ddtlab/ddt/cmd/ddt").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/ddt: %v\n%s", err, out)
	}
	cs := genCases(t)
	for i, c := range cs[:min(*flagCLI, len(cs))] {
		const count = 2
		lo, hi, err := c.t.Span(count)
		if err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(dir, fmt.Sprintf("t%d.ddt", i))
		img, packed, stream, out := src+".img", src+".packed", src+".stream", src+".out"
		write := func(p string, b []byte) {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(src, []byte(lang.Format(c.t)+"\n"))
		write(img, patterned(lo, hi, 1))
		origin := strconv.FormatInt(-lo, 10)
		if b, err := exec.Command(exe, "pack", src, "--count", "2", "--in", img, "--out", packed, "--origin", origin).CombinedOutput(); err != nil {
			t.Fatalf("type %d: ddt pack: %v\n%s\n%s", i, err, b, lang.Format(c.t))
		}
		got, _ := os.ReadFile(packed)
		want, msg := c.pack(count)
		if msg != "" || !bytes.Equal(got, want) {
			t.Errorf("type %d: ddt pack gives %d bytes, Committed.Pack %d (%s)\n%s", i, len(got), len(want), msg, lang.Format(c.t))
		}
		write(stream, c.stream2(count))
		write(out, patterned(lo, hi, 3))
		if b, err := exec.Command(exe, "unpack", src, "--count", "2", "--in", stream, "--out", out, "--origin", origin).CombinedOutput(); err != nil {
			t.Fatalf("type %d: ddt unpack: %v\n%s", i, err, b)
		}
		got, _ = os.ReadFile(out)
		wantImg := patterned(lo, hi, 3)
		if _, err := c.c.Unpack(wantImg, c.stream2(count), -lo, count); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, wantImg) {
			t.Errorf("type %d: ddt unpack's image differs from Committed.Unpack's\n%s", i, lang.Format(c.t))
		}
	}
}
