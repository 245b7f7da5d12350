//go:build ignore

// Benchratios computes the README's ratios from one run of
// `ddt bench --json`: for every row, the median throughput of the compiled
// engine and of Auto over the hand-written Go loop's (the same row, pack
// and unpack apart), and of Auto over the compiled engine's. It prints
// the ratios per row, their geometric means over all cells and over the
// cells of each layout group (the part of a layout's name before the
// slash), the cells below 1.0, and the range of each ratio per layout.
// Usage, from the repository's root:
//
//	go run ./cmd/ddt bench --json > run.json
//	go run bench/scripts/benchratios.go run.json    # or: ... < run.json
//	go run bench/scripts/benchratios.go run.json run2.json
//
// Given a second run, it also prints how much each ratio over the Go loop
// moved between the two runs, cell by cell (the factor max(a/b, b/a)):
// the median and the largest factors, for cells under 1 MB packed and
// for the others.
//
// A cell is one row and one direction (pack or unpack); a ratio is taken
// only when both throughputs were measured (rows without a hand-written
// loop have no ratio over it).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

type row struct {
	Layout string             `json:"layout"`
	Size   string             `json:"size"`
	Packed int64              `json:"packed_bytes"`
	Pack   map[string]float64 `json:"pack_mbs"`
	Unpack map[string]float64 `json:"unpack_mbs"`
}

type report struct {
	Rounds int   `json:"rounds"`
	Rows   []row `json:"rows"`
}

// A ratio names the two throughputs it divides (engine names as in the
// JSON).
type ratio struct{ label, num, den string }

var ratios = []ratio{
	{"comp/manual", "compiled", "manual"},
	{"auto/manual", "auto", "manual"},
	{"auto/comp", "auto", "compiled"},
}

// acc accumulates the ratios of a set of cells.
type acc struct {
	logSum   float64
	n        int
	min, max float64
}

func (a *acc) add(x float64) {
	if a.n == 0 || x < a.min {
		a.min = x
	}
	if a.n == 0 || x > a.max {
		a.max = x
	}
	a.logSum += math.Log(x)
	a.n++
}

func (a *acc) String() string {
	if a.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (n=%d, %.2f-%.2f)", math.Exp(a.logSum/float64(a.n)), a.n, a.min, a.max)
}

// read decodes the report in the file name ("" for stdin).
func read(name string) report {
	in := io.Reader(os.Stdin)
	if name != "" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchratios:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	var rep report
	if err := json.NewDecoder(in).Decode(&rep); err != nil {
		fmt.Fprintf(os.Stderr, "benchratios: decoding the bench JSON %q: %v\n", name, err)
		os.Exit(1)
	}
	return rep
}

// cellRatio is the ratio r of one cell (op "pack" or "unpack"), and
// whether both throughputs were measured.
func cellRatio(rw row, op string, r ratio) (float64, bool) {
	m := rw.Pack
	if op == "unpack" {
		m = rw.Unpack
	}
	num, den := m[r.num], m[r.den]
	if num <= 0 || den <= 0 {
		return 0, false
	}
	return num / den, true
}

// compare prints how much the ratios over the Go loop moved from run a
// to run b, cell by cell.
func compare(a, b report) {
	type key struct{ layout, size, op string }
	type move struct {
		f    float64
		cell string
	}
	fmt.Println("\nchange between the two runs, per cell: max(a/b, b/a) of the ratio")
	for _, r := range ratios[:2] {
		rb := map[key]float64{}
		for _, rw := range b.Rows {
			for _, op := range []string{"pack", "unpack"} {
				if x, ok := cellRatio(rw, op, r); ok {
					rb[key{rw.Layout, rw.Size, op}] = x
				}
			}
		}
		var small, large []move
		for _, rw := range a.Rows {
			for _, op := range []string{"pack", "unpack"} {
				x, ok := cellRatio(rw, op, r)
				y, ok2 := rb[key{rw.Layout, rw.Size, op}]
				if !ok || !ok2 {
					continue
				}
				f := max(x/y, y/x)
				mv := move{f, fmt.Sprintf("%s %s %s %.2f/%.2f", rw.Layout, rw.Size, op, x, y)}
				if rw.Packed < 1<<20 {
					small = append(small, mv)
				} else {
					large = append(large, mv)
				}
			}
		}
		for _, set := range []struct {
			name string
			m    []move
		}{{"under 1 MB", small}, {"1 MB and more", large}} {
			if len(set.m) == 0 {
				continue
			}
			sort.Slice(set.m, func(i, j int) bool { return set.m[i].f < set.m[j].f })
			med := set.m[len(set.m)/2].f
			if len(set.m)%2 == 0 {
				med = (set.m[len(set.m)/2-1].f + set.m[len(set.m)/2].f) / 2
			}
			top := set.m[len(set.m)-1]
			fmt.Printf("  %-12s %-14s %3d cells: median %.2f, largest %.2f (%s)\n", r.label, set.name, len(set.m), med, top.f, top.cell)
		}
	}
}

func main() {
	name := ""
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	rep := read(name)
	defer func() {
		if len(os.Args) > 2 {
			compare(rep, read(os.Args[2]))
		}
	}()

	all := make([]acc, len(ratios))
	groups := map[string][]acc{}
	layouts := map[string][]acc{}
	var order []string // layouts in the run's order
	below := make([][]string, len(ratios))

	fmt.Printf("%d rows, %d round(s); per row: pack and unpack\n", len(rep.Rows), rep.Rounds)
	fmt.Printf("%-24s %-4s", "layout", "size")
	for _, r := range ratios {
		fmt.Printf(" | %-13s", r.label)
	}
	fmt.Println()
	for _, rw := range rep.Rows {
		g, _, _ := strings.Cut(rw.Layout, "/")
		if groups[g] == nil {
			groups[g] = make([]acc, len(ratios))
		}
		if layouts[rw.Layout] == nil {
			layouts[rw.Layout] = make([]acc, len(ratios))
			order = append(order, rw.Layout)
		}
		fmt.Printf("%-24s %-4s", rw.Layout, rw.Size)
		for i, r := range ratios {
			fmt.Print(" |")
			for _, op := range []string{"pack", "unpack"} {
				x, ok := cellRatio(rw, op, r)
				if !ok {
					fmt.Printf(" %6s", "-")
					continue
				}
				fmt.Printf(" %6.2f", x)
				all[i].add(x)
				groups[g][i].add(x)
				layouts[rw.Layout][i].add(x)
				if x < 1 {
					below[i] = append(below[i], fmt.Sprintf("%s %s %s %.2f", rw.Layout, rw.Size, op, x))
				}
			}
		}
		fmt.Println()
	}

	fmt.Println("\ngeometric mean (cells, min-max):")
	for i, r := range ratios {
		fmt.Printf("  %-12s all %s\n", r.label, &all[i])
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		for i, r := range ratios {
			fmt.Printf("  %-12s %-8s %s\n", r.label, g, &groups[g][i])
		}
	}
	fmt.Println("\nper layout (geometric mean, cells, min-max):")
	for _, l := range order {
		fmt.Printf("  %-24s", l)
		for i, r := range ratios {
			fmt.Printf(" %s %s;", r.label, &layouts[l][i])
		}
		fmt.Println()
	}
	for i, r := range ratios {
		fmt.Printf("\n%s below 1.0 (%d): %s\n", r.label, len(below[i]), strings.Join(below[i], ", "))
	}
}
