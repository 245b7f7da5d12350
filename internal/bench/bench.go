// Package bench is the benchmark suite of ddt: the DDTBench layouts, the
// seeds' examples and the eight layouts of the mpipack C harness, packed and
// unpacked by every engine and compared with a hand-written Go loop and with
// a plain copy of the same number of bytes.
//
// Run prints the suite as one table (or JSON); RunMPIPack prints the R lines
// of ../shared/anchors/mpipack/mpipack.c so that ddt joins that harness's
// table beside MPICH, Open MPI and hand-written C.
package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// Options configure Run.
type Options struct {
	// JSON writes one JSON array of rows instead of the table.
	JSON bool
	// Type, when not nil, benchmarks only Count instances of this type (the
	// layout "type"), from a patterned image.
	Type  *datatype.Type
	Count int64
	// Engines to measure; all (reference, interpreter, compiled, auto) when
	// empty. Auto is committed with JITNow: native code (internal/jit)
	// where it applies.
	Engines []ddt.Engine
	// Sample is the minimum duration of one timed sample (default 1 ms).
	Sample time.Duration
	// Filter keeps only layouts whose name starts with it.
	Filter string
}

// Row is one measured layout. Throughputs are MB/s (1e6 bytes) of packed
// data; 0 means not measured.
type Row struct {
	Layout   string             `json:"layout"`
	Size     string             `json:"size"`
	Packed   int64              `json:"packed_bytes"`
	CommitUS float64            `json:"commit_us"`
	Pack     map[string]float64 `json:"pack_mbs"`
	Unpack   map[string]float64 `json:"unpack_mbs"`
	Copy     float64            `json:"copy_mbs"`
}

// layout is one benchmark case: count instances of typ in a src image of
// alloc bytes with instance 0 at origin, and optional hand-written loops.
type layout struct {
	name, size    string
	typ           func() *datatype.Type
	count, origin int64
	alloc         int64
	sparse        bool
	fill          func([]byte)
	manPack       func(src, dst []byte)
	manUnpack     func(src, dst []byte)
}

func suite() ([]layout, error) {
	var ls []layout
	for _, d := range mpCases {
		if d.size == "X" {
			continue
		}
		c := resolve(d)
		l := layout{name: "mpipack/" + c.id + " " + c.desc, size: c.size, typ: c.makeType, count: c.count,
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
		ls = append(ls, layout{name: "seed003/transpose hindexed_block(hvector)", size: sz.s, count: 1, alloc: n * n * 4,
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
	ops, err := DDTBench()
	if err != nil {
		return nil, err
	}
	sizes := map[string]string{"small": "S", "medium": "M", "large": "L"}
	for _, o := range ops {
		if o.Op != "send" {
			continue
		}
		o := o
		mp, mu := ddtManual(o)
		ls = append(ls, layout{name: "ddtbench/" + o.Case, size: sizes[o.Config], typ: func() *datatype.Type { return o.Type },
			count: o.Count, origin: o.Base, alloc: o.ArenaBytes, fill: o.Fill, manPack: mp, manUnpack: mu})
	}
	return ls, nil
}

// Run runs the suite (or the one layout of opts.Type) and writes the table,
// or JSON, to w.
func Run(w io.Writer, opts Options) error {
	engines := opts.Engines
	if len(engines) == 0 {
		engines = []ddt.Engine{ddt.Reference, ddt.Interpreter, ddt.Compiled, ddt.Auto}
	}
	sample := opts.Sample
	if sample == 0 {
		sample = time.Millisecond
	}
	var ls []layout
	if opts.Type != nil {
		t := opts.Type
		count := max(opts.Count, 1)
		lo, hi, err := t.Span(count)
		if err != nil {
			return err
		}
		ls = []layout{{name: "type", size: "-", typ: func() *datatype.Type { return t }, count: count, origin: -lo, alloc: hi - lo}}
	} else {
		var err error
		if ls, err = suite(); err != nil {
			return err
		}
	}
	var rows []Row
	var tw *tabwriter.Writer
	if !opts.JSON {
		tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "layout\tsize\tpacked B\tcommit µs\t")
		for _, e := range engines {
			fmt.Fprintf(tw, "%s pack\t%s unpack\t", e, e)
		}
		fmt.Fprint(tw, "manual pack\tmanual unpack\tcopy\t\n")
	}
	for _, l := range ls {
		if opts.Filter != "" && !matches(l.name, opts.Filter) && !matches("ddtbench/"+l.name, opts.Filter) {
			continue
		}
		r, err := measure(l, engines, sample.Seconds())
		if err != nil {
			return fmt.Errorf("%s %s: %w", l.name, l.size, err)
		}
		rows = append(rows, r)
		if tw != nil {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t", r.Layout, r.Size, r.Packed, r.CommitUS)
			for _, e := range engines {
				fmt.Fprintf(tw, "%s\t%s\t", mbs(r.Pack[e.String()]), mbs(r.Unpack[e.String()]))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", mbs(r.Pack["manual"]), mbs(r.Unpack["manual"]), mbs(r.Copy))
		}
	}
	if tw != nil {
		fmt.Fprintln(tw, "(MB/s of packed bytes; commit is create-free Commit with the compiled engine)\t")
		return tw.Flush()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

func mbs(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func measure(l layout, engines []ddt.Engine, sample float64) (Row, error) {
	t := l.typ()
	src, freeSrc, err := region(l.alloc, l.sparse)
	if err != nil {
		return Row{}, err
	}
	defer freeSrc()
	if l.fill != nil {
		l.fill(src)
	} else {
		fillDense(src)
	}
	dst, freeDst, err := region(l.alloc, l.sparse)
	if err != nil {
		return Row{}, err
	}
	defer freeDst()
	packed, err := t.PackSize(l.count)
	if err != nil {
		return Row{}, err
	}
	r := Row{Layout: l.name, Size: l.size, Packed: packed, Pack: map[string]float64{}, Unpack: map[string]float64{}}
	mb := func(s float64) float64 { return float64(packed) / s / 1e6 }
	pk := make([]byte, packed)
	// commit time of the compiled engine: median of repeated commits
	var cts []float64
	for range 15 {
		t0 := time.Now()
		if _, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Compiled}); err != nil {
			return r, err
		}
		cts = append(cts, time.Since(t0).Seconds())
	}
	r.CommitUS = median(cts) * 1e6
	var fns []func()
	var names []string
	for _, e := range engines {
		c, err := ddt.CommitWith(t, ddt.Options{Engine: e, JITNow: true})
		if err != nil {
			return r, err
		}
		if _, err := c.Pack(pk, src, l.origin, l.count); err != nil {
			return r, err
		}
		fns = append(fns, func() { c.Pack(pk, src, l.origin, l.count) }, func() { c.Unpack(dst, pk, l.origin, l.count) })
		names = append(names, e.String(), e.String())
	}
	if l.manPack != nil {
		fns = append(fns, func() { l.manPack(src, pk) }, func() { l.manUnpack(pk, dst) })
		names = append(names, "manual", "manual")
	}
	a, b := make([]byte, packed), make([]byte, packed)
	fns = append(fns, func() { copy(b, a) })
	st := benchMulti(fns, 3, sample)
	for i := 0; i+1 < len(fns); i += 2 {
		r.Pack[names[i]], r.Unpack[names[i]] = mb(st[i].med), mb(st[i+1].med)
	}
	r.Copy = mb(st[len(st)-1].med)
	return r, nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
