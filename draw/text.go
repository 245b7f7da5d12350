package draw

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// Letters assigns each basic type of the picture a letter for Text: the
// first letter of its name not yet taken, else its upper case, else a
// digit.
func (p *Picture) Letters() map[datatype.Basic]byte {
	m := map[datatype.Basic]byte{}
	used := map[byte]bool{'.': true, '*': true, '#': true}
	for _, b := range p.Basics {
		name := b.String()
		var pick byte
		for _, cand := range []string{name, strings.ToUpper(name), "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"} {
			for i := 0; i < len(cand) && pick == 0; i++ {
				ch := cand[i]
				if (ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') && !used[ch] {
					pick = ch
				}
			}
			if pick != 0 {
				break
			}
		}
		used[pick] = true
		m[b] = pick
	}
	return m
}

// runDigits numbers runs 1-9, a-z, A-Z in text pictures.
const runDigits = "123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Text writes the picture for a terminal: one character per cell (the
// basic type's letter, '.' for a gap, '*' for mixed types, '#' where
// blocks overlap), a row of run numbers under each row showing the order
// of the packed stream when the runs are few, then the bounds and the
// runs. It suits small types; large ones are aggregated as for SVG.
func (p *Picture) Text(w io.Writer, title string) error {
	bw := bufio.NewWriter(w)
	t := p.Type
	letters := p.Letters()
	if title != "" {
		fmt.Fprintf(bw, "%s\n", title)
	}
	fmt.Fprintf(bw, "size %d  extent %d  lb %d  ub %d  true_lb %d  true_ub %d  count %d  packed %d B\n",
		t.Size(), t.Extent(), t.LB(), t.UB(), t.TrueLB(), t.TrueUB(), p.Count, p.PackedBytes)
	unit := fmt.Sprintf("%d byte", p.CellBytes)
	if p.CellBytes > 1 {
		unit += "s"
	}
	if p.RowsPerCell > 1 {
		unit += fmt.Sprintf(" x %d rows", p.RowsPerCell)
	}
	fmt.Fprintf(bw, "one character = %s, %d bytes per row", unit, p.RowBytes)
	if p.Note != "" && !strings.HasPrefix(p.Note, "aggregated") {
		fmt.Fprintf(bw, "; %s", p.Note)
	}
	fmt.Fprintln(bw)
	var legend []string
	for _, b := range p.Basics {
		legend = append(legend, fmt.Sprintf("%c %s", letters[b], b))
	}
	legend = append(legend, ". gap", "* mixed", "# overlap")
	fmt.Fprintf(bw, "legend: %s\n", strings.Join(legend, "  "))

	// Which run covers each cell, when runs are few enough to number.
	var runOf []int
	if p.Runs != nil && len(p.Runs) <= len(runDigits) && p.RowsPerCell == 1 {
		runOf = make([]int, len(p.Cells))
		for i := range runOf {
			runOf[i] = -1
		}
		for i, r := range p.Runs {
			for x := max(r.Off, p.Lo); x < r.Off+r.Len && x < p.Hi; {
				off := x - p.Lo
				col := off % p.RowBytes / p.CellBytes
				k := int(off/p.RowBytes)*p.Cols + int(col)
				if k < len(runOf) && runOf[k] < 0 {
					runOf[k] = i
				}
				x = min(p.Lo+off/p.RowBytes*p.RowBytes+(col+1)*p.CellBytes, p.Lo+(off/p.RowBytes+1)*p.RowBytes)
			}
		}
	}
	labelW := len(fmt.Sprint(p.Lo + int64(p.Rows-1)*p.RowsPerCell*p.RowBytes))
	labelW = max(labelW, len(fmt.Sprint(p.Lo)))
	line := make([]byte, 0, p.Cols)
	for r := 0; r < p.Rows; r++ {
		if p.PlaneRows > 1 && r > 0 && int64(r)%(p.PlaneRows/p.RowsPerCell) == 0 {
			fmt.Fprintln(bw)
		}
		line = line[:0]
		for c := 0; c < p.Cols; c++ {
			cell := p.Cells[r*p.Cols+c]
			switch {
			case cell.Capacity == 0:
				line = append(line, ' ')
			case cell.Bytes <= 0 || cell.Kind == Empty:
				line = append(line, '.')
			case cell.Coverage() > 1.0001:
				line = append(line, '#')
			case cell.Kind == Mixed:
				line = append(line, '*')
			default:
				line = append(line, letters[datatype.Basic(cell.Kind)])
			}
		}
		fmt.Fprintf(bw, "%*d  %s\n", labelW, p.Lo+int64(r)*p.RowsPerCell*p.RowBytes, strings.TrimRight(string(line), " "))
		if runOf != nil {
			line = line[:0]
			for c := 0; c < p.Cols; c++ {
				if k := runOf[r*p.Cols+c]; k >= 0 {
					line = append(line, runDigits[k])
				} else {
					line = append(line, ' ')
				}
			}
			if s := strings.TrimRight(string(line), " "); s != "" {
				fmt.Fprintf(bw, "%*s  %s\n", labelW, "", s)
			}
		}
	}
	var ms []string
	for _, m := range p.Markers {
		ms = append(ms, fmt.Sprintf("%s=%d", m.Name, m.At))
	}
	fmt.Fprintf(bw, "bounds: %s\n", strings.Join(ms, " "))
	if p.Runs != nil {
		fmt.Fprintf(bw, "packed order (%d runs):", len(p.Runs))
		for i, r := range p.Runs {
			if i == 40 {
				fmt.Fprintf(bw, " ...")
				break
			}
			id := fmt.Sprint(i + 1)
			if runOf != nil {
				id = string(runDigits[i])
			}
			fmt.Fprintf(bw, " %s:%s[%d,%d)", id, r.Basic, r.Off, r.Off+r.Len)
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}
