package conformance

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
	flagSeed    = flag.Uint64("conformance.seed", 0, "extra random seed: run the types of this seed as well as the fixed ones")
	flagN       = flag.Int("conformance.n", 300, "number of random types per seed")
	flagMPICC   = flag.String("conformance.mpicc", "", "MPICH C compiler wrapper (default: mpicc.mpich, then mpicc if it is MPICH's, then cc with pkg-config mpich)")
	flagOpenMPI = flag.Bool("conformance.openmpi", false, "also run the program with Open MPI (mpicc.openmpi) and log its differences")
	flagStrict  = flag.Bool("conformance.strict", false, "fail on MPICH's own faults too (by default crashes and self-contradictions of MPICH 4.0.2 on some types with negative extents are logged and counted)")
	flagKeep    = flag.String("conformance.keep", "", "directory in which to keep the generated C program")
)

// fixedSeed is the seed every run checks.
const fixedSeed = 20240601

// testCase is one type of the generated program.
type testCase struct {
	name string // where it comes from
	t    *datatype.Type
	// alt is the index of the case holding t with its subarrays expanded
	// by the standard's definition (-1 if t has none); expanded marks such
	// a case.
	alt      int
	expanded bool
}

// results are what the C program printed for one type.
type results struct {
	size, lb, extent, tlb, textent int64
	pack                           [4]packResult // by count 1..3
	unpack                         [4]unpackResult
	skipped                        [4]bool // the image would be too large
	// MPI's pack and unpack of count instances done one instance at a
	// time, each shifted by MPI's own extent (counts 2 and 3)
	ipack   [4]packResult
	iunpack [4]uint64
	got     bool
	crashed string // MPI crashed on the type
}

type packResult struct {
	n    int64
	hash uint64
}

type unpackResult struct {
	lo, hi int64
	hash   uint64
}

func findMPICC(t *testing.T, names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// compiler is a command line that compiles and links an MPI C program:
// pre, the source and output, then post.
type compiler struct {
	name      string
	pre, post []string
}

// isMPICH reports whether the compiler builds against MPICH's mpi.h (an
// MPICH derivative defines MPICH_VERSION too), and why not.
func isMPICH(t *testing.T, cc compiler) (bool, string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "which.c")
	prog := "#include <mpi.h>\n#ifndef MPICH_VERSION\n#error mpi.h is not MPICH's\n#endif\nint main(void) { return 0; }\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append(append([]string{}, cc.pre[1:]...), "-c", "-o", filepath.Join(dir, "which.o"), src), cc.post...)
	out, err := exec.Command(cc.pre[0], args...).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "is not MPICH's") {
			return false, cc.name + ": its mpi.h is not MPICH's"
		}
		msg := strings.Join(strings.Fields(string(out)), " ")
		if i := strings.Index(msg, "error"); i > 0 {
			msg = msg[i:]
		}
		if len(msg) > 120 {
			msg = msg[:120] + "..."
		}
		return false, fmt.Sprintf("%s does not build an MPI program (%v: %s)", cc.name, err, msg)
	}
	return true, ""
}

// findMPICH returns the compiler of the reference MPI: -conformance.mpicc,
// else mpicc.mpich, else mpicc when its mpi.h is MPICH's, else the C
// compiler with pkg-config's flags for mpich. Open MPI is never the
// reference; the empty name means no MPICH, with the reasons.
func findMPICH(t *testing.T) (compiler, string) {
	var cands []compiler
	if *flagMPICC != "" {
		cands = append(cands, compiler{name: *flagMPICC, pre: []string{*flagMPICC}})
	} else {
		for _, n := range []string{"mpicc.mpich", "mpicc"} {
			if p, err := exec.LookPath(n); err == nil {
				cands = append(cands, compiler{name: p, pre: []string{p}})
			}
		}
		if pc, err := exec.LookPath("pkg-config"); err == nil {
			cf, err1 := exec.Command(pc, "--cflags", "mpich").Output()
			lf, err2 := exec.Command(pc, "--libs", "mpich").Output()
			cc := os.Getenv("CC")
			if cc == "" {
				cc = "cc"
			}
			if err1 == nil && err2 == nil {
				cands = append(cands, compiler{name: cc + " (pkg-config mpich)",
					pre: append([]string{cc}, strings.Fields(string(cf))...), post: strings.Fields(string(lf))})
			}
		}
	}
	var why []string
	for _, c := range cands {
		ok, reason := isMPICH(t, c)
		if ok {
			return c, ""
		}
		why = append(why, reason)
	}
	if len(cands) == 0 {
		why = append(why, "no mpicc.mpich, mpicc or pkg-config mpich")
	}
	return compiler{}, strings.Join(why, "; ")
}

// goldenCases are the types of the export golden inputs
// (lang/testdata/export/*.ddt).
func goldenCases(t *testing.T) []testCase {
	var cs []testCase
	files, _ := filepath.Glob("../../lang/testdata/export/*.ddt")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ty, err := lang.Parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCase{name: filepath.Base(f), t: ty})
	}
	return cs
}

func cases(t *testing.T) []testCase {
	cs := goldenCases(t)
	for _, e := range edgeCases(t) {
		cs = append(cs, e)
	}
	seeds := []uint64{fixedSeed}
	if *flagSeed != 0 {
		seeds = append(seeds, *flagSeed)
	}
	for _, s := range seeds {
		r := rand.New(rand.NewPCG(s, s^0x5eed))
		for i := range *flagN {
			cs = append(cs, testCase{name: fmt.Sprintf("seed %d type %d", s, i), t: typegen.Random(r, typegen.Options{})})
		}
	}
	n := len(cs)
	for i := range n {
		cs[i].alt = -1
		e, has, err := expandSubarrays(cs[i].t)
		if err != nil {
			t.Fatalf("%s: expanding subarrays: %v", cs[i].name, err)
		}
		if has {
			cs[i].alt = len(cs)
			cs = append(cs, testCase{name: cs[i].name + " (subarrays expanded)", t: e, alt: -1, expanded: true})
		}
	}
	return cs
}

// TestMPICH builds every case with the reference MPI and compares its
// sizes, bounds, packed bytes and unpacked images with ddt's.
func TestMPICH(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance against MPI skipped in -short mode")
	}
	cc, why := findMPICH(t)
	if cc.name == "" {
		t.Skipf("MPICH, the reference MPI, not found (%s): install MPICH (Debian: libmpich-dev mpich) or pass -conformance.mpicc", why)
	}
	cs := cases(t)
	var ntypes int
	for _, c := range cs {
		if !c.expanded {
			ntypes++
		}
	}
	start := time.Now()
	res, src := runProgram(t, cc, cs)
	t.Logf("%d types (and %d with their subarrays expanded), %s: built and run in %v", ntypes, len(cs)-ntypes, cc.name, time.Since(start).Round(time.Millisecond))
	mism := compare(t, cs, res, true)
	if len(mism) > 0 {
		t.Logf("%d of %d types differ from %s", len(mism), ntypes, cc.name)
		if *flagKeep == "" {
			t.Log("rerun with -conformance.keep DIR to keep the C program")
		}
	}
	_ = src
	if *flagOpenMPI {
		occ := findMPICC(t, "mpicc.openmpi")
		if occ == "" {
			t.Log("no mpicc.openmpi: Open MPI comparison skipped")
			return
		}
		ores, _ := runProgram(t, compiler{name: occ, pre: []string{occ}}, cs)
		om := compare(t, cs, ores, false)
		t.Logf("Open MPI differs from ddt (MPICH semantics) on %d of %d types (informational)", len(om), ntypes)
	}
}

func runProgram(t *testing.T, cc compiler, cs []testCase) (map[int]*results, string) {
	t.Helper()
	var prog bytes.Buffer
	prog.WriteString(cPrelude)
	for i, c := range cs {
		name := fmt.Sprintf("T%d", i)
		block, err := lang.ExportC(c.t, name)
		if err != nil {
			t.Fatalf("%s: ExportC: %v", c.name, err)
		}
		pofs, disps := longDoubles(c.t)
		fmt.Fprintf(&prog, "static const long P%d[%d] = {%s};\n", i, len(pofs)+1, joinInts(pofs))
		fmt.Fprintf(&prog, "static const long D%d[%d] = {%s};\n", i, len(disps)+1, joinInts(disps))
		var span []int64
		for count := int64(1); count <= 3; count++ {
			lo, hi, _ := c.t.Span(count)
			span = append(span, lo, hi)
		}
		fmt.Fprintf(&prog, "static const long R%d[6] = {%s};\n", i, joinInts(span))
		fmt.Fprintf(&prog, "static void run%d(void)\n{\n%s    check(%d, %s, %d, P%d, D%d, R%d);\n    MPI_Type_free(&%s);\n}\n\n",
			i, indent(block), i, name, len(pofs), i, i, i, name)
	}
	prog.WriteString("int main(int argc, char **argv)\n{\n    MPI_Init(&argc, &argv);\n")
	for i := range cs {
		fmt.Fprintf(&prog, "    isolate(%d, run%d);\n", i, i)
	}
	prog.WriteString("    MPI_Finalize();\n    return 0;\n}\n")

	dir := *flagKeep
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(cc.pre[0])
	cfile := filepath.Join(dir, "conformance_"+base+".c")
	exe := filepath.Join(dir, "conformance_"+base)
	if err := os.WriteFile(cfile, prog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(append(append([]string{}, cc.pre[1:]...), "-O1", "-std=gnu99", "-Wall", "-Werror", "-o", exe, cfile), cc.post...)
	out, err := exec.CommandContext(ctx, cc.pre[0], args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cc.name, cfile, err, firstLines(string(out), 40))
	}
	cmd := exec.CommandContext(ctx, exe)
	// UCX's handler of a crash inside MPI can hang the process; let it die.
	cmd.Env = append(os.Environ(), "UCX_HANDLE_ERRORS=none")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	res := map[int]*results{}
	last := -1
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		idx, _ := strconv.Atoi(f[1])
		r := res[idx]
		if r == nil {
			r = &results{}
			res[idx] = r
		}
		num := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
		hex := func(k int) uint64 { v, _ := strconv.ParseUint(f[k], 16, 64); return v }
		switch f[0] {
		case "B":
			last = idx
		case "T":
			r.size, r.lb, r.extent, r.tlb, r.textent = num(2), num(3), num(4), num(5), num(6)
			r.got = true
		case "P":
			r.pack[num(2)] = packResult{num(3), hex(4)}
		case "U":
			r.unpack[num(2)] = unpackResult{num(3), num(4), hex(5)}
		case "S":
			r.skipped[num(2)] = true
		case "I":
			r.ipack[num(2)] = packResult{num(3), hex(4)}
		case "J":
			r.iunpack[num(2)] = hex(3)
		case "X":
			r.crashed = "MPI crashed (signal or exit status " + f[2] + ")"
		}
	}
	if runErr != nil {
		culprit := "?"
		if last >= 0 && last < len(cs) {
			culprit = cs[last].name + "\n" + lang.Format(cs[last].t)
		}
		t.Errorf("%s: %v while running type %d (%s)\n%s", exe, runErr, last, culprit, firstLines(stderr.String(), 20))
	}
	return res, cfile
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

// compare checks each case's results against ddt and returns the indices
// that differ. With report, differences are errors, else logged. A crash
// inside MPI, or a difference that MPI itself contradicts (see
// mpiContradicts), is MPI's fault: logged and counted, an error only with
// -conformance.strict.
func compare(t *testing.T, cs []testCase, res map[int]*results, report bool) []int {
	var bad []int
	classes := map[string][]int{}
	detail := map[int]string{}
	for i, c := range cs {
		if c.expanded {
			continue // evidence for the case it expands, not a case of its own
		}
		r := res[i]
		if r == nil || !r.got {
			classes["not run"] = append(classes["not run"], i)
			bad = append(bad, i)
			continue
		}
		diffs := diffsFor(c.t, r)
		if len(diffs) > 0 {
			bad = append(bad, i)
			class := strings.SplitN(diffs[0], ":", 2)[0]
			if r.crashed == "" {
				if why := mpiContradicts(c, res, r); why != "" {
					class = "MPI contradicts itself: " + why
					diffs = append(diffs, "MPI contradicts itself: "+why)
				}
			}
			classes[class] = append(classes[class], i)
			detail[i] = fmt.Sprintf("%s: %s\n%s", c.name, strings.Join(diffs, "; "), lang.Format(c.t))
			if len(bad) <= 20 {
				t.Log(detail[i])
			}
		}
	}
	var keys []string
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var known int
	for _, k := range keys {
		first := classes[k][0]
		msg := fmt.Sprintf("mismatch class %q: %d types; first: %s", k, len(classes[k]), detail[first])
		// Every difference fails the test, layouts included; crashes
		// inside MPI and MPI's self-contradictions are MPI's and only
		// logged unless -conformance.strict.
		mpis := strings.HasPrefix(k, "MPI crashed") || strings.HasPrefix(k, "MPI contradicts itself")
		if mpis {
			known += len(classes[k])
		}
		if report && (*flagStrict || !mpis) {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	if known > 0 {
		t.Logf("%d of the differences are MPI's own faults (crashes or self-contradictions), counted and not failed (-conformance.strict fails them)", known)
	}
	return bad
}

// outcome is ddt's (the flattening's) result for count instances in the
// image range MPI used.
type outcome struct {
	packed   []byte
	packHash uint64
	imgHash  uint64
	inRange  bool
}

func ddtOutcome(ty *datatype.Type, count, lo, hi int64) (outcome, []byte) {
	pofs, disps := longDoubles(ty)
	packed := naivePack(ty, count)
	o := outcome{packed: packed, packHash: hash(maskPacked(packed, count, ty.Size(), pofs))}
	img, ok := naiveUnpack(ty, count, lo, hi)
	o.inRange = ok
	if ok {
		o.imgHash = hash(maskImage(img, count, ty.Extent(), lo, disps))
	}
	return o, img
}

// diffsFor lists the differences between MPI's results r and ddt's for ty.
func diffsFor(ty *datatype.Type, r *results) []string {
	var diffs []string
	if r.crashed != "" {
		diffs = append(diffs, r.crashed)
	}
	got := [5]int64{ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent()}
	want := [5]int64{r.size, r.lb, r.extent, r.tlb, r.textent}
	fields := [5]string{"size", "lb", "extent", "true_lb", "true_extent"}
	for k := range got {
		if got[k] != want[k] {
			diffs = append(diffs, fmt.Sprintf("%s: ddt %d, MPI %d", fields[k], got[k], want[k]))
		}
	}
	for count := int64(1); count <= 3 && len(diffs) == 0; count++ {
		if r.skipped[count] {
			continue
		}
		u := r.unpack[count]
		o, img := ddtOutcome(ty, count, u.lo, u.hi)
		p := r.pack[count]
		if int64(len(o.packed)) != p.n {
			diffs = append(diffs, fmt.Sprintf("pack count %d: ddt %d bytes, MPI %d", count, len(o.packed), p.n))
		} else if o.packHash != p.hash {
			diffs = append(diffs, fmt.Sprintf("pack count %d: packed bytes differ", count))
		}
		if !o.inRange {
			diffs = append(diffs, fmt.Sprintf("unpack count %d: ddt writes outside MPI's range [%d, %d)", count, u.lo, u.hi))
		} else if o.imgHash != u.hash {
			diffs = append(diffs, fmt.Sprintf("unpack count %d: unpacked image differs", count))
		}
		if o.inRange {
			if d := checkEngine(ty, count, o.packed, img, u.lo, u.hi); d != "" {
				diffs = append(diffs, d)
			}
		}
	}
	return diffs
}

// mpiContradicts reports why a difference between ddt and MPI on case c is
// MPI's own: MPI computes ddt's result itself by a route the standard
// defines to be equivalent. Two routes are tried: the type with its
// subarrays expanded by their definition (MPI-4.1 §5.1.3), and count
// instances packed and unpacked one instance at a time, instance i
// displaced by i times MPI's own extent (the meaning of count, §5.1.11).
// It returns "" when neither route agrees with ddt.
func mpiContradicts(c testCase, res map[int]*results, r *results) string {
	if c.alt >= 0 {
		if ra := res[c.alt]; ra != nil && ra.got && ra.crashed == "" && len(diffsFor(c.t, ra)) == 0 {
			return "its subarray differs from the standard's expansion of it, which agrees with ddt"
		}
	}
	ty := c.t
	got := [5]int64{ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent()}
	if got != [5]int64{r.size, r.lb, r.extent, r.tlb, r.textent} {
		return ""
	}
	var differs bool
	for count := int64(1); count <= 3; count++ {
		if r.skipped[count] {
			continue
		}
		u := r.unpack[count]
		o, _ := ddtOutcome(ty, count, u.lo, u.hi)
		p := r.pack[count]
		if int64(len(o.packed)) == p.n && o.packHash == p.hash && o.inRange && o.imgHash == u.hash {
			continue // agrees
		}
		if count == 1 {
			return ""
		}
		ip := r.ipack[count]
		if int64(len(o.packed)) != ip.n || o.packHash != ip.hash || !o.inRange || o.imgHash != r.iunpack[count] {
			return ""
		}
		differs = true
	}
	if !differs {
		return ""
	}
	return "its count instances differ from its instances one at a time, which agree with ddt"
}

// MPICH copies only the 10 significant bytes of an x87 long double when it
// packs or unpacks a non-contiguous layout (yaksa copies by C assignment),
// so the 6 padding bytes of each long double are unspecified in its packed
// output and left as they were by its unpack. The comparison masks them:
// longDoubles returns, for one instance, the packed offsets and the
// displacements of the long doubles (the halves of a c_long_double_complex
// included), and the program and the test zero their padding bytes.
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

func maskPacked(p []byte, count, size int64, pofs []int64) []byte {
	p = bytes.Clone(p)
	for i := range count {
		for _, o := range pofs {
			clear(p[i*size+o+10 : i*size+o+16])
		}
	}
	return p
}

func maskImage(img []byte, count, extent, lo int64, disps []int64) []byte {
	img = bytes.Clone(img)
	for i := range count {
		for _, d := range disps {
			for k := int64(10); k < 16; k++ {
				if x := d + i*extent + k - lo; x >= 0 && x < int64(len(img)) {
					img[x] = 0
				}
			}
		}
	}
	return img
}

// pattern is the byte at displacement d of a patterned buffer; the C
// program computes the same function.
func pattern(d int64, salt uint64) byte {
	x := uint64(d)*0x9E3779B97F4A7C15 + salt
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return byte(x)
}

func hash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// naivePack is MPI_Pack on a homogeneous system by flattening: the bytes of
// each element, in type-map order, from a memory image patterned by
// displacement.
func naivePack(t *datatype.Type, count int64) []byte {
	out := []byte{}
	t.Walk(count, func(b datatype.Basic, d int64) bool {
		for k := range b.Size() {
			out = append(out, pattern(d+k, 1))
		}
		return true
	})
	return out
}

// naiveUnpack unpacks a patterned packed stream into a patterned image of
// displacements [lo, hi), writing elements in type-map order; ok is false
// if an element falls outside.
func naiveUnpack(t *datatype.Type, count, lo, hi int64) (img []byte, ok bool) {
	if hi < lo || hi-lo > 64<<20 {
		return nil, false
	}
	img = make([]byte, hi-lo)
	for i := range img {
		img[i] = pattern(lo+int64(i), 3)
	}
	var pos int64
	ok = t.Walk(count, func(b datatype.Basic, d int64) bool {
		if d < lo || d+b.Size() > hi {
			return false
		}
		for k := range b.Size() {
			img[d+k-lo] = pattern(pos, 2)
			pos++
		}
		return true
	})
	return img, ok
}

// checkEngine compares ddt's reference engine (ddt.Commit, Pack, Unpack)
// with the naive flattening.
func checkEngine(t *datatype.Type, count int64, packed, img []byte, lo, hi int64) string {
	c, err := ddt.Commit(t)
	if err != nil {
		return "ddt.Commit: " + err.Error()
	}
	src := make([]byte, hi-lo)
	for i := range src {
		src[i] = pattern(lo+int64(i), 1)
	}
	dst := make([]byte, len(packed))
	n, err := c.Pack(dst, src, -lo, count)
	if err != nil {
		return fmt.Sprintf("ddt.Pack count %d: %v", count, err)
	}
	if n != int64(len(packed)) || !bytes.Equal(dst, packed) {
		return fmt.Sprintf("ddt.Pack count %d: differs from the flattening", count)
	}
	in := make([]byte, len(packed))
	for i := range in {
		in[i] = pattern(int64(i), 2)
	}
	got := make([]byte, hi-lo)
	for i := range got {
		got[i] = pattern(lo+int64(i), 3)
	}
	if _, err := c.Unpack(got, in, -lo, count); err != nil {
		return fmt.Sprintf("ddt.Unpack count %d: %v", count, err)
	}
	if !bytes.Equal(got, img) {
		return fmt.Sprintf("ddt.Unpack count %d: differs from the flattening", count)
	}
	return ""
}

const cPrelude = `/* generated by the ddt conformance test */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned char pattern(int64_t d, uint64_t salt)
{
    uint64_t x = (uint64_t)d * 0x9E3779B97F4A7C15ull + salt;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static uint64_t fnv64a(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* isolate runs one type in a child process, so that a crash inside MPI
 * (it happens on some types with negative extents) is reported as such and
 * the other types still run. Only local datatype calls happen after fork. */
static void isolate(int idx, void (*run)(void))
{
    printf("B %d\n", idx);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* a type that hangs MPI is killed */
        run();
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        run();
        return;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("X %d %d\n", idx, WIFSIGNALED(status) ? WTERMSIG(status) : -WEXITSTATUS(status));
    fflush(stdout);
}

/* check prints size and bounds of t, and for count 1..3 the hash of the
 * packed bytes of a patterned image and of a patterned image after
 * unpacking a patterned packed stream. The image covers the range MPI's own
 * true bounds give, with 64 bytes to spare and displacement 0 included. */
static void check(int idx, MPI_Datatype t, int nld, const long *ldp, const long *ldd, const long *span)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    printf("T %d %d %ld %ld %ld %ld\n", idx, size, (long)lb, (long)extent, (long)tlb, (long)textent);
    for (int count = 1; count <= 3; count++) {
        MPI_Aint lo = 0, hi = 0, shift = (MPI_Aint)(count - 1) * extent;
        if (size > 0) {
            lo = tlb + (shift < 0 ? shift : 0);
            hi = tlb + textent + (shift > 0 ? shift : 0);
        }
        if (lo > 0) lo = 0;
        if (hi < 0) hi = 0;
        /* also cover the bytes ddt says the type touches, so that a
         * disagreement cannot corrupt memory */
        if (lo > span[2 * count - 2]) lo = span[2 * count - 2];
        if (hi < span[2 * count - 1]) hi = span[2 * count - 1];
        lo -= 64;
        hi += 64;
        if (hi - lo > ((MPI_Aint)64 << 20)) {
            printf("S %d %d\n", idx, count);
            continue;
        }
        size_t n = (size_t)(hi - lo);
        unsigned char *img = malloc(n);
        size_t psize = (size_t)size * (size_t)count;
        unsigned char *packed = malloc(psize + 1);
        if (!img || !packed) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        unsigned char *origin = img - lo;
        for (size_t i = 0; i < n; i++)
            img[i] = pattern(lo + (int64_t)i, 1);
        int pos = 0;
        MPI_Pack(origin, count, t, packed, (int)psize, &pos, MPI_COMM_SELF);
        for (int i = 0; i < count; i++)
            for (int k = 0; k < nld; k++)
                for (int b = 10; b < 16; b++)
                    packed[(size_t)i * size + ldp[k] + b] = 0;
        printf("P %d %d %d %016llx\n", idx, count, pos, (unsigned long long)fnv64a(packed, (size_t)pos));
        if (count > 1) {
            /* the same instances one at a time, shifted by MPI's extent */
            unsigned char *one = malloc(psize + 1);
            if (!one) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
            int opos = 0;
            for (int i = 0; i < count; i++)
                MPI_Pack(origin + (MPI_Aint)i * extent, 1, t, one, (int)psize, &opos, MPI_COMM_SELF);
            for (int i = 0; i < count; i++)
                for (int k = 0; k < nld; k++)
                    for (int b = 10; b < 16; b++)
                        one[(size_t)i * size + ldp[k] + b] = 0;
            printf("I %d %d %d %016llx\n", idx, count, opos, (unsigned long long)fnv64a(one, (size_t)opos));
            free(one);
        }
        for (size_t i = 0; i < psize; i++)
            packed[i] = pattern((int64_t)i, 2);
        for (size_t i = 0; i < n; i++)
            img[i] = pattern(lo + (int64_t)i, 3);
        pos = 0;
        MPI_Unpack(packed, (int)psize, &pos, origin, count, t, MPI_COMM_SELF);
        for (int i = 0; i < count; i++)
            for (int k = 0; k < nld; k++)
                for (int b = 10; b < 16; b++) {
                    MPI_Aint x = ldd[k] + i * extent + b - lo;
                    if (x >= 0 && x < (MPI_Aint)n)
                        img[x] = 0;
                }
        printf("U %d %d %ld %ld %016llx\n", idx, count, (long)lo, (long)hi, (unsigned long long)fnv64a(img, n));
        if (count > 1) {
            for (size_t i = 0; i < n; i++)
                img[i] = pattern(lo + (int64_t)i, 3);
            pos = 0;
            for (int i = 0; i < count; i++)
                MPI_Unpack(packed, (int)psize, &pos, origin + (MPI_Aint)i * extent, 1, t, MPI_COMM_SELF);
            for (int i = 0; i < count; i++)
                for (int k = 0; k < nld; k++)
                    for (int b = 10; b < 16; b++) {
                        MPI_Aint x = ldd[k] + i * extent + b - lo;
                        if (x >= 0 && x < (MPI_Aint)n)
                            img[x] = 0;
                    }
            printf("J %d %d %016llx\n", idx, count, (unsigned long long)fnv64a(img, n));
        }
        free(img);
        free(packed);
    }
}

`
