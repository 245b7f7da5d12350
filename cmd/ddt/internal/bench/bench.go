// Package bench is the benchmark suite of ddt: the DDTBench layouts, the
// seeds' examples and the eight layouts of the mpipack C harness, packed and
// unpacked by every engine and compared with a hand-written Go loop and with
// a plain copy of the same number of bytes.
//
// Run prints the suite as a table streamed row by row (or JSON); List
// lists its layouts; RunMPIPack prints the R lines
// of ../shared/anchors/mpipack/mpipack.c so that ddt joins that harness's
// table beside MPICH, Open MPI and hand-written C.
package bench

import (
	"encoding/json"
	"fmt"
	"github.com/ddtlab/ddt/internal/ddtbench"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// Options configure Run.
type Options struct {
	// JSON writes one JSON object (machine, settings, rows) at the end
	// instead of the table streamed row by row.
	JSON bool
	// Type, when not nil, benchmarks only Count instances of this type (the
	// layout "type"), from a patterned image.
	Type  *datatype.Type
	Count int64
	// Engines to measure; all (reference, interpreter, compiled, auto) when
	// empty. Auto is committed with JITNow: native code (internal/engine/jit)
	// where it applies.
	Engines []ddt.Engine
	// Threads is ddt.Options.Threads of every commit measured (0: ddt's
	// automatic choice, 1: one goroutine per message).
	Threads int
	// Sample is the minimum duration of one timed sample of a cell
	// (default 10 ms); Rounds the number of samples of each cell (default
	// 5), taken in turn across the cells of a row. The table shows the
	// median round, the JSON the median and the best.
	Sample time.Duration
	Rounds int
	// Filter keeps only layouts whose name starts with one of its
	// comma-separated prefixes; a filter that keeps nothing is an error.
	Filter string
	// MaxMem bounds the memory of one layout's buffers (the image, the
	// packed buffer and the copy's target; default DefaultMaxMem). The
	// suite skips the layouts above it, saying so on Log; a Type above it
	// is an error.
	MaxMem int64
	// Progress, when not nil, receives a progress line (rewritten with
	// \r, for terminals) while a row is measured.
	Progress io.Writer
	// Log, when not nil, receives notes (the skipped layouts).
	Log io.Writer
}

// DefaultMaxMem is the default bound of Options.MaxMem: with it the whole
// suite stays under 512 MB of memory.
const DefaultMaxMem = 448 << 20

// Row is one measured layout. Throughputs are MB/s (1e6 bytes) of packed
// data; 0 means not measured. The plain fields are the median round, the
// Best ones the fastest round.
type Row struct {
	Layout     string             `json:"layout"`
	Size       string             `json:"size"`
	Packed     int64              `json:"packed_bytes"`
	CommitUS   float64            `json:"commit_us"`
	Pack       map[string]float64 `json:"pack_mbs"`
	Unpack     map[string]float64 `json:"unpack_mbs"`
	Copy       float64            `json:"copy_mbs"`
	PackBest   map[string]float64 `json:"pack_best_mbs"`
	UnpackBest map[string]float64 `json:"unpack_best_mbs"`
	CopyBest   float64            `json:"copy_best_mbs"`
}

// Skipped is a layout the run left out, and why.
type Skipped struct {
	Layout string `json:"layout"`
	Size   string `json:"size"`
	Reason string `json:"reason"`
}

// Report is what Run writes as JSON.
type Report struct {
	Machine  Machine   `json:"machine"`
	Rounds   int       `json:"rounds"`
	SampleMS float64   `json:"sample_ms"`
	Engines  []string  `json:"engines"`
	Rows     []Row     `json:"rows"`
	Skipped  []Skipped `json:"skipped,omitempty"`
}

// layout is one benchmark case: count instances of typ in a src image of
// alloc bytes with instance 0 at origin, and optional hand-written loops.
type layout struct {
	name, size, desc string
	typ              func() *datatype.Type
	count, origin    int64
	alloc            int64
	sparse           bool
	fill             func([]byte)
	manPack          func(src, dst []byte)
	manUnpack        func(src, dst []byte)
}

func suite() ([]layout, error) {
	var ls []layout
	for _, d := range mpCases {
		if d.size == "X" {
			continue
		}
		c := resolve(d)
		l := layout{name: "mpipack/" + c.id, desc: c.desc + ", " + c.param, size: c.size, typ: c.makeType, count: c.count,
			alloc: c.alloc, sparse: c.sparse, manPack: c.manualPack, manUnpack: c.manualUnpack}
		if c.sparse {
			n := c.a
			l.fill = func(b []byte) {
				for j := range n {
					fillIntAt(b, j*4)
				}
				for k := int64(1); k < n; k++ {
					fillIntAt(b, k*n*4)
				}
			}
		}
		ls = append(ls, l)
	}
	// seed 003 Fig. 2: transpose of an R x C int matrix by a blockindexed of columns
	for _, sz := range []struct {
		s string
		n int64
	}{{"S", 16}, {"M", 512}, {"L", 2048}} {
		n := sz.n
		ls = append(ls, layout{name: "seed003/transpose", size: sz.s, count: 1, alloc: n * n * 4,
			desc: fmt.Sprintf("transpose of a %dx%d int matrix, hindexed_block(hvector) (DAME paper, Fig. 2)", n, n),
			typ: func() *datatype.Type {
				col := must(datatype.HVector(n, 1, n*4, datatype.Of(datatype.Int)))
				ds := make([]int64, n)
				for i := range ds {
					ds[i] = int64(i) * 4
				}
				return must(datatype.HIndexedBlock(1, ds, col))
			},
			manPack: func(s, d []byte) {
				for c := range n {
					for r := range n {
						le.PutUint32(d[(c*n+r)*4:], le.Uint32(s[(r*n+c)*4:]))
					}
				}
			},
			manUnpack: func(p, d []byte) {
				for c := range n {
					for r := range n {
						le.PutUint32(d[(r*n+c)*4:], le.Uint32(p[(c*n+r)*4:]))
					}
				}
			}})
	}
	ops, err := ddtbench.Load()
	if err != nil {
		return nil, err
	}
	sizes := map[string]string{"small": "S", "medium": "M", "large": "L"}
	for _, o := range ops {
		if o.Op != "send" {
			continue
		}
		o := o
		mp, mu := o.Manual()
		ls = append(ls, layout{name: "ddtbench/" + o.Case, size: sizes[o.Config], typ: func() *datatype.Type { return o.Type },
			desc:  fmt.Sprintf("DDTBench %s, %s configuration, %d instance(s)", o.Case, o.Config, o.Count),
			count: o.Count, origin: o.Base, alloc: o.ArenaBytes, fill: o.Fill, manPack: mp, manUnpack: mu})
	}
	return ls, nil
}

// List writes the layouts of the suite whose name matches filter (all when
// it is empty), one per line: name, size, packed bytes, image bytes and a
// description. A filter that matches nothing is an error.
func List(w io.Writer, filter string) error {
	ls, err := selected(filter)
	if err != nil {
		return err
	}
	width := nameWidth(ls)
	fmt.Fprintf(w, "%-*s %-4s %10s %12s  %s\n", width, "layout", "size", "packed B", "image B", "description")
	for _, l := range ls {
		packed, err := l.typ().PackSize(l.count)
		if err != nil {
			return fmt.Errorf("%s %s: %w", l.name, l.size, err)
		}
		fmt.Fprintf(w, "%-*s %-4s %10d %12d  %s\n", width, l.name, l.size, packed, l.alloc, l.desc)
	}
	return nil
}

// selected returns the layouts of the suite that match filter.
func selected(filter string) ([]layout, error) {
	all, err := suite()
	if err != nil {
		return nil, err
	}
	var ls []layout
	for _, l := range all {
		// a prefix of the name, or of the name without its family
		// ("WRF" for ddtbench/WRF_x_vec, "L7" for mpipack/L7)
		short := l.name[strings.IndexByte(l.name, '/')+1:]
		if matches(l.name, filter) || matches(short, filter) {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("no layout matches --filter %q (ddt bench --list shows the layouts)", filter)
	}
	return ls, nil
}

func nameWidth(ls []layout) int {
	w := len("layout")
	for _, l := range ls {
		w = max(w, len(l.name))
	}
	return w
}

// memNeed is the memory a layout's run uses: the image (for a sparse
// image, the pages its blocks touch), the packed buffer and the copy's
// target.
func memNeed(l layout, t *datatype.Type, packed int64) int64 {
	img := l.alloc
	if l.sparse {
		const page = 4096
		img = min(img, t.NumBlocks(l.count)*page+packed)
	}
	return img + 2*packed
}

// Run runs the suite (or the one layout of opts.Type) and writes the table,
// one row as each layout finishes, or the JSON report, to w.
func Run(w io.Writer, opts Options) error {
	engines := opts.Engines
	if len(engines) == 0 {
		engines = []ddt.Engine{ddt.Reference, ddt.Interpreter, ddt.Compiled, ddt.Auto}
	}
	sample := opts.Sample
	if sample <= 0 {
		sample = 10 * time.Millisecond
	}
	rounds := opts.Rounds
	if rounds <= 0 {
		rounds = 5
	}
	maxMem := opts.MaxMem
	if maxMem <= 0 {
		maxMem = DefaultMaxMem
	}
	var ls []layout
	if opts.Type != nil {
		t := opts.Type
		count := max(opts.Count, 1)
		lo, hi, err := t.Span(count)
		if err != nil {
			return err
		}
		packed, err := t.PackSize(count)
		if err != nil {
			return err
		}
		l := layout{name: "type", size: "-", typ: func() *datatype.Type { return t }, count: count, origin: -lo}
		if hi-lo < 0 || hi-lo > maxMem || packed > maxMem || memNeed(l, t, packed)+hi-lo > maxMem {
			return fmt.Errorf("%d instance(s) of the type need a memory image of %d bytes and %d packed bytes, over the limit of %d MiB (--mem)",
				count, hi-lo, packed, maxMem>>20)
		}
		l.alloc = hi - lo
		ls = []layout{l}
	} else {
		var err error
		if ls, err = selected(opts.Filter); err != nil {
			return err
		}
	}
	rep := Report{Machine: ThisMachine(), Rounds: rounds, SampleMS: sample.Seconds() * 1e3}
	for _, e := range engines {
		rep.Engines = append(rep.Engines, e.String())
	}
	var tab *table
	if !opts.JSON {
		tab = &table{w: w, engines: engines, name: nameWidth(ls)}
		tab.header(rep)
	}
	start := time.Now()
	for i, l := range ls {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "\r\033[K[%d/%d %.0fs] %s %s", i+1, len(ls), time.Since(start).Seconds(), l.name, l.size)
		}
		r, skip, err := measure(l, engines, sample.Seconds(), rounds, maxMem, opts.Threads)
		if opts.Progress != nil {
			fmt.Fprint(opts.Progress, "\r\033[K")
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", l.name, l.size, err)
		}
		if skip != "" {
			rep.Skipped = append(rep.Skipped, Skipped{l.name, l.size, skip})
			if opts.Log != nil && tab == nil {
				fmt.Fprintf(opts.Log, "ddt bench: skipped %s %s: %s\n", l.name, l.size, skip)
			}
			if tab != nil {
				tab.skipped(l, skip)
			}
			continue
		}
		rep.Rows = append(rep.Rows, r)
		if tab != nil {
			tab.row(r)
		}
	}
	if tab != nil {
		return tab.footer()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// table writes the text table, one row at a time, in about 110 columns.
type table struct {
	w       io.Writer
	engines []ddt.Engine
	name    int
	err     error
}

var shortEngine = map[string]string{"reference": "ref", "interpreter": "intp", "compiled": "comp", "auto": "auto"}

const cell = 6 // width of a GB/s cell

func (t *table) printf(format string, a ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, a...)
	}
}

func (t *table) header(r Report) {
	m := r.Machine
	t.printf("# ddt bench: %s, %d logical CPUs, %s/%s, %s\n", m.CPU, m.CPUs, m.OS, m.Arch, m.Go)
	t.printf("# kernels: %s (CPU supports %s); native code (JIT): %s\n", m.Kernels, m.CPUKernels, onOff(m.JIT))
	t.printf("# GB/s of packed bytes (1e9 B/s), median of %d rounds of >= %.3g ms per cell; loop = hand-written Go loop\n",
		r.Rounds, r.SampleMS)
	group := (len(t.engines) + 1) * cell
	t.printf("%-*s %4s %6s %7s |%*s |%*s |%*s\n", t.name, "", "", "packed", "commit", group, center("pack GB/s", group),
		group, center("unpack GB/s", group), cell, "copy")
	t.printf("%-*s %4s %6s %7s |", t.name, "layout", "size", "bytes", "µs")
	for range 2 {
		for _, e := range t.engines {
			t.printf("%*s", cell, shortEngine[e.String()])
		}
		t.printf("%*s |", cell, "loop")
	}
	t.printf("%*s\n", cell, "GB/s")
}

func center(s string, w int) string {
	pad := max(w-len(s), 0)
	return strings.Repeat(" ", pad-pad/2) + s + strings.Repeat(" ", pad/2)
}

func (t *table) row(r Row) {
	t.printf("%-*s %4s %6s %7s |", t.name, r.Layout, r.Size, sizeStr(r.Packed), usStr(r.CommitUS))
	for _, m := range []map[string]float64{r.Pack, r.Unpack} {
		for _, e := range t.engines {
			t.printf("%*s", cell, gbs(m[e.String()]))
		}
		t.printf("%*s |", cell, gbs(m["manual"]))
	}
	t.printf("%*s\n", cell, gbs(r.Copy))
}

func (t *table) skipped(l layout, why string) {
	t.printf("%-*s %4s  (skipped: %s)\n", t.name, l.name, l.size, why)
}

func (t *table) footer() error {
	t.printf("(commit µs: median Commit with the compiled engine, without create and free;\n")
	t.printf(" --json has every figure, the median and the best round)\n")
	return t.err
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// gbs formats MB/s as GB/s in at most 5 characters.
func gbs(mbs float64) string {
	v := mbs / 1e3
	switch {
	case mbs == 0:
		return "-"
	case v >= 99.95:
		return fmt.Sprintf("%.0f", v)
	case v >= 9.995:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.9995:
		return fmt.Sprintf("%.2f", v)
	case v >= 0.001:
		return fmt.Sprintf("%.3f", v)[1:]
	}
	return "<.001"
}

// sizeStr formats a byte count in at most 6 characters.
func sizeStr(n int64) string {
	switch {
	case n < 100000:
		return fmt.Sprintf("%d", n)
	case n < 1e6:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.3gM", float64(n)/1e6)
	case n < 1e12:
		return fmt.Sprintf("%.3gG", float64(n)/1e9)
	}
	return fmt.Sprintf("%.2gT", float64(n)/1e12)
}

func usStr(us float64) string {
	switch {
	case us < 10:
		return fmt.Sprintf("%.2f", us)
	case us < 1000:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}

// measure runs one layout; skip, when not empty, says why it was not run.
func measure(l layout, engines []ddt.Engine, sample float64, rounds int, maxMem int64, threads int) (r Row, skip string, err error) {
	t := l.typ()
	packed, err := t.PackSize(l.count)
	if err != nil {
		return Row{}, "", err
	}
	if l.sparse && !sparseRegions {
		return Row{}, "its sparse image needs mmap (Linux or macOS)", nil
	}
	if need := memNeed(l, t, packed); need > maxMem {
		return Row{}, fmt.Sprintf("needs %d MiB of memory, over --mem %d", (need+1<<20-1)>>20, maxMem>>20), nil
	}
	// One image: unpacking writes back the bytes packing read from it.
	src, freeSrc, err := region(l.alloc, l.sparse)
	if err != nil {
		return Row{}, "", err
	}
	defer freeSrc()
	if l.fill != nil {
		l.fill(src)
	} else {
		fillDense(src)
	}
	r = Row{Layout: l.name, Size: l.size, Packed: packed, Pack: map[string]float64{}, Unpack: map[string]float64{},
		PackBest: map[string]float64{}, UnpackBest: map[string]float64{}}
	mb := func(s float64) float64 { return float64(packed) / s / 1e6 }
	pk, freePk, err := region(packed, false)
	if err != nil {
		return Row{}, "", err
	}
	defer freePk()
	// commit time of the compiled engine: median of repeated commits
	var cts []float64
	for range 15 {
		t0 := time.Now()
		if _, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Compiled}); err != nil {
			return r, "", err
		}
		cts = append(cts, time.Since(t0).Seconds())
	}
	r.CommitUS = median(cts) * 1e6
	var fns []func()
	var names []string
	for _, e := range engines {
		c, err := ddt.CommitWith(t, ddt.Options{Engine: e, JITNow: true, Threads: threads})
		if err != nil {
			return r, "", err
		}
		if _, err := c.Pack(pk, src, l.origin, l.count); err != nil {
			return r, "", err
		}
		fns = append(fns, func() { c.Pack(pk, src, l.origin, l.count) }, func() { c.Unpack(src, pk, l.origin, l.count) })
		names = append(names, e.String(), e.String())
	}
	if l.manPack != nil {
		fns = append(fns, func() { l.manPack(src, pk) }, func() { l.manUnpack(pk, src) })
		names = append(names, "manual", "manual")
	}
	cp, freeCp, err := region(packed, false)
	if err != nil {
		return Row{}, "", err
	}
	defer freeCp()
	fns = append(fns, func() { copy(cp, pk) })
	st := benchRounds(fns, rounds, sample)
	for i := 0; i+1 < len(fns); i += 2 {
		r.Pack[names[i]], r.Unpack[names[i]] = mb(st[i].med), mb(st[i+1].med)
		r.PackBest[names[i]], r.UnpackBest[names[i]] = mb(st[i].min), mb(st[i+1].min)
	}
	last := st[len(st)-1]
	r.Copy, r.CopyBest = mb(last.med), mb(last.min)
	return r, "", nil
}

// benchRounds calibrates each op to samples of at least sample seconds,
// then takes rounds samples of each, the ops in turn in every round, and
// reports each op's median and fastest sample.
func benchRounds(fns []func(), rounds int, sample float64) []stat {
	its := make([]int, len(fns))
	for k, fn := range fns {
		its[k] = calibrate(fn, sample)
	}
	samples := make([][]float64, len(fns))
	for range rounds {
		for k, fn := range fns {
			samples[k] = append(samples[k], runIters(fn, its[k])/float64(its[k]))
		}
	}
	return summarize(samples, its)
}

// summarize sorts each op's per-iteration times and returns their median,
// minimum and maximum with the op's iteration count.
func summarize(samples [][]float64, its []int) []stat {
	out := make([]stat, len(samples))
	for k, s := range samples {
		slices.Sort(s)
		n := len(s)
		med := s[n/2]
		if n%2 == 0 {
			med = (s[n/2-1] + s[n/2]) / 2
		}
		out[k] = stat{med, s[0], s[n-1], its[k]}
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	return s[len(s)/2]
}
