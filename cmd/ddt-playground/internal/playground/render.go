// Package playground is the ddt playground: a static web page on which a
// user types a .ddt type and sees its properties, type map, picture,
// normalized tree and MPI C code update as they type. The page runs the
// project's own packages (lang, datatype, optimal, sig, draw) compiled to
// WebAssembly from ./wasm; ddt serve builds that program with the local Go
// toolchain and serves it with the page (see Build and Handler).
package playground

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/draw"
	"github.com/ddtlab/ddt/lang"
	"github.com/ddtlab/ddt/optimal"
	"github.com/ddtlab/ddt/sig"
)

// Request is what the page asks for: the .ddt source and the picture's
// options.
type Request struct {
	Source string `json:"source"`
	Count  int64  `json:"count"`
	Width  int64  `json:"width"`
}

// ParseError is a .ddt error at a position (1-based line and column).
type ParseError struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"msg"`
}

// Result is everything the page shows for one request. On a parse error
// only Error is set.
type Result struct {
	Error      *ParseError `json:"error,omitempty"`
	Show       [][2]string `json:"show,omitempty"`
	Typemap    string      `json:"typemap,omitempty"`
	SVG        string      `json:"svg,omitempty"`
	Text       string      `json:"text,omitempty"`
	Normalized string      `json:"normalized,omitempty"`
	C          string      `json:"c,omitempty"`
	Canonical  string      `json:"canonical,omitempty"`
}

// MaxTypemap is the most type map lines a result holds.
const MaxTypemap = 500

// Limits of a request, so that a page stays responsive.
const (
	MaxSource = 1 << 20
	MaxCount  = 1 << 40
	MaxWidth  = 1 << 40
)

// Render computes a Result. It never panics on any input: errors in the
// source come back as Result.Error, with the position when the parser
// gives one.
func Render(req Request) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Error: &ParseError{Msg: fmt.Sprintf("internal error: %v", r)}}
		}
	}()
	if len(req.Source) > MaxSource {
		return Result{Error: &ParseError{Msg: fmt.Sprintf("source of %d bytes is larger than %d", len(req.Source), MaxSource)}}
	}
	if req.Count <= 0 {
		req.Count = 1
	}
	if req.Count > MaxCount || req.Width < 0 || req.Width > MaxWidth {
		return Result{Error: &ParseError{Msg: fmt.Sprintf("count must be in [1, %d] and width in [0, %d]", int64(MaxCount), int64(MaxWidth))}}
	}
	if strings.TrimSpace(req.Source) == "" {
		return Result{Error: &ParseError{Line: 1, Col: 1, Msg: "empty: type a .ddt expression, for example vector(3, 1, 4, int)"}}
	}
	t, err := lang.Parse("input", []byte(req.Source))
	if err != nil {
		var le *lang.Error
		if errors.As(err, &le) {
			return Result{Error: &ParseError{Line: le.Pos.Line, Col: le.Pos.Col, Msg: le.Msg}}
		}
		return Result{Error: &ParseError{Msg: err.Error()}}
	}
	res.Show = show(t)
	res.Typemap = typemap(t, req.Count)
	res.Canonical = lang.Format(t)
	if p, err := draw.Layout(t, draw.Options{Count: req.Count, Width: req.Width, Budget: 1 << 18}); err != nil {
		res.SVG = ""
		res.Text = err.Error()
	} else {
		var b strings.Builder
		p.SVG(&b, draw.SVGOptions{Title: fmt.Sprintf("count %d", req.Count)})
		res.SVG = b.String()
	}
	if p, err := draw.Layout(t, draw.Options{Count: req.Count, Width: req.Width, CellBytes: draw.Granule(t), MaxCols: 96, MaxRows: 64, Budget: 1 << 18}); err == nil {
		var b strings.Builder
		p.Text(&b, "")
		res.Text = b.String()
	}
	res.Normalized = normalized(t)
	if c, err := lang.ExportC(t, "newtype"); err != nil {
		res.C = "/* " + err.Error() + " */"
	} else {
		res.C = c
	}
	return res
}

func show(t *datatype.Type) [][2]string {
	kv := func(k string, v any) [2]string { return [2]string{k, fmt.Sprint(v)} }
	return [][2]string{
		kv("size", t.Size()), kv("extent", t.Extent()), kv("lb", t.LB()), kv("ub", t.UB()),
		kv("true_lb", t.TrueLB()), kv("true_ub", t.TrueUB()), kv("true_extent", t.TrueExtent()),
		kv("elements", t.Elements()), kv("blocks", t.NumBlocks(1)), kv("depth", t.Depth()),
		kv("combiner", t.Combiner()), kv("contiguous", t.IsContiguous()),
		kv("signature", sig.Format(sig.Of(t))),
	}
}

func typemap(t *datatype.Type, count int64) string {
	if _, _, err := t.Span(count); err != nil {
		return err.Error()
	}
	var b strings.Builder
	n := 0
	t.Walk(count, func(bt datatype.Basic, d int64) bool {
		if n == MaxTypemap {
			return false
		}
		fmt.Fprintf(&b, "%s %d\n", bt, d)
		n++
		return true
	})
	if total := t.Elements(); n == MaxTypemap && (count > 1 || total > MaxTypemap) {
		fmt.Fprintf(&b, "... (%d elements per instance, %d instances; first %d shown)\n", total, count, MaxTypemap)
	}
	return b.String()
}

// normalized is the optimal tree (seed 000) with its cost, within limits
// that keep the page responsive, followed by what commit does: the DAME
// program it compiles and, under the default NormalizeAuto, simplifies
// with the same rules (dame/opt).
func normalized(t *datatype.Type) string {
	opts := optimal.DefaultNormalizeOptions()
	opts.ExactLimit, opts.Work, opts.MaxTree = 256, 1<<24, 1<<16
	tree, before, after, err := optimal.NormalizeTree(t, opts)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cost_before: %d\ncost_after: %d\n%s\n", before, after, tree)
	if after < before {
		if nt, err := optimal.ToTypeLike(tree, t); err == nil {
			fmt.Fprintf(&b, "\n# as .ddt\n%s", lang.Format(nt))
		}
	}
	p := opt.Compile(t)
	q := opt.Simplify(p, opt.AutoBudget)
	fmt.Fprintf(&b, "\n# what commit runs (NormalizeAuto): DAME program, cost %d", opt.Cost(p))
	if q != p {
		fmt.Fprintf(&b, " compiled, %d simplified", opt.Cost(q))
	}
	fmt.Fprintf(&b, "\n%v", q)
	return b.String()
}
