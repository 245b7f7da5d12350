package draw

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/golden"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

// validXML fails the test unless s is well-formed XML with an <svg> root.
func validXML(t *testing.T, name string, s []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(s))
	root := ""
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG is not well-formed XML: %v", name, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = e.Name.Local
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if root != "svg" || depth != 0 {
		t.Fatalf("%s: root element %q, final depth %d", name, root, depth)
	}
}

func parseFile(t *testing.T, path string) *datatype.Type {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ty, err := lang.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// TestGolden compares the text pictures (count 1 and 2) and the SVG of
// every testdata/*.ddt with the files beside it; -update rewrites them.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ddt")
	if len(files) == 0 {
		t.Fatal("no inputs")
	}
	for _, f := range files {
		ty := parseFile(t, f)
		var txt bytes.Buffer
		for _, n := range []int64{1, 2} {
			p, err := Layout(ty, Options{Count: n, CellBytes: Granule(ty), MaxCols: 96, MaxRows: 64})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Text(&txt, fmt.Sprintf("%s, count %d", filepath.Base(f), n)); err != nil {
				t.Fatal(err)
			}
			txt.WriteString("\n")
		}
		p, err := Layout(ty, Options{Count: 1})
		if err != nil {
			t.Fatal(err)
		}
		var svg bytes.Buffer
		if err := p.SVG(&svg, SVGOptions{Title: filepath.Base(f)}); err != nil {
			t.Fatal(err)
		}
		validXML(t, f, svg.Bytes())
		base := strings.TrimSuffix(f, ".ddt")
		for _, g := range []struct {
			ext string
			got []byte
		}{{".txt", txt.Bytes()}, {".svg", svg.Bytes()}} {
			golden.Check(t, base+g.ext, g.got)
		}
	}
}

// oracle is a byte-by-byte picture built from the type map alone.
type oracle struct {
	cov  map[int64]int
	kind map[int64]Kind
	runs []Run
}

func buildOracle(ty *datatype.Type, count int64) oracle {
	o := oracle{cov: map[int64]int{}, kind: map[int64]Kind{}}
	var packed int64
	ty.Walk(count, func(b datatype.Basic, d int64) bool {
		for x := d; x < d+b.Size(); x++ {
			o.cov[x]++
			o.kind[x] = mergeKind(kindOr(o.kind, x), Kind(b))
		}
		if k := len(o.runs); k > 0 && o.runs[k-1].Basic == b && o.runs[k-1].Off+o.runs[k-1].Len == d {
			o.runs[k-1].Len += b.Size()
		} else {
			o.runs = append(o.runs, Run{Off: d, Len: b.Size(), Packed: packed, Basic: b})
		}
		packed += b.Size()
		return true
	})
	return o
}

func kindOr(m map[int64]Kind, x int64) Kind {
	if k, ok := m[x]; ok {
		return k
	}
	return Empty
}

// TestOracle checks exact pictures of random types byte by byte against
// the type map: coverage, basic type, runs in packed order and their
// packed offsets; and, for every picture, that all bytes are accounted
// for and the SVG is well-formed.
func TestOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	exact := 0
	n := 600
	if testing.Short() {
		n = 150
	}
	for i := 0; i < n; i++ {
		ty := typegen.Random(r, typegen.Options{MaxExtent: 1 << 10, MaxElements: 512})
		count := int64(1 + r.IntN(3))
		if lo, hi, err := bounds(ty, count); err != nil || hi-lo > 1<<16 {
			continue
		}
		p, err := Layout(ty, Options{Count: count, MaxCols: 1024, MaxRows: 1024})
		if err != nil {
			t.Fatalf("%s: %v", lang.Format(ty), err)
		}
		checkMass(t, ty, p)
		if !p.Exact {
			continue
		}
		exact++
		o := buildOracle(ty, count)
		for ci, c := range p.Cells {
			x := p.Lo + int64(ci/p.Cols)*p.RowBytes + int64(ci%p.Cols)
			if c.Capacity == 0 {
				if o.cov[x] != 0 {
					t.Fatalf("%s count %d: byte %d covered %d times lies outside the picture", lang.Format(ty), count, x, o.cov[x])
				}
				continue
			}
			if int(c.Bytes) != o.cov[x] || float64(int(c.Bytes)) != c.Bytes || c.Kind != kindOr(o.kind, x) {
				t.Fatalf("%s count %d: byte %d: picture %v/%d, type map %d/%d", lang.Format(ty), count, x, c.Bytes, c.Kind, o.cov[x], kindOr(o.kind, x))
			}
		}
		if len(o.runs) <= MaxRuns {
			if len(p.Runs) != len(o.runs) {
				t.Fatalf("%s count %d: %d runs, type map has %d", lang.Format(ty), count, len(p.Runs), len(o.runs))
			}
			for k := range o.runs {
				if p.Runs[k] != o.runs[k] {
					t.Fatalf("%s count %d: run %d = %+v, type map %+v", lang.Format(ty), count, k, p.Runs[k], o.runs[k])
				}
			}
		} else if p.Runs != nil {
			t.Fatalf("%d runs listed, more than MaxRuns", len(p.Runs))
		}
		if i%10 == 0 {
			var b bytes.Buffer
			if err := p.SVG(&b, SVGOptions{Title: "<random & \"type\">"}); err != nil {
				t.Fatal(err)
			}
			validXML(t, lang.Format(ty), b.Bytes())
			b.Reset()
			if err := p.Text(&b, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	if exact < n/3 {
		t.Fatalf("only %d of %d random pictures were exact: the oracle checked too little", exact, n)
	}
}

// checkMass checks that the cells and the packed stream account for every
// packed byte.
func checkMass(t *testing.T, ty *datatype.Type, p *Picture) {
	t.Helper()
	var cells, stream float64
	for _, c := range p.Cells {
		cells += c.Bytes
	}
	for _, c := range p.Stream {
		stream += c.Bytes
	}
	want := float64(p.PackedBytes)
	tol := 1e-6*want + 1e-6
	if math.Abs(cells-want) > tol || math.Abs(stream-want) > tol {
		t.Fatalf("%s count %d: cells hold %g bytes, stream %g, packed size %g", lang.Format(ty), p.Count, cells, stream, want)
	}
}

// TestAggregated draws random types into tiny grids (every cell stands for
// many bytes and rows): nothing is lost and the SVG stays well-formed.
func TestAggregated(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	for i := 0; i < 300; i++ {
		ty := typegen.Random(r, typegen.Options{})
		count := int64(1 + r.IntN(5))
		p, err := Layout(ty, Options{Count: count, MaxCols: 1 + r.IntN(20), MaxRows: 1 + r.IntN(20), Budget: 1 + r.IntN(5000)})
		if err != nil {
			if _, _, serr := ty.Span(count); serr != nil {
				continue
			}
			t.Fatalf("%s: %v", lang.Format(ty), err)
		}
		checkMass(t, ty, p)
		var b bytes.Buffer
		if err := p.SVG(&b, SVGOptions{}); err != nil {
			t.Fatal(err)
		}
		validXML(t, lang.Format(ty), b.Bytes())
	}
}

// TestHuge draws types of millions to trillions of elements: bounded time
// and output, every byte accounted for, the coverage where it belongs.
func TestHuge(t *testing.T) {
	cases := []string{
		"contiguous(1000000000, int)",
		"vector(100000000, 1, 3, double)",
		"subarray([100000, 100000], [100000, 1], [0, 99999], C, float)",
		"contiguous(1000, indexed_block(2, [0, 7, 100000, 3, 99], vector(100000, 2, 5, int)))",
		"struct([1, 1], [0, 1000000000000], [int, contiguous(1000000, double)])",
		"hvector(1000000, 1, 0, contiguous(1000000, char))",
		"resized(vector(4000000, 1, -2, short), -100000000, 10)",
	}
	for _, src := range cases {
		ty, err := lang.Parse("huge", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, count := range []int64{1, 1000} {
			start := time.Now()
			p, err := Layout(ty, Options{Count: count})
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			var b bytes.Buffer
			if err := p.SVG(&b, SVGOptions{Title: src}); err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			checkMass(t, ty, p)
			validXML(t, src, b.Bytes())
			if b.Len() > 8<<20 {
				t.Errorf("%s count %d: SVG of %d bytes", src, count, b.Len())
			}
			if el > 10*time.Second {
				t.Errorf("%s count %d: took %v", src, count, el)
			}
		}
	}
	// The east face of a 10^5 x 10^5 matrix lies in the last column only.
	ty, _ := lang.Parse("face", []byte("subarray([100000, 100000], [100000, 1], [0, 99999], C, float)"))
	p, err := Layout(ty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Cells {
		last := i%p.Cols == p.Cols-1
		if (c.Bytes > 0) != last {
			t.Fatalf("cell (%d, %d) holds %g bytes", i/p.Cols, i%p.Cols, c.Bytes)
		}
	}
}

// TestBadOptions checks that bad options are errors, not panics.
func TestBadOptions(t *testing.T) {
	ty := datatype.Of(datatype.Int)
	for _, o := range []Options{{Count: -1}, {Width: -3}, {CellBytes: -1}, {MaxCols: 4096, MaxRows: 4096}} {
		if _, err := Layout(ty, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := Layout(nil, Options{}); err == nil {
		t.Error("nil type: no error")
	}
	big, _ := datatype.Resized(ty, 0, 1<<62)
	if _, err := Layout(big, Options{Count: 4}); err == nil {
		t.Error("span overflow: no error")
	}
}

// FuzzDraw draws any type the language accepts: no panic, well-formed SVG,
// every byte accounted for.
func FuzzDraw(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ddt")
	for _, file := range files {
		src, _ := os.ReadFile(file)
		f.Add(src, int64(2), int64(0))
	}
	f.Add([]byte("vector(3, 2, -5, resized(int, -2, 3))"), int64(3), int64(7))
	f.Fuzz(func(t *testing.T, src []byte, count, width int64) {
		ty, err := lang.Parse("fuzz", src)
		if err != nil {
			return
		}
		count = count%5 + 1
		if count < 1 {
			count += 5
		}
		width = width % 5000
		if width < 0 {
			width = -width
		}
		p, err := Layout(ty, Options{Count: count, Width: width, Budget: 20000})
		if err != nil {
			return
		}
		checkMass(t, ty, p)
		var b bytes.Buffer
		if err := p.SVG(&b, SVGOptions{}); err != nil {
			t.Fatal(err)
		}
		validXML(t, "fuzz", b.Bytes())
		if err := p.Text(io.Discard, ""); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDraw lays out and renders types of 10^6 elements (Layout+SVG)
// beside walking their type maps (Walk), for the ratio; and types of 10^9
// elements and more, which only the picture can afford.
func BenchmarkDraw(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"vector1e6", "vector(1000000, 1, 3, double)"},
		{"face1e6", "subarray([1000, 1000, 1000], [1000, 1000, 1], [0, 0, 999], C, float)"},
		{"indexed1e6", "contiguous(1000, indexed_block(2, [0, 7, 100000, 3, 99], vector(100, 2, 5, int)))"},
		{"contig1e9", "contiguous(1000000000, int)"},
		{"face1e5of1e10", "subarray([100000, 100000], [100000, 1], [0, 99999], C, float)"},
	} {
		ty, err := lang.Parse(c.name, []byte(c.src))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("Layout+SVG/"+c.name, func(b *testing.B) {
			for b.Loop() {
				p, err := Layout(ty, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.SVG(io.Discard, SVGOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		if ty.Elements() <= 10_000_000 {
			b.Run("Walk/"+c.name, func(b *testing.B) {
				for b.Loop() {
					var n int64
					ty.Walk(1, func(datatype.Basic, int64) bool { n++; return true })
				}
			})
		}
	}
}
