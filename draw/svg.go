package draw

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// Color is the fill of a basic type's bytes: one hue per family (1-byte,
// 2-byte and 4-byte integers, float, 8-byte integers, double, long double,
// complex), so that a struct's members stand apart.
func Color(b datatype.Basic) string {
	switch b {
	case datatype.Char, datatype.SignedChar, datatype.UnsignedChar, datatype.Int8, datatype.Uint8, datatype.CBool:
		return "#e9a91c"
	case datatype.Byte:
		return "#b58a2a"
	case datatype.Short, datatype.UnsignedShort, datatype.Int16, datatype.Uint16:
		return "#ec6f2d"
	case datatype.Int, datatype.Unsigned, datatype.Int32, datatype.Uint32, datatype.WChar:
		return "#3b7dd8"
	case datatype.Float:
		return "#1fa4a0"
	case datatype.Long, datatype.UnsignedLong, datatype.LongLong, datatype.UnsignedLongLong,
		datatype.Int64, datatype.Uint64, datatype.Aint, datatype.Offset, datatype.Count:
		return "#8c58d4"
	case datatype.Double:
		return "#3c9f4a"
	case datatype.CFloatComplex:
		return "#85b936"
	case datatype.LongDouble:
		return "#d6457a"
	case datatype.CDoubleComplex, datatype.CLongDoubleComplex:
		return "#a8326d"
	}
	return "#777777"
}

const (
	mixedColor   = "#8a8a8a"
	gapColor     = "#f1f1ee"
	overlapColor = "#d40000"
	boundColor   = "#c01818"
	trueColor    = "#1559b8"
)

func kindColor(k Kind) string {
	if k >= 0 {
		return Color(datatype.Basic(k))
	}
	return mixedColor
}

// SVGOptions control SVG rendering.
type SVGOptions struct {
	// Title is the first line of the picture, for example the file name.
	Title string
}

// geometry is the pixel layout of a picture.
type geometry struct {
	ml, mt       float64 // left and top margins
	pw, ph       float64 // cell width and height
	gw, gh       float64 // grid width and height
	width, total float64
}

func (p *Picture) geometry() geometry {
	var g geometry
	g.ml, g.mt = 84, 72
	g.pw = math.Max(2, math.Min(28, math.Floor(768/float64(p.Cols))))
	gran := float64(granule(p.Type))
	elemsWide := math.Max(float64(p.CellBytes)/gran, 1.0/gran)
	ratio := float64(p.RowsPerCell) / elemsWide
	g.ph = math.Round(g.pw * ratio)
	g.ph = math.Max(2, math.Min(g.ph, 32))
	if g.ph*float64(p.Rows) > 900 {
		g.ph = math.Max(2, math.Floor(900/float64(p.Rows)))
	}
	if g.ph < 12 && p.Rows <= 4 {
		g.ph = 12
	}
	g.gw = g.pw * float64(p.Cols)
	g.gh = g.ph * float64(p.Rows)
	g.width = math.Max(g.ml+g.gw+24, 640)
	return g
}

// cellXY is the pixel position of byte displacement at (the left edge of
// its byte, or with end the right edge of the byte before it), and the
// row of cells it is in; ok is false outside the picture.
func (p *Picture) cellXY(g geometry, at int64, end bool) (x float64, row int, ok bool) {
	off := at - p.Lo
	if off < 0 || at > p.Hi || (!end && at == p.Hi) {
		return 0, 0, false
	}
	mrow, col := off/p.RowBytes, off%p.RowBytes
	if end && col == 0 && mrow > 0 {
		mrow, col = mrow-1, p.RowBytes
	}
	row = int(mrow / p.RowsPerCell)
	if row >= p.Rows {
		return 0, 0, false
	}
	return g.ml + float64(col)/float64(p.CellBytes)*g.pw, row, true
}

// SVG writes the picture as a standalone SVG document.
func (p *Picture) SVG(w io.Writer, o SVGOptions) error {
	bw := bufio.NewWriter(w)
	g := p.geometry()
	streamY := g.mt + g.gh + 34
	legendY := streamY + 34
	nLegend := len(p.Basics) + 2
	legendRows := (nLegend + 3) / 4
	g.total = legendY + float64(legendRows)*18 + 36
	pf := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	pf(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	pf(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11">`+"\n",
		g.width, g.total, g.width, g.total)
	title := o.Title
	if title == "" {
		title = "datatype layout"
	}
	pf("<title>%s</title>\n", esc(title))
	pf(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	t := p.Type
	pf(`<text x="8" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
	pf(`<text x="8" y="34">size %d  extent %d  lb %d  ub %d  true_lb %d  true_ub %d  count %d  packed %d B</text>`+"\n",
		t.Size(), t.Extent(), t.LB(), t.UB(), t.TrueLB(), t.TrueUB(), p.Count, p.PackedBytes)
	scale := fmt.Sprintf("row = %d B, cell = %d B", p.RowBytes, p.CellBytes)
	if p.RowsPerCell > 1 {
		scale += fmt.Sprintf(" x %d rows", p.RowsPerCell)
	}
	if p.Note != "" && !strings.HasPrefix(p.Note, "aggregated") {
		scale += "; " + p.Note
	}
	pf(`<text x="8" y="50" fill="#555">%s</text>`+"\n", esc(scale))

	// The memory, gaps first.
	pf(`<g id="memory">` + "\n")
	for r := 0; r < p.Rows; r++ {
		// Gap background for the cells that stand for memory.
		c0 := 0
		for c0 < p.Cols {
			if p.Cells[r*p.Cols+c0].Capacity == 0 {
				c0++
				continue
			}
			c1 := c0
			for c1 < p.Cols && p.Cells[r*p.Cols+c1].Capacity > 0 {
				c1++
			}
			pf(`<rect x="%g" y="%g" width="%g" height="%g" fill="%s"/>`+"\n",
				g.ml+float64(c0)*g.pw, g.mt+float64(r)*g.ph, float64(c1-c0)*g.pw, g.ph, gapColor)
			c0 = c1
		}
	}
	tips := len(p.Cells) <= 20000
	overlap, mixed := false, false
	for r := 0; r < p.Rows; r++ {
		for c0 := 0; c0 < p.Cols; {
			cell := p.Cells[r*p.Cols+c0]
			if cell.Kind == Empty || cell.Bytes <= 0 {
				c0++
				continue
			}
			op, ov := opacity(cell)
			c1 := c0 + 1
			for c1 < p.Cols {
				n := p.Cells[r*p.Cols+c1]
				nop, nov := opacity(n)
				if n.Kind != cell.Kind || n.Bytes <= 0 || nop != op || nov != ov {
					break
				}
				c1++
			}
			overlap = overlap || ov
			mixed = mixed || cell.Kind == Mixed
			stroke := ""
			if ov {
				stroke = fmt.Sprintf(` stroke="%s" stroke-width="1"`, overlapColor)
			}
			pf(`<rect x="%g" y="%g" width="%g" height="%g" fill="%s" fill-opacity="%.2f"%s>`,
				g.ml+float64(c0)*g.pw, g.mt+float64(r)*g.ph, float64(c1-c0)*g.pw, g.ph, kindColor(cell.Kind), op, stroke)
			if tips {
				pf("<title>%s</title>", esc(p.describe(r, c0, c1)))
			}
			pf("</rect>\n")
			c0 = c1
		}
	}
	pf("</g>\n")

	// Element and row separators where they are wide enough to see.
	gran := granule(t)
	step := max(gran/p.CellBytes, 1)
	if p.CellBytes <= gran && g.pw*float64(step) >= 6 {
		pf(`<g stroke="#ffffff" stroke-width="1">` + "\n")
		for c := step; c < int64(p.Cols); c += step {
			x := g.ml + float64(c)*g.pw
			pf(`<line x1="%g" y1="%g" x2="%g" y2="%g"/>`+"\n", x, g.mt, x, g.mt+g.gh)
		}
		pf("</g>\n")
	}
	if g.ph >= 6 && p.RowsPerCell == 1 {
		pf(`<g stroke="#ffffff" stroke-width="1">` + "\n")
		for r := 1; r < p.Rows; r++ {
			y := g.mt + float64(r)*g.ph
			pf(`<line x1="%g" y1="%g" x2="%g" y2="%g"/>`+"\n", g.ml, y, g.ml+g.gw, y)
		}
		pf("</g>\n")
	}
	if p.PlaneRows > 1 {
		pf(`<g stroke="#444" stroke-width="1.5">` + "\n")
		every := p.PlaneRows / p.RowsPerCell
		for r := every; r < int64(p.Rows); r += every {
			y := g.mt + float64(r)*g.ph
			pf(`<line x1="%g" y1="%g" x2="%g" y2="%g"/>`+"\n", g.ml-6, y, g.ml+g.gw, y)
		}
		pf("</g>\n")
	}

	// Row offsets.
	labelEvery := max(1, int(math.Ceil(14/g.ph)))
	pf(`<g fill="#555" text-anchor="end" font-size="10">` + "\n")
	for r := 0; r < p.Rows; r += labelEvery {
		pf(`<text x="%g" y="%g">%d</text>`+"\n", g.ml-6, g.mt+float64(r)*g.ph+math.Min(g.ph, 14)/2+4, p.Lo+int64(r)*p.RowsPerCell*p.RowBytes)
	}
	pf("</g>\n")
	pf(`<text x="%g" y="%g" fill="#555" font-size="10" text-anchor="end">+%d</text>`+"\n", g.ml+g.gw, g.mt+g.gh+14, p.RowBytes)
	pf(`<text x="%g" y="%g" fill="#555" font-size="10">+0 (bytes from the row start; row offsets at left)</text>`+"\n", g.ml, g.mt+g.gh+14)

	p.svgOrder(pf, g)
	p.svgMarkers(pf, g)
	p.svgStream(pf, g, streamY)

	// Legend.
	pf(`<g id="legend">` + "\n")
	items := make([][2]string, 0, nLegend+2)
	for _, b := range p.Basics {
		items = append(items, [2]string{Color(b), b.String()})
	}
	if mixed {
		items = append(items, [2]string{mixedColor, "mixed"})
	}
	items = append(items, [2]string{gapColor, "gap"})
	if overlap {
		items = append(items, [2]string{"overlap", "overlap"})
	}
	for i, it := range items {
		x := 8 + float64(i%4)*150
		y := legendY + float64(i/4)*18
		if it[0] == "overlap" {
			pf(`<rect x="%g" y="%g" width="14" height="12" fill="#fff" stroke="%s"/>`, x, y-10, overlapColor)
		} else {
			pf(`<rect x="%g" y="%g" width="14" height="12" fill="%s" stroke="#bbb" stroke-width="0.5"/>`, x, y-10, it[0])
		}
		pf(`<text x="%g" y="%g">%s</text>`+"\n", x+20, y, esc(it[1]))
	}
	ly := legendY + float64((len(items)+3)/4)*18 + 4
	pf(`<line x1="8" y1="%g" x2="26" y2="%g" stroke="%s" stroke-width="2"/><text x="32" y="%g">lb / ub</text>`+"\n", ly-4, ly-4, boundColor, ly)
	pf(`<line x1="158" y1="%g" x2="176" y2="%g" stroke="%s" stroke-width="2" stroke-dasharray="3,2"/><text x="182" y="%g">true_lb / true_ub</text>`+"\n", ly-4, ly-4, trueColor, ly)
	pf(`<line x1="308" y1="%g" x2="326" y2="%g" stroke="#222" stroke-width="1"/><text x="332" y="%g">packed order</text>`+"\n", ly-4, ly-4, ly)
	pf("</g>\n</svg>\n")
	return bw.Flush()
}

// opacity is a cell's fill opacity (by coverage, quantized so that equal
// neighbours merge) and whether its bytes overlap.
func opacity(c Cell) (float64, bool) {
	cov := c.Coverage()
	ov := cov > 1.0001
	cov = math.Min(cov, 1)
	return math.Round((0.55+0.45*cov)*20) / 20, ov
}

// describe is the tooltip of cells [c0, c1) of row r.
func (p *Picture) describe(r, c0, c1 int) string {
	a := p.Lo + int64(r)*p.RowsPerCell*p.RowBytes + int64(c0)*p.CellBytes
	b := p.Lo + int64(r)*p.RowsPerCell*p.RowBytes + min(int64(c1)*p.CellBytes, p.RowBytes)
	cell := p.Cells[r*p.Cols+c0]
	kind := "mixed"
	if cell.Kind >= 0 {
		kind = datatype.Basic(cell.Kind).String()
	}
	var bytes, capa float64
	first := math.Inf(1)
	for c := c0; c < c1; c++ {
		bytes += p.Cells[r*p.Cols+c].Bytes
		capa += float64(p.Cells[r*p.Cols+c].Capacity)
		first = math.Min(first, p.Cells[r*p.Cols+c].First)
	}
	s := fmt.Sprintf("bytes [%d, %d)", a, b)
	if p.RowsPerCell > 1 {
		s += fmt.Sprintf(" of %d rows", p.RowsPerCell)
	}
	s += fmt.Sprintf(": %s, %.0f of %.0f bytes covered, packed from byte %.0f", kind, bytes, capa, first)
	return s
}

// svgOrder draws the order of the packed stream: numbered runs and a path
// through them when the runs are few, else a path through the cells in
// the order their first packed byte comes.
func (p *Picture) svgOrder(pf func(string, ...any), g geometry) {
	type pt struct{ x, y float64 }
	var pts []pt
	center := func(row int, x0, x1 float64) pt {
		return pt{(x0 + x1) / 2, g.mt + (float64(row)+0.5)*g.ph}
	}
	numbered := p.Runs != nil && len(p.Runs) <= 64 && g.ph >= 10
	if p.Runs != nil && len(p.Runs) <= 400 {
		for _, r := range p.Runs {
			x0, row, ok := p.cellXY(g, r.Off, false)
			if !ok {
				continue
			}
			// The run's piece in its first row.
			endInRow := min(r.Off+r.Len, p.Lo+((r.Off-p.Lo)/p.RowBytes+1)*p.RowBytes)
			x1, _, _ := p.cellXY(g, endInRow, true)
			pts = append(pts, center(row, x0, x1))
		}
	} else {
		type cellAt struct {
			first float64
			r, c  int
		}
		var cs []cellAt
		for i, c := range p.Cells {
			if c.Bytes > 0 && !math.IsInf(c.First, 1) {
				cs = append(cs, cellAt{c.First, i / p.Cols, i % p.Cols})
			}
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].first < cs[j].first })
		// Keep the cells where the path turns: the first and last cell of
		// each horizontal stretch.
		var keep []cellAt
		for i, c := range cs {
			if i > 0 && i < len(cs)-1 {
				pr, nx := cs[i-1], cs[i+1]
				if pr.r == c.r && nx.r == c.r && pr.c == c.c-1 && nx.c == c.c+1 {
					continue
				}
			}
			keep = append(keep, c)
		}
		stride := max(1, len(keep)/1500)
		for i := 0; i < len(keep); i += stride {
			c := keep[i]
			x := g.ml + (float64(c.c)+0.5)*g.pw
			pts = append(pts, pt{x, g.mt + (float64(c.r)+0.5)*g.ph})
		}
		if len(keep) > 0 && (len(keep)-1)%stride != 0 {
			c := keep[len(keep)-1]
			pts = append(pts, pt{g.ml + (float64(c.c)+0.5)*g.pw, g.mt + (float64(c.r)+0.5)*g.ph})
		}
	}
	if len(pts) == 0 {
		return
	}
	pf(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#222"/></marker></defs>` + "\n")
	pf(`<g id="order" fill="none" stroke="#222">` + "\n")
	var d strings.Builder
	for i, q := range pts {
		if i == 0 {
			fmt.Fprintf(&d, "M%.1f,%.1f", q.x, q.y)
		} else {
			fmt.Fprintf(&d, " L%.1f,%.1f", q.x, q.y)
		}
	}
	width, op := 1.0, 0.7
	if p.Runs == nil {
		width, op = 0.75, 0.45
	}
	pf(`<path d="%s" stroke-width="%g" stroke-opacity="%g" stroke-dasharray="%s" marker-end="url(#arrow)"/>`+"\n", d.String(), width, op, dash(numbered))
	pf(`<circle cx="%.1f" cy="%.1f" r="2.5" fill="#222"/>`+"\n", pts[0].x, pts[0].y)
	pf("</g>\n")
	if numbered {
		pf(`<g id="runs" font-size="10" text-anchor="middle" fill="#000" stroke="#fff" stroke-width="2.5" paint-order="stroke">` + "\n")
		for i, q := range pts {
			pf(`<text x="%.1f" y="%.1f">%d</text>`+"\n", q.x, q.y+3.5, i+1)
		}
		pf("</g>\n")
	}
}

func dash(numbered bool) string {
	if numbered {
		return "2,2"
	}
	return "none"
}

// svgMarkers draws the bounds.
func (p *Picture) svgMarkers(pf func(string, ...any), g geometry) {
	type at struct {
		x   float64
		row int
	}
	names := map[at][]string{}
	var order []at
	color := map[at]string{}
	for _, m := range p.Markers {
		end := strings.HasPrefix(m.Name, "ub") || m.Name == "true_ub"
		x, row, ok := p.cellXY(g, m.At, end)
		if !ok {
			continue
		}
		k := at{math.Round(x*10) / 10, row}
		if names[k] == nil {
			order = append(order, k)
		}
		names[k] = append(names[k], fmt.Sprintf("%s=%d", m.Name, m.At))
		if !strings.HasPrefix(m.Name, "true") || color[k] == "" {
			if strings.HasPrefix(m.Name, "true") {
				color[k] = trueColor
			} else {
				color[k] = boundColor
			}
		}
	}
	pf(`<g id="bounds" font-size="10">` + "\n")
	for i, k := range order {
		y0 := g.mt + float64(k.row)*g.ph - 4
		y1 := g.mt + float64(k.row+1)*g.ph + 4
		dashes := ""
		if color[k] == trueColor {
			dashes = ` stroke-dasharray="3,2"`
		}
		pf(`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"%s/>`+"\n", k.x, y0, k.x, y1, color[k], dashes)
		level := float64(i % 2)
		anchor := "start"
		if k.x > g.ml+g.gw*0.7 {
			anchor = "end"
		}
		pf(`<text x="%g" y="%g" fill="%s" text-anchor="%s" stroke="#fff" stroke-width="3" paint-order="stroke">%s</text>`+"\n",
			k.x, y0-2-level*11, color[k], anchor, esc(strings.Join(names[k], " ")))
	}
	pf("</g>\n")
}

// svgStream draws the packed stream as a bar in packed order.
func (p *Picture) svgStream(pf func(string, ...any), g geometry, y float64) {
	w := math.Max(g.gw, 256)
	pf(`<g id="stream">` + "\n")
	pf(`<text x="8" y="%g">packed</text>`+"\n", y+11)
	pf(`<rect x="%g" y="%g" width="%g" height="14" fill="%s"/>`+"\n", g.ml, y, w, gapColor)
	bw := w / float64(len(p.Stream))
	for i := 0; i < len(p.Stream); {
		c := p.Stream[i]
		if c.Bytes <= 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(p.Stream) && p.Stream[j].Kind == c.Kind && p.Stream[j].Bytes > 0 {
			j++
		}
		pf(`<rect x="%.2f" y="%g" width="%.2f" height="14" fill="%s"/>`+"\n", g.ml+float64(i)*bw, y, float64(j-i)*bw, kindColor(c.Kind))
		i = j
	}
	if p.Runs != nil && len(p.Runs) <= 64 && p.PackedBytes > 0 {
		for i, r := range p.Runs {
			x := g.ml + float64(r.Packed)/float64(p.PackedBytes)*w
			pf(`<line x1="%.2f" y1="%g" x2="%.2f" y2="%g" stroke="#fff" stroke-width="1"/>`+"\n", x, y, x, y+14)
			if len(p.Runs) <= 32 {
				pf(`<text x="%.2f" y="%g" font-size="9" fill="#333">%d</text>`+"\n", x+2, y+25, i+1)
			}
		}
	}
	pf(`<text x="%g" y="%g" fill="#555" font-size="10" text-anchor="end">%d B</text>`+"\n", g.ml+w, y-3, p.PackedBytes)
	pf("</g>\n")
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
