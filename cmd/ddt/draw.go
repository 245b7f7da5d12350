package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/ddtlab/ddt/draw"
)

func init() {
	register(&command{name: "draw", args: "TYPE [--count N] [-o OUT.svg] [--text] [--width BYTES]",
		summary: "draw the memory image of N instances as SVG (or --text): bytes by basic type, gaps, bounds, packed order",
		run:     runDraw})
}

func runDraw(e *env, args []string) error {
	fs := flag.NewFlagSet("draw", flag.ContinueOnError)
	count := fs.Int64("count", 1, "number of instances, instance i shifted by i*extent")
	out := fs.String("o", "", "write the SVG to this file instead of stdout")
	text := fs.Bool("text", false, "print a terminal picture (one character per element) instead of SVG")
	width := fs.Int64("width", 0, "bytes per row (default: the row of the innermost vector or subarray)")
	cols := fs.Int("cols", 0, "most cells per row before bytes are aggregated (default 128, 96 with --text)")
	rows := fs.Int("rows", 0, "most rows of cells before rows are aggregated (default 128, 64 with --text)")
	title := fs.String("title", "", "title of the picture (default: the file name)")
	pos, err := parse(e, lookup("draw"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, 1, "TYPE"); err != nil {
		return err
	}
	if err := nonNegative("--count", *count); err != nil {
		return err
	}
	if err := nonNegative("--width", *width); err != nil {
		return err
	}
	if *cols < 0 || *cols > 4096 {
		return &usageError{fmt.Sprintf("--cols %d outside [0, 4096]", *cols)}
	}
	if *rows < 0 || *rows > 4096 {
		return &usageError{fmt.Sprintf("--rows %d outside [0, 4096]", *rows)}
	}
	path := pos[0]
	t, err := loadType(e, path)
	if err != nil {
		return err
	}
	if *title == "" {
		*title = path
		if path == "-" {
			*title = "stdin"
		}
		if *count != 1 {
			*title = fmt.Sprintf("%s, count %d", *title, *count)
		}
	}
	if *count == 0 {
		return &usageError{"--count 0: nothing to draw"}
	}
	opts := draw.Options{Count: *count, Width: *width, MaxCols: *cols, MaxRows: *rows}
	if *text {
		opts.CellBytes = draw.Granule(t)
		if opts.MaxCols == 0 {
			opts.MaxCols = 96
		}
		if opts.MaxRows == 0 {
			opts.MaxRows = 64
		}
	}
	p, err := draw.Layout(t, opts)
	if err != nil {
		return err
	}
	w := e.stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	if *text {
		err = p.Text(bw, *title)
	} else {
		err = p.SVG(bw, draw.SVGOptions{Title: *title})
	}
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
