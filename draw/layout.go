package draw

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/ddtlab/ddt/datatype"
)

// Options control how a layout is laid out as a grid of cells.
type Options struct {
	// Count is the number of instances drawn, instance i shifted by
	// i*extent as in a send buffer. 0 means 1.
	Count int64
	// Width is the number of bytes per row of the picture. 0 chooses one
	// from the type: the row length of the innermost vector or subarray
	// (so that a matrix looks like a matrix), else a width that keeps the
	// picture roughly square.
	Width int64
	// MaxCols and MaxRows bound the grid; bytes and rows beyond them are
	// aggregated into cells. 0 means 128 each.
	MaxCols, MaxRows int
	// CellBytes is the least number of bytes per cell; 0 means 1. Text
	// pictures use the smallest basic size, one character per element.
	CellBytes int64
	// Budget bounds the work spent walking the type (node visits and cell
	// updates). Past it, whatever is left is spread evenly over the
	// memory it spans and the picture is marked approximate. 0 means
	// 1<<20.
	Budget int
}

// Kind is what a cell shows: nothing, one basic type, or several.
type Kind int16

// Kinds that are not a basic type. Other values are datatype.Basic values.
const (
	Empty Kind = -1 // no byte of the cell is covered
	Mixed Kind = -2 // bytes of more than one basic type
)

// Cell is one cell of the grid: CellBytes bytes of RowsPerCell rows.
type Cell struct {
	// Bytes is the number of covered bytes in the cell, counting a byte
	// covered twice (overlapping blocks) twice. It is fractional when the
	// picture was aggregated by spreading.
	Bytes float64
	// Capacity is the number of bytes of memory the cell stands for.
	Capacity int64
	// Kind is the basic type of the covered bytes, or Empty or Mixed.
	Kind Kind
	// First is the position in the packed stream of the first packed byte
	// that lands in this cell (the smallest, if several do).
	First float64
}

// Coverage is the fraction of the cell's memory covered (above 1 when
// blocks overlap).
func (c Cell) Coverage() float64 {
	if c.Capacity == 0 {
		return 0
	}
	return c.Bytes / float64(c.Capacity)
}

// Run is one contiguous run of bytes of one basic type in the order of the
// packed stream: memory [Off, Off+Len) packs to [Packed, Packed+Len).
type Run struct {
	Off, Len, Packed int64
	Basic            datatype.Basic
}

// Marker is a byte position worth marking: a bound of an instance.
type Marker struct {
	Name string // lb, ub, true_lb, true_ub, or lb[i]/ub[i] for instance i
	At   int64  // byte displacement relative to the origin
}

// Picture is a type's memory image laid out as a grid of cells, with its
// bounds and the order of its packed stream. Build one with Layout and
// render it with SVG or Text.
type Picture struct {
	Type  *datatype.Type
	Count int64
	// Lo is the displacement of the first byte of the first row (a multiple
	// of RowBytes when the width came from the type, so that matrix rows
	// start at column 0); Hi is one past the last byte drawn.
	Lo, Hi int64
	// RowBytes is the number of bytes per row, CellBytes the bytes per
	// cell, RowsPerCell the rows of memory per row of cells.
	RowBytes, CellBytes, RowsPerCell int64
	// PlaneRows, when above 1, is the number of memory rows between heavier
	// separators (the planes of a 3-D array).
	PlaneRows int64
	// Cols and Rows are the grid's size; Cells is row-major.
	Cols, Rows int
	Cells      []Cell
	// Stream is the packed stream in bins of StreamBin bytes.
	Stream    []Cell
	StreamBin int64
	// Runs are the runs in packed order, when the picture is exact and they
	// number at most MaxRuns; otherwise nil.
	Runs []Run
	// Markers are the bounds, in no particular order.
	Markers []Marker
	// Exact is true when every cell's content is exact (no spreading or
	// sampling was needed).
	Exact bool
	// Note says how the picture was simplified, if it was.
	Note string
	// Size and PackedBytes are the type's size and the packed size of
	// Count instances.
	Size, PackedBytes int64
	// Basics lists the basic types present, in first-seen order.
	Basics []datatype.Basic
}

// MaxCells bounds Options.MaxCols * Options.MaxRows (32 MiB of cells).
const MaxCells = 1 << 20

// MaxRuns is the most runs a Picture lists.
const MaxRuns = 256

// Layout lays out count instances of t as a grid. The work is bounded by
// Options.Budget and the size of t's description, never by the number of
// elements or bytes of the type.
func Layout(t *datatype.Type, opts Options) (*Picture, error) {
	if t == nil {
		return nil, errors.New("draw: nil type")
	}
	if opts.Count < 0 {
		return nil, fmt.Errorf("draw: negative count %d", opts.Count)
	}
	if opts.Count == 0 {
		opts.Count = 1
	}
	if opts.CellBytes < 0 {
		return nil, fmt.Errorf("draw: negative cell size %d", opts.CellBytes)
	}
	if opts.Width < 0 {
		return nil, fmt.Errorf("draw: negative width %d", opts.Width)
	}
	if opts.MaxCols <= 0 {
		opts.MaxCols = 128
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = 128
	}
	if opts.Budget <= 0 {
		opts.Budget = 1 << 20
	}
	if int64(opts.MaxCols)*int64(opts.MaxRows) > MaxCells {
		return nil, fmt.Errorf("draw: a grid of %d x %d cells is larger than %d cells", opts.MaxCols, opts.MaxRows, MaxCells)
	}
	packed, err := t.PackSize(opts.Count)
	if err != nil {
		return nil, fmt.Errorf("draw: %w", err)
	}
	lo, hi, err := bounds(t, opts.Count)
	if err != nil {
		return nil, err
	}
	p := &Picture{Type: t, Count: opts.Count, Size: t.Size(), PackedBytes: packed, Exact: true}
	rb, plane, natural := naturalWidth(t)
	if opts.Width > 0 {
		rb, natural = opts.Width, true
		plane = 0
	}
	if natural && rb > 0 {
		lo = floorDiv(lo, rb) * rb
		if hi-lo < 0 { // overflow while aligning
			return nil, errors.New("draw: the type spans too many bytes to draw")
		}
	} else {
		rb = autoWidth(hi - lo)
	}
	if hi-lo <= 0 {
		hi = lo + 1
	}
	p.Lo, p.Hi, p.RowBytes = lo, hi, rb
	span := hi - lo
	gran := granule(t)
	cb := max(ceilDiv(rb, int64(opts.MaxCols)), opts.CellBytes)
	if cb > 1 && cb%gran != 0 {
		cb = ceilDiv(cb, gran) * gran
	}
	p.CellBytes = cb
	memRows := ceilDiv(span, rb)
	p.RowsPerCell = ceilDiv(memRows, int64(opts.MaxRows))
	p.Cols = int(ceilDiv(rb, cb))
	p.Rows = int(ceilDiv(memRows, p.RowsPerCell))
	if plane > 1 && plane%p.RowsPerCell == 0 && memRows > plane {
		p.PlaneRows = plane
	}
	p.Cells = make([]Cell, p.Cols*p.Rows)
	for r := 0; r < p.Rows; r++ {
		for c := 0; c < p.Cols; c++ {
			p.Cells[r*p.Cols+c] = Cell{Kind: Empty, First: math.Inf(1), Capacity: p.capacity(r, c)}
		}
	}
	nbins := int64(256)
	if packed < nbins {
		nbins = max(packed, 1)
	}
	p.StreamBin = ceilDiv(max(packed, 1), nbins)
	p.Stream = make([]Cell, ceilDiv(max(packed, 1), p.StreamBin))
	for i := range p.Stream {
		c := Cell{Kind: Empty, Capacity: p.StreamBin}
		if i == len(p.Stream)-1 && packed > 0 {
			c.Capacity = packed - int64(i)*p.StreamBin
		}
		p.Stream[i] = c
	}
	p.markers(t)

	w := &walker{p: p, budget: opts.Budget, kinds: map[*datatype.Type]Kind{}, costs: map[*datatype.Type]int64{}, collect: true, exact: true}
	w.rep(t, 0, opts.Count, t.Extent(), 1)
	if w.collect {
		p.Runs = w.runs
	}
	p.Exact = w.exact && p.CellBytes == 1 && p.RowsPerCell == 1
	switch {
	case w.exhausted:
		p.Note = "approximate: work budget reached, the rest spread evenly over the bytes it spans"
	case w.sampled:
		p.Note = "long repetitions sampled: coverage of cells approximate"
	case !p.Exact:
		p.Note = fmt.Sprintf("aggregated: %d bytes x %d rows per cell", p.CellBytes, p.RowsPerCell)
	}
	p.Basics = basicsOf(t)
	return p, nil
}

// bounds is the byte range to draw: every lb, ub, true bound and data byte
// of count instances.
func bounds(t *datatype.Type, count int64) (lo, hi int64, err error) {
	ext := t.Extent()
	lo = min(t.LB(), t.TrueLB())
	hi = max(t.UB(), t.TrueUB())
	if t.Size() == 0 {
		lo, hi = min(t.LB(), t.UB()), max(t.LB(), t.UB())
	}
	hiShift, ok1 := mulOK(count-1, ext)
	if !ok1 {
		return 0, 0, fmt.Errorf("draw: %d instances of extent %d overflow int64", count, ext)
	}
	if hiShift < 0 {
		lo, ok1 = addOK(lo, hiShift)
	} else {
		hi, ok1 = addOK(hi, hiShift)
	}
	if !ok1 || hi-lo < 0 || (hi > 0 && lo < 0 && hi-lo < hi) {
		return 0, 0, fmt.Errorf("draw: the type spans more than 2^63 bytes")
	}
	return lo, hi, nil
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(uint64(absI(a)), uint64(absI(b)))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	r := int64(lo)
	if (a < 0) != (b < 0) {
		r = -r
	}
	return r, true
}

func addOK(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

func absI(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 1
	}
	return (a-1)/b + 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// autoWidth is the row width of a type with no natural rows: one row up
// to 128 bytes, else a power of two that keeps the picture about twice as
// wide as tall in bytes.
func autoWidth(span int64) int64 {
	if span <= 128 {
		return max(span, 1)
	}
	w := int64(128)
	for w < 1<<40 && w*w < 8*span {
		w *= 2
	}
	return w
}

// basicsOf lists the basic types of t's elements in the order they first
// appear in its description.
func basicsOf(t *datatype.Type) []datatype.Basic {
	var out []datatype.Basic
	have := map[datatype.Basic]bool{}
	eachBasic(t, func(b datatype.Basic) {
		if !have[b] {
			have[b] = true
			out = append(out, b)
		}
	})
	return out
}

// eachBasic calls fn with the basic type of every element kind of t, in
// description order, visiting each node of t's description once (and no
// node without data, or deeper than 64 levels).
func eachBasic(t *datatype.Type, fn func(datatype.Basic)) {
	seen := map[*datatype.Type]bool{}
	var rec func(t *datatype.Type, depth int)
	rec = func(t *datatype.Type, depth int) {
		if t == nil || seen[t] || depth > 64 || t.Size() == 0 {
			return
		}
		seen[t] = true
		if t.IsPredefined() {
			t.Walk(1, func(b datatype.Basic, _ int64) bool {
				fn(b)
				return true
			})
			return
		}
		if l := t.Lower(); l != nil {
			rec(l, depth+1)
			return
		}
		for _, c := range t.Args().Types {
			rec(c, depth+1)
		}
	}
	rec(t, 0)
}

// Granule is the smallest basic size among t's elements (1 for a type
// with none): a natural cell size for text pictures.
func Granule(t *datatype.Type) int64 { return granule(t) }

// granule is the smallest basic size in t (1 if unknown): cells are made a
// multiple of it so that they do not cut elements.
func granule(t *datatype.Type) int64 {
	g := int64(0)
	eachBasic(t, func(b datatype.Basic) {
		if g == 0 || b.Size() < g {
			g = b.Size()
		}
	})
	if g <= 0 {
		return 1
	}
	return g
}

// naturalWidth finds the row length of the innermost strided constructor
// (a subarray's or darray's fastest dimension, a vector's stride) and the
// plane height in rows, if the next dimension out makes one.
func naturalWidth(t *datatype.Type) (row, planeRows int64, ok bool) {
	best := -1
	seen := map[*datatype.Type]bool{}
	var rec func(t *datatype.Type, depth int)
	rec = func(t *datatype.Type, depth int) {
		if t == nil || t.IsPredefined() || seen[t] || depth > 64 {
			return
		}
		seen[t] = true
		a := t.Args()
		var r, pl int64
		switch t.Combiner() {
		case datatype.CombinerSubarray, datatype.CombinerDarray:
			dims := a.Sizes
			if t.Combiner() == datatype.CombinerDarray {
				dims = a.Gsizes
			}
			ext := a.Types[0].Extent()
			if len(dims) >= 2 && ext > 0 {
				if a.Order == datatype.OrderFortran {
					r = dims[0] * ext
					if len(dims) >= 3 {
						pl = dims[1]
					}
				} else {
					r = dims[len(dims)-1] * ext
					if len(dims) >= 3 {
						pl = dims[len(dims)-2]
					}
				}
			}
			if r > 0 && depth > best {
				best, row, planeRows = depth, r, pl
			}
			rec(a.Types[0], depth+1)
			return
		default:
			if n, _, s, ok := t.Strided(); ok && n > 1 && s > 0 && depth > best {
				best, row, planeRows = depth, s, 0
			}
		}
		if l := t.Lower(); l != nil && t.Combiner().Shape() == datatype.ShapeLowered {
			rec(l, depth+1)
			return
		}
		for _, c := range a.Types {
			rec(c, depth+1)
		}
	}
	rec(t, 0)
	if best < 0 || row <= 0 {
		return 0, 0, false
	}
	if planeRows <= 1 {
		planeRows = outerPlane(t, row)
	}
	return row, planeRows, true
}

// outerPlane looks for a vector whose stride is a multiple (>1) of row
// bytes: its stride in rows is a plane height.
func outerPlane(t *datatype.Type, row int64) int64 {
	var pl int64
	seen := map[*datatype.Type]bool{}
	var rec func(t *datatype.Type, depth int)
	rec = func(t *datatype.Type, depth int) {
		if t == nil || t.IsPredefined() || seen[t] || depth > 64 || pl > 0 {
			return
		}
		seen[t] = true
		a := t.Args()
		if n, _, s, ok := t.Strided(); ok {
			if n > 1 && s > row && s%row == 0 {
				pl = s / row
				return
			}
		}
		for _, c := range a.Types {
			rec(c, depth+1)
		}
	}
	rec(t, 0)
	return pl
}

// capacity is the number of memory bytes cell (r, c) stands for.
func (p *Picture) capacity(r, c int) int64 {
	x0 := int64(c) * p.CellBytes
	x1 := min(x0+p.CellBytes, p.RowBytes)
	last := (p.Hi - 1 - p.Lo) / p.RowBytes // the last memory row
	m0 := int64(r) * p.RowsPerCell
	m1 := min(m0+p.RowsPerCell, last+1) // rows [m0, m1) exist
	if m1 <= m0 {
		return 0
	}
	n := (m1 - m0) * (x1 - x0)
	if m1 == last+1 { // the last row may be short
		end := p.Hi - p.Lo - last*p.RowBytes
		n -= x1 - x0
		n += max(0, min(x1, end)-x0)
	}
	return n
}

func (p *Picture) markers(t *datatype.Type) {
	ext := t.Extent()
	add := func(name string, at int64) { p.Markers = append(p.Markers, Marker{name, at}) }
	add("lb", t.LB())
	add("ub", t.UB())
	if t.Size() > 0 {
		add("true_lb", t.TrueLB())
		add("true_ub", t.TrueUB())
	}
	if p.Count > 1 && ext != 0 {
		n := min(p.Count, 16)
		for i := int64(1); i < n; i++ {
			add(fmt.Sprintf("lb[%d]", i), t.LB()+i*ext)
		}
		if p.Count > n {
			add(fmt.Sprintf("ub[%d]", p.Count-1), t.UB()+(p.Count-1)*ext)
		}
	}
	sort.SliceStable(p.Markers, func(i, j int) bool { return p.Markers[i].At < p.Markers[j].At })
}

// walker deposits a type's bytes into a picture's cells in type-map order.
type walker struct {
	p         *Picture
	budget    int
	packed    float64
	kinds     map[*datatype.Type]Kind
	costs     map[*datatype.Type]int64
	runs      []Run
	collect   bool // runs are still complete
	exact     bool
	exhausted bool
	sampled   bool
}

// maxReps is the most repetitions visited one by one before sampling.
const maxReps = 4096

// samples is how many of n repetitions of t stride bytes apart to visit,
// each standing for weight instances: all of them, but at most maxReps;
// and when they are whole rows apart, many fall into each row of cells and
// walking them all would be long (or an enclosing repetition is already
// sampled), a few per row of cells. Sampling translates by whole rows
// keeps every column exact; only the coverage of cells becomes approximate.
func (w *walker) samples(t *datatype.Type, n, stride int64, weight float64) int64 {
	p := w.p
	s := min(n, maxReps)
	if p.RowsPerCell > 1 && n > 16 && stride != 0 && absI(stride)%p.RowBytes == 0 &&
		(weight != 1 || satMul(n, w.cost(t)) > 1<<14) {
		if rows := absI(stride) / p.RowBytes; rows < p.RowsPerCell {
			cellRows := rows*(n-1)/p.RowsPerCell + 1
			s = min(s, max(16, 4*cellRows))
		}
	}
	return s
}

// cost is about the number of visits a full walk of t takes (saturating).
func (w *walker) cost(t *datatype.Type) int64 {
	if c, ok := w.costs[t]; ok {
		return c
	}
	c := int64(1)
	a := t.Args()
	switch {
	case t.Size() == 0 || t.IsPredefined():
	case t.IsContiguous() && w.kind(t) >= 0:
	case t.Lower() != nil:
		c = satAdd(1, w.cost(t.Lower()))
	default:
		switch t.Combiner().Shape() {
		case datatype.ShapeResized:
			c = satAdd(1, w.cost(a.Types[0]))
		case datatype.ShapeStrided:
			n, bl, _, _ := t.Strided()
			c = satAdd(1, satMul(satMul(n, bl), w.cost(a.Types[0])))
		case datatype.ShapeStruct:
			for i, bl := range a.Blocklengths {
				c = satAdd(c, satMul(bl, w.cost(a.Types[i])))
			}
		default: // the indexed family
			oc := w.cost(a.Types[0])
			for i := range a.Displacements {
				bl := a.Blocklength
				if a.Blocklengths != nil {
					bl = a.Blocklengths[i]
				}
				c = satAdd(c, satMul(bl, oc))
			}
		}
	}
	w.costs[t] = c
	return c
}

const satMax = int64(1) << 50

func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > satMax/b {
		return satMax
	}
	return a * b
}

func satAdd(a, b int64) int64 { return min(a+b, satMax) }

// kind is the single basic type of t's elements, or Mixed.
func (w *walker) kind(t *datatype.Type) Kind {
	if k, ok := w.kinds[t]; ok {
		return k
	}
	k := Empty
	merge := func(b Kind) {
		if k == Empty {
			k = b
		} else if k != b {
			k = Mixed
		}
	}
	switch {
	case t.Size() == 0:
	case t.IsPredefined():
		t.Walk(1, func(b datatype.Basic, _ int64) bool { merge(Kind(b)); return true })
	case t.Lower() != nil:
		k = w.kind(t.Lower())
	default:
		a := t.Args()
		for i, c := range a.Types {
			if a.Blocklengths != nil && i < len(a.Blocklengths) && a.Blocklengths[i] == 0 && t.Combiner().Shape() == datatype.ShapeStruct {
				continue
			}
			if ck := w.kind(c); ck != Empty {
				merge(ck)
			}
		}
	}
	w.kinds[t] = k
	return k
}

// rep deposits n instances of t at base, base+stride, ..., each weighted
// by weight (the number of real instances a sampled one stands for).
func (w *walker) rep(t *datatype.Type, base, n, stride int64, weight float64) {
	if n <= 0 || t.Size() == 0 {
		return
	}
	p := w.p
	if n > 1 && (absI(stride) < p.CellBytes && (p.CellBytes > 1 || n > maxReps)) || w.budget <= 0 {
		// Denser than a cell (or out of budget): spread evenly.
		a, b := base+t.TrueLB(), base+t.TrueUB()
		last := base + (n-1)*stride
		a, b = min(a, last+t.TrueLB()), max(b, last+t.TrueUB())
		if w.budget <= 0 {
			w.exhausted = true
		}
		w.spread(a, b, float64(n)*weight*float64(t.Size()), w.kind(t))
		return
	}
	if s := w.samples(t, n, stride, weight); s < n {
		w.sampled = true
		wt := weight * float64(n) / float64(s)
		for j := int64(0); j < s; j++ {
			i := j * n / s
			w.visit(t, base+i*stride, wt)
		}
		return
	}
	if t.IsContiguous() && stride == t.Size() && t.Extent() == t.Size() && w.kind(t) >= 0 {
		lo, _ := t.DataBounds()
		w.run(base+lo, n*t.Size(), datatype.Basic(w.kind(t)), weight)
		return
	}
	for i := int64(0); i < n; i++ {
		w.visit(t, base+i*stride, weight)
	}
}

// visit deposits one instance of t at base.
func (w *walker) visit(t *datatype.Type, base int64, weight float64) {
	if t.Size() == 0 {
		return
	}
	w.budget--
	p := w.p
	start := w.packed
	total := float64(t.Size()) * weight
	if w.budget <= 0 || (p.CellBytes > 1 && t.TrueExtent() <= p.CellBytes) {
		if w.budget <= 0 {
			w.exhausted = true
		}
		w.spread(base+t.TrueLB(), base+t.TrueUB(), total, w.kind(t))
		return
	}
	if t.IsContiguous() && w.kind(t) >= 0 {
		lo, _ := t.DataBounds()
		w.run(base+lo, t.Size(), datatype.Basic(w.kind(t)), weight)
		return
	}
	defer func() {
		// Out of budget inside: spread what is left of this instance.
		if w.budget <= 0 {
			if rest := total - (w.packed - start); rest > 0.5 {
				w.exhausted = true
				w.spread(base+t.TrueLB(), base+t.TrueUB(), rest, w.kind(t))
			}
		}
	}()
	a := t.Args()
	switch t.Combiner().Shape() {
	case datatype.ShapeNamed:
		if b, ok := t.Basic(); ok {
			w.run(base, b.Size(), b, weight)
			return
		}
		t.Walk(1, func(b datatype.Basic, d int64) bool {
			w.run(base+d, b.Size(), b, weight)
			return true
		})
	case datatype.ShapeLowered:
		w.visit(t.Lower(), base, weight)
	case datatype.ShapeResized:
		w.visit(a.Types[0], base, weight)
	case datatype.ShapeStrided:
		old := a.Types[0]
		count, blk, sb, _ := t.Strided()
		if count == 1 {
			w.rep(old, base, blk, old.Extent(), weight)
			return
		}
		if s := w.samples(old, count, sb, weight); count > 1 && absI(sb) < p.CellBytes && p.CellBytes > 1 || s < count {
			// Sample the blocks as instances of one block.
			if s < count && absI(sb) >= p.CellBytes {
				w.sampled = true
				wt := weight * float64(count) / float64(s)
				for j := int64(0); j < s && w.budget > 0; j++ {
					i := j * count / s
					w.rep(old, base+i*sb, blk, old.Extent(), wt)
				}
				return
			}
			w.spread(base+t.TrueLB(), base+t.TrueUB(), total, w.kind(t))
			return
		}
		for i := int64(0); i < count && w.budget > 0; i++ {
			w.rep(old, base+i*sb, blk, old.Extent(), weight)
		}
	case datatype.ShapeBlocks:
		old := a.Types[0]
		scale := t.BlockUnit()
		for i, d := range a.Displacements {
			if w.budget <= 0 {
				return
			}
			bl := a.Blocklength
			if a.Blocklengths != nil {
				bl = a.Blocklengths[i]
			}
			w.rep(old, base+d*scale, bl, old.Extent(), weight)
		}
	case datatype.ShapeStruct:
		for i, d := range a.Displacements {
			if w.budget <= 0 {
				return
			}
			old := a.Types[i]
			w.rep(old, base+d, a.Blocklengths[i], old.Extent(), weight)
		}
	}
}

// run deposits an exact run of n bytes of basic type b at off.
func (w *walker) run(off, n int64, b datatype.Basic, weight float64) {
	if weight != 1 {
		w.exact = false
		w.collect = false
	}
	if w.collect {
		if k := len(w.runs); k > 0 && w.runs[k-1].Basic == b && w.runs[k-1].Off+w.runs[k-1].Len == off {
			w.runs[k-1].Len += n
		} else if k >= MaxRuns {
			w.collect = false
			w.runs = nil
		} else {
			w.runs = append(w.runs, Run{Off: off, Len: n, Packed: int64(w.packed), Basic: b})
		}
	}
	w.deposit(off, off+n, float64(n)*weight, Kind(b))
}

// spread deposits mass bytes of kind k evenly over [a, b).
func (w *walker) spread(a, b int64, mass float64, k Kind) {
	w.exact = false
	w.collect = false
	w.runs = nil
	w.deposit(a, b, mass, k)
}

func (w *walker) deposit(a, b int64, mass float64, k Kind) {
	p := w.p
	start := w.packed
	w.packed += mass
	w.stream(start, mass, k)
	if b <= a || mass <= 0 {
		return
	}
	density := mass / float64(b-a)
	a0 := a
	a, b = max(a, p.Lo), min(b, p.Hi)
	if b <= a {
		return
	}
	ra := (a - p.Lo) / p.RowBytes
	rb := (b - 1 - p.Lo) / p.RowBytes
	seg := func(mrow, x0, x1 int64) { // bytes [x0, x1) of memory row mrow
		r := int(mrow / p.RowsPerCell)
		for c := x0 / p.CellBytes; c*p.CellBytes < x1; c++ {
			c0, c1 := max(x0, c*p.CellBytes), min(x1, (c+1)*p.CellBytes)
			first := start + float64(p.Lo+mrow*p.RowBytes+c0-a0)*density
			w.add(r, int(c), float64(c1-c0)*density, k, first)
		}
	}
	if ra == rb {
		seg(ra, a-p.Lo-ra*p.RowBytes, b-p.Lo-ra*p.RowBytes)
		return
	}
	seg(ra, a-p.Lo-ra*p.RowBytes, p.RowBytes)
	// Whole rows ra+1 .. rb-1, grouped by row of cells.
	for m := ra + 1; m < rb; {
		r := m / p.RowsPerCell
		end := min(rb, (r+1)*p.RowsPerCell)
		nrows := float64(end - m)
		for c := int64(0); c < int64(p.Cols); c++ {
			c0, c1 := c*p.CellBytes, min((c+1)*p.CellBytes, p.RowBytes)
			first := start + float64(p.Lo+m*p.RowBytes+c0-a0)*density
			w.add(int(r), int(c), nrows*float64(c1-c0)*density, k, first)
		}
		m = end
	}
	seg(rb, 0, b-p.Lo-rb*p.RowBytes)
}

func (w *walker) add(r, c int, bytes float64, k Kind, first float64) {
	w.budget--
	p := w.p
	if r < 0 || r >= p.Rows || c < 0 || c >= p.Cols {
		return
	}
	cell := &p.Cells[r*p.Cols+c]
	cell.Bytes += bytes
	cell.Kind = mergeKind(cell.Kind, k)
	if first < cell.First {
		cell.First = first
	}
}

// stream records mass packed bytes of kind k at packed position start.
func (w *walker) stream(start, mass float64, k Kind) {
	p := w.p
	bin := float64(p.StreamBin)
	for x := start; x < start+mass && mass > 0; {
		i := int(x / bin)
		if i >= len(p.Stream) {
			return
		}
		end := min(start+mass, float64(i+1)*bin)
		c := &p.Stream[i]
		c.Bytes += end - x
		c.Kind = mergeKind(c.Kind, k)
		w.budget--
		x = end
	}
}

func mergeKind(have, k Kind) Kind {
	if have == Empty {
		return k
	}
	if have != k {
		return Mixed
	}
	return have
}
