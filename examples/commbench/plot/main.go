// Command plot turns the R lines of examples/commbench (Go, under Open MPI
// and MPICH) and of its C baseline into a Markdown table and an SVG bar
// chart of the speedup of ddt packing over native MPI datatypes per
// layout (seed 003, Fig. 10).
//
//	go run ./examples/commbench/plot -svg bench/commbench.svg go-ompi.tsv go-mpich.tsv c-ompi.tsv c-mpich.tsv > table.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// key identifies one measurement.
type key struct{ lib, layout, size, method string }

type data struct {
	us      map[key]float64
	bytes   map[[2]string]int64 // layout, size
	layouts []string            // in order of appearance
	sizes   []string
	libs    []string // Go transports' libraries
}

func read(files []string) (*data, error) {
	d := &data{us: map[key]float64{}, bytes: map[[2]string]int64{}}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			r := strings.Split(sc.Text(), "\t")
			if len(r) != 7 || r[0] != "R" {
				continue
			}
			us, err1 := strconv.ParseFloat(r[6], 64)
			n, err2 := strconv.ParseInt(r[4], 10, 64)
			if err1 != nil || err2 != nil {
				fh.Close()
				return nil, fmt.Errorf("%s: bad line %q", f, sc.Text())
			}
			d.us[key{r[1], r[2], r[3], r[5]}] = us
			d.bytes[[2]string{r[2], r[3]}] = n
			if !slices.Contains(d.layouts, r[2]) {
				d.layouts = append(d.layouts, r[2])
			}
			if !slices.Contains(d.sizes, r[3]) {
				d.sizes = append(d.sizes, r[3])
			}
			if !strings.HasSuffix(r[1], "(C)") && !slices.Contains(d.libs, r[1]) {
				d.libs = append(d.libs, r[1])
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func cell(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// table writes one Markdown table per MPI library.
func (d *data) table(w io.Writer) {
	for _, lib := range d.libs {
		fmt.Fprintf(w, "### %s\n\nµs per round trip (median of 5 interleaved batches); speedup = mpi-datatype / ddt-pack.\n\n", lib)
		fmt.Fprintln(w, "| layout | size | bytes | mpi-datatype | ddt-pack | comm-packed | manual | bytes | c-bytes | C: mpi-datatype | C: MPI_Pack | C: bytes | speedup |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, s := range d.sizes {
			for _, l := range d.layouts {
				n, ok := d.bytes[[2]string{l, s}]
				if !ok {
					continue
				}
				get := func(lib, m string) (float64, bool) { v, ok := d.us[key{lib, l, s, m}]; return v, ok }
				row := []string{l, s, strconv.FormatInt(n, 10)}
				for _, m := range []string{"mpi-datatype", "ddt-pack", "comm-packed", "manual", "bytes", "c-bytes"} {
					row = append(row, cell(get(lib, m)))
				}
				for _, m := range []string{"mpi-datatype", "mpi-pack", "bytes"} {
					row = append(row, cell(get(lib+" (C)", m)))
				}
				nat, ok1 := get(lib, "mpi-datatype")
				pk, ok2 := get(lib, "ddt-pack")
				row = append(row, cell(nat/pk, ok1 && ok2 && pk > 0))
				fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			}
		}
		fmt.Fprintln(w)
	}
}

// svg draws, per layout, one bar per (library, size): the speedup of
// ddt-pack over mpi-datatype on a log scale, 1× marked.
func (d *data) svg(w io.Writer) {
	type bar struct {
		label string
		v     float64
	}
	var series []string
	for _, lib := range d.libs {
		for _, s := range d.sizes {
			series = append(series, lib+" "+s)
		}
	}
	colors := []string{"#9ecae1", "#3182bd", "#08519c", "#fdae6b", "#e6550d", "#a63603"}
	const left, top, plotH, barW, gap = 60, 40, 300, 9, 14
	groupW := len(series)*barW + gap
	width := left + len(d.layouts)*groupW + 20
	height := top + plotH + 130
	lo, hi := 0.25, 16.0
	for _, l := range d.layouts {
		for _, lib := range d.libs {
			for _, s := range d.sizes {
				nat, ok1 := d.us[key{lib, l, s, "mpi-datatype"}]
				pk, ok2 := d.us[key{lib, l, s, "ddt-pack"}]
				if ok1 && ok2 && pk > 0 {
					lo, hi = min(lo, nat/pk), max(hi, nat/pk)
				}
			}
		}
	}
	lo, hi = math.Pow(2, math.Floor(math.Log2(lo))), math.Pow(2, math.Ceil(math.Log2(hi)))
	y := func(v float64) float64 {
		return top + plotH - plotH*(math.Log2(v)-math.Log2(lo))/(math.Log2(hi)-math.Log2(lo))
	}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(w, `<text x="%d" y="20" font-size="14">Speedup of ddt packing + contiguous send over native MPI datatypes (ping-pong, 2 ranks, one node)</text>`+"\n", left)
	for v := lo; v <= hi*1.001; v *= 2 {
		fmt.Fprintf(w, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>`+"\n", left, width-20, y(v), y(v), map[bool]string{true: "#000", false: "#ddd"}[v == 1])
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%g×</text>`+"\n", left-5, y(v)+4, v)
	}
	for i, l := range d.layouts {
		x0 := left + i*groupW + gap/2
		for j, se := range series {
			var lib, s string
			for _, li := range d.libs {
				if strings.HasPrefix(se, li+" ") {
					lib, s = li, strings.TrimPrefix(se, li+" ")
				}
			}
			nat, ok1 := d.us[key{lib, l, s, "mpi-datatype"}]
			pk, ok2 := d.us[key{lib, l, s, "ddt-pack"}]
			if !ok1 || !ok2 || pk <= 0 {
				continue
			}
			v := nat / pk
			y0, y1 := y(1), y(v)
			fmt.Fprintf(w, `<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"><title>%s %s: %.2f×</title></rect>`+"\n",
				x0+j*barW, min(y0, y1), barW-1, math.Abs(y1-y0), colors[j%len(colors)], l, se, v)
		}
		fmt.Fprintf(w, `<text transform="translate(%d,%d) rotate(45)">%s</text>`+"\n", x0+groupW/2-gap/2, top+plotH+12, l)
	}
	for j, se := range series {
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			left+j*150, height-16, colors[j%len(colors)], left+j*150+14, height-7, se)
	}
	fmt.Fprintln(w, "</svg>")
}

func main() {
	svgFile := flag.String("svg", "", "write the SVG chart here")
	flag.Parse()
	d, err := read(flag.Args())
	if err != nil {
		log.Fatal(err)
	}
	if len(d.us) == 0 {
		log.Fatal("no R lines in the input")
	}
	d.table(os.Stdout)
	if *svgFile != "" {
		f, err := os.Create(*svgFile)
		if err != nil {
			log.Fatal(err)
		}
		d.svg(f)
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
