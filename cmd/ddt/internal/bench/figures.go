package bench

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// Figures are the seed 003 figures `ddt bench --fig N` reproduces.
var Figures = []int{14, 15, 16, 17}

// FigOptions configure Figure.
type FigOptions struct {
	// Filter keeps the suite's layouts whose name starts with one of its
	// comma-separated prefixes (figures 15-17; each has a default).
	Filter string
	// Sizes keeps the layouts of these comma-separated sizes (S, M, L;
	// default S,M).
	Sizes string
	// Sample and Rounds as in Options (defaults 5 ms and 5).
	Sample time.Duration
	Rounds int
	// MaxMem as in Options.
	MaxMem int64
}

// Figure measures one of seed 003's Figs. 14-17 on this machine and writes
// it to w as a table: 14 unpack with displacement sorting on and off, 15
// the engine and optimisation levels (run time and setup time against
// level O0), 16 native code on aligned and unaligned buffers, 17 the
// reuses of a type that pay back compiling its native code. Times are
// medians of interleaved rounds; on a shared machine only their ratios
// mean something.
func Figure(w io.Writer, fig int, o FigOptions) error {
	if o.Sample <= 0 {
		o.Sample = 5 * time.Millisecond
	}
	if o.Rounds <= 0 {
		o.Rounds = 5
	}
	if o.MaxMem <= 0 {
		o.MaxMem = DefaultMaxMem
	}
	if o.Sizes == "" {
		o.Sizes = "S,M"
	}
	m := ThisMachine()
	fmt.Fprintf(w, "# ddt bench --fig %d: %s, %d logical CPUs, %s/%s, %s\n", fig, m.CPU, m.CPUs, m.OS, m.Arch, m.Go)
	fmt.Fprintf(w, "# median of %d rounds of >= %v per cell; the machine may be shared: read ratios, not times\n", o.Rounds, o.Sample)
	switch fig {
	case 14:
		return fig14(w, o)
	case 15, 16, 17:
		if (fig == 16 || fig == 17) && !jit.Available() {
			return fmt.Errorf("figure %d needs native code, which this platform or DDT_NOJIT=1 turns off", fig)
		}
		def := map[int]string{15: "ddtbench/FFT2D,ddtbench/MILC,ddtbench/NAS_MG,ddtbench/LAMMPS,mpipack/L5a,mpipack/L7",
			16: "ddtbench,mpipack", 17: "ddtbench"}[fig]
		filter := o.Filter
		if filter == "" {
			filter = def
		}
		ls, err := selected(filter)
		if err != nil {
			return err
		}
		ls = slices.DeleteFunc(ls, func(l layout) bool { return !hasSize(o.Sizes, l.size) })
		if len(ls) == 0 {
			return fmt.Errorf("no layout of sizes %s matches %q", o.Sizes, filter)
		}
		switch fig {
		case 15:
			return fig15(w, ls, o)
		case 16:
			return fig16(w, ls, o)
		}
		return fig17(w, ls, o)
	}
	return fmt.Errorf("no figure %d (the figures are 14, 15, 16 and 17)", fig)
}

func hasSize(sizes, s string) bool {
	for _, x := range strings.Split(sizes, ",") {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

// times runs fns in interleaved rounds and returns each one's median
// seconds per call.
func times(o FigOptions, fns ...func()) []float64 {
	st := benchRounds(fns, o.Rounds, o.Sample.Seconds())
	out := make([]float64, len(st))
	for i, s := range st {
		out[i] = s.med
	}
	return out
}

// ratioRounds calibrates fns, then takes o.Rounds rounds of each in turn
// and returns the median seconds per call of each and, for k > 0, the
// median over the rounds of fns[0]'s time over fns[k]'s in that round
// (rounds disturbed alike cancel out).
func ratioRounds(o FigOptions, fns ...func()) (ts, rs []float64) {
	its := make([]int, len(fns))
	for k, fn := range fns {
		its[k] = calibrate(fn, o.Sample.Seconds())
	}
	per := make([][]float64, len(fns))
	ratios := make([][]float64, len(fns))
	for range o.Rounds {
		row := make([]float64, len(fns))
		for k, fn := range fns {
			row[k] = runIters(fn, its[k]) / float64(its[k])
			per[k] = append(per[k], row[k])
		}
		for k := 1; k < len(fns); k++ {
			ratios[k] = append(ratios[k], row[0]/row[k])
		}
	}
	ts, rs = make([]float64, len(fns)), make([]float64, len(fns))
	for k := range fns {
		ts[k] = median(per[k])
		if k > 0 {
			rs[k] = median(ratios[k])
		}
	}
	return ts, rs
}

// sortCase is a row of figure 14: n blocks of L bytes in a random order,
// gap bytes apart.
type sortCase struct {
	n      int
	L, gap int64
}

func (c sortCase) typ() (*datatype.Type, error) {
	r := rand.New(rand.NewPCG(14, uint64(c.n)))
	ds := make([]int64, c.n)
	for i, p := range r.Perm(c.n) {
		ds[i] = int64(p) * c.gap
	}
	return datatype.HIndexedBlock(c.L, ds, datatype.Of(datatype.Byte))
}

// sortOff never sorts; sortAll sorts every list it may.
var (
	sortOff = dame.SortRule{MinBlocks: math.MaxInt}
	sortAll = dame.SortRule{MinBlocks: 2, MaxPacked: math.MaxInt64, MinAvgBlock: 1}
)

// fig14 unpacks random-order lists with the compiled engine's plan sorted
// and in list order (seed 003 Fig. 14), beside the native code (which
// keeps list order) and the default rule's verdict.
func fig14(w io.Writer, o FigOptions) error {
	var cases []sortCase
	for _, L := range []int64{4, 8, 64, 512} {
		for _, density := range []int64{1, 4, 32} {
			for _, span := range []int64{128 << 10, 1 << 20, 4 << 20, 32 << 20} {
				gap := L * density
				n := span / gap
				if n < 64 || n > 1<<20 || (L == 512 && span == 4<<20) || (L < 512 && gap > 256) || (L == 4 && (density == 32 || span > 4<<20)) {
					continue
				}
				cases = append(cases, sortCase{int(n), L, gap})
			}
		}
	}
	fmt.Fprintln(w, "# unpack of one instance of a random-order hindexed_block list of bytes; list = compiled engine in list order,")
	fmt.Fprintln(w, "# sorted = compiled engine in displacement order, native = generated code (list order); ratios: median of per-round ratios")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "blocks\tbytes\tgap\tspan\tpacked\tlist µs\tsorted µs\tlist/sorted\tnative µs\tnative/sorted\trule sorts\t")
	for _, c := range cases {
		t, err := c.typ()
		if err != nil {
			return err
		}
		p := opt.Compile(t)
		lo, hi, err := t.Span(1)
		if err != nil {
			return err
		}
		if hi-lo+t.Size() > o.MaxMem {
			continue
		}
		mem := make([]byte, hi-lo)
		pk := make([]byte, t.Size())
		fillDense(pk)
		build := func(r dame.SortRule) engine.Engine {
			old := engine.SetSortRule(r)
			defer engine.SetSortRule(old)
			e := engine.NewCompiled(p, engine.DefaultLevel())
			e.Unpack(mem, pk, -lo, 1, 0) // builds the plan under r
			return e
		}
		list, sorted := build(sortOff), build(sortAll)
		fns := []func(){
			func() { sorted.Unpack(mem, pk, -lo, 1, 0) },
			func() { list.Unpack(mem, pk, -lo, 1, 0) },
		}
		if jit.Available() {
			// native code over a list-order fallback (Select would keep the
			// compiled engine where the default rule sorts)
			old := engine.SetSortRule(sortOff)
			nat := jit.New(p, engine.NewCompiled(p, engine.DefaultLevel()), jit.Options{Now: true})
			nat.Unpack(mem, pk, -lo, 1, 0)
			engine.SetSortRule(old)
			if nat.Code() != nil {
				fns = append(fns, func() { nat.Unpack(mem, pk, -lo, 1, 0) })
			}
		}
		ts, rs := ratioRounds(o, fns...)
		nat, natr := "-", "-"
		if len(ts) > 2 {
			nat, natr = fmt.Sprintf("%.1f", ts[2]*1e6), fmt.Sprintf("%.2f", 1/rs[2])
		}
		fires := dame.DefaultSortRule.UnpackOrder(p.Root) != nil
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%.1f\t%.1f\t%.2f\t%s\t%s\t%v\t\n", c.n, c.L, c.gap, sizeStr(hi-lo), sizeStr(t.Size()),
			ts[1]*1e6, ts[0]*1e6, 1/rs[1], nat, natr, fires)
	}
	return tw.Flush()
}

// image is one layout's source image and packed buffer, each offset by
// skew bytes from a 64-byte boundary.
type image struct {
	src, pk []byte
	free    func()
}

func newImage(l layout, t *datatype.Type, maxMem int64, skew int) (*image, string, error) {
	packed, err := t.PackSize(l.count)
	if err != nil {
		return nil, "", err
	}
	if l.sparse && !sparseRegions {
		return nil, "its sparse image needs mmap", nil
	}
	if memNeed(l, t, packed) > maxMem {
		return nil, "over --mem", nil
	}
	src, f1, err := region(l.alloc+64, l.sparse)
	if err != nil {
		return nil, "", err
	}
	pk, f2, err := region(packed+64, false)
	if err != nil {
		f1()
		return nil, "", err
	}
	src, pk = src[skew:skew+int(l.alloc)], pk[skew:skew+int(packed)]
	if l.fill != nil {
		l.fill(src)
	} else {
		fillDense(src)
	}
	return &image{src, pk, func() { f1(); f2() }}, "", nil
}

// fig15 measures pack + unpack and setup (commit and plan, or native code)
// at four levels (seed 003 Fig. 15): O0 the interpreter on the program as
// written, O1 the compiled engine with Go kernels, O2 the compiled engine
// with the CPU's kernels on the normalized program, O3 native code.
func fig15(w io.Writer, ls []layout, o FigOptions) error {
	levels := []struct {
		name string
		opts ddt.Options
	}{
		{"O0", ddt.Options{Engine: ddt.Interpreter, Normalize: ddt.NormalizeNever}},
		{"O1", ddt.Options{Engine: ddt.Compiled, Normalize: ddt.NormalizeNever, Kernels: "go"}},
		{"O2", ddt.Options{Engine: ddt.Compiled}},
		{"O3", ddt.Options{Engine: ddt.Native}},
	}
	fmt.Fprintln(w, "# O0 interpreter, program as written; O1 compiled engine, Go kernels; O2 compiled, CPU kernels, normalized; O3 native code")
	fmt.Fprintln(w, "# speedup = O0 time / level time (pack + unpack); setup = commit + plan (+ code), × that of O0")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layout\tsize\tO0 µs\tO1 speedup\tO2 speedup\tO3 speedup\tO0 setup µs\tO1 setup\tO2 setup\tO3 setup\t")
	for _, l := range ls {
		t := l.typ()
		im, skip, err := newImage(l, t, o.MaxMem, 0)
		if err != nil {
			return err
		}
		if skip != "" {
			continue
		}
		var fns []func()
		var setups []float64
		for _, lv := range levels {
			var ss []float64
			var c *ddt.Committed
			for range 7 {
				t0 := time.Now()
				if c, err = ddt.CommitWith(t, lv.opts); err != nil {
					im.free()
					return err
				}
				_ = c.Plan()
				ss = append(ss, time.Since(t0).Seconds())
			}
			setups = append(setups, median(ss))
			fns = append(fns, func() {
				c.Pack(im.pk, im.src, l.origin, l.count)
				c.Unpack(im.src, im.pk, l.origin, l.count)
			})
		}
		ts := times(o, fns...)
		im.free()
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t%.2f\t%.2f\t\n", l.name, l.size, ts[0]*1e6,
			ts[0]/ts[1], ts[0]/ts[2], ts[0]/ts[3], setups[0]*1e6, setups[1]/setups[0], setups[2]/setups[0], setups[3]/setups[0])
	}
	return tw.Flush()
}

// fig16 packs and unpacks with native code on buffers at a 64-byte
// boundary and one byte past it (seed 003 Fig. 16). The generator emits
// unaligned vector moves only (as MOVUPS); what differs is the data.
func fig16(w io.Writer, ls []layout, o FigOptions) error {
	fmt.Fprintln(w, "# native code; aligned = image and packed buffer at 64-byte boundaries, unaligned = both 1 byte past")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layout\tsize\tpack µs\tunaligned/aligned\tunpack µs\tunaligned/aligned\t")
	var geo [2]float64
	n := 0
	for _, l := range ls {
		t := l.typ()
		c, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Native})
		if err != nil {
			return err
		}
		var ims [2]*image
		for k, skew := range []int{0, 1} {
			im, skip, err := newImage(l, t, o.MaxMem, skew)
			if err != nil {
				return err
			}
			if skip != "" {
				break
			}
			ims[k] = im
		}
		if ims[0] == nil || ims[1] == nil {
			for _, im := range ims {
				if im != nil {
					im.free()
				}
			}
			continue
		}
		a, u := ims[0], ims[1]
		ts := times(o,
			func() { c.Pack(a.pk, a.src, l.origin, l.count) },
			func() { c.Pack(u.pk, u.src, l.origin, l.count) },
			func() { c.Unpack(a.src, a.pk, l.origin, l.count) },
			func() { c.Unpack(u.src, u.pk, l.origin, l.count) })
		a.free()
		u.free()
		geo[0] += math.Log(ts[1] / ts[0])
		geo[1] += math.Log(ts[3] / ts[2])
		n++
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t\n", l.name, l.size, ts[0]*1e6, ts[1]/ts[0], ts[2]*1e6, ts[3]/ts[2])
	}
	if n > 0 {
		fmt.Fprintf(tw, "geometric mean\t\t\t%.2f\t\t%.2f\t\n", math.Exp(geo[0]/float64(n)), math.Exp(geo[1]/float64(n)))
	}
	return tw.Flush()
}

// fig17 measures, per layout, the time to generate native code, the time
// a pack and an unpack save with it over the compiled engine, and the
// reuses (pack + unpack pairs) that pay the compile back (seed 003
// Fig. 17), beside the call at which the tiered engine compiles.
func fig17(w io.Writer, ls []layout, o FigOptions) error {
	fmt.Fprintln(w, "# compile = generate and map the code (no cache), median of 7; gain = compiled engine time - native time per pack + unpack")
	fmt.Fprintln(w, "# reuses = compile / gain (pack + unpack pairs that pay the compile back); tiered = the call at which auto compiles")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layout\tsize\tpacked\tnodes\tcompile µs\tcompiled µs\tnative µs\tgain µs\treuses\ttiered\t")
	var hist [6]int // ≤1, ≤10, ≤100, ≤1000, more, never
	for _, l := range ls {
		t := l.typ()
		comp, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Compiled})
		if err != nil {
			return err
		}
		p := comp.Program()
		var cs []float64
		for range 7 {
			d, _, err := jit.Measure(p)
			if err != nil {
				break
			}
			cs = append(cs, d.Seconds())
		}
		if len(cs) == 0 {
			continue // not compiled (unsupported program)
		}
		nat, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Native})
		if err != nil {
			return err
		}
		im, skip, err := newImage(l, t, o.MaxMem, 0)
		if err != nil {
			return err
		}
		if skip != "" {
			continue
		}
		ts := times(o,
			func() {
				comp.Pack(im.pk, im.src, l.origin, l.count)
				comp.Unpack(im.src, im.pk, l.origin, l.count)
			},
			func() {
				nat.Pack(im.pk, im.src, l.origin, l.count)
				nat.Unpack(im.src, im.pk, l.origin, l.count)
			})
		im.free()
		cm := median(cs)
		gain := ts[0] - ts[1]
		reuses, b := "never", 5
		if gain > 0 {
			r := cm / gain
			reuses = fmt.Sprintf("%.0f", math.Ceil(r))
			b = min(4, max(0, int(math.Ceil(math.Log10(max(r, 1))))))
		}
		hist[b]++
		packed := int64(len(im.pk))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t%d\t\n", l.name, l.size, sizeStr(packed), programSize(p),
			cm*1e6, ts[0]*1e6, ts[1]*1e6, gain*1e6, reuses, jit.TieredCalls(p, packed))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "# histogram of reuses: <=1 %d, 2-10 %d, 11-100 %d, 101-1000 %d, >1000 %d, never %d\n",
		hist[0], hist[1], hist[2], hist[3], hist[4], hist[5])
	return nil
}

// programSize is the nodes and list entries of p (each shared node once).
func programSize(p *dame.Program) int { return jit.ProgramSize(p) }
