package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/cmd/ddt/internal/bench"
)

func init() {
	register(&command{name: "bench",
		args:    "[--type TYPE [--count N]] [--engine E] [--threads N] [--filter PREFIXES] [--time D] [--rounds N] [--mem MiB] [--json] | --list | --mpipack [-f PREFIXES] | --fig N [--filter PREFIXES] [--sizes S,M,L]",
		summary: "run the benchmark suite (DDTBench layouts, the mpipack anchors, the DAME paper's transpose) or one type: pack/unpack GB/s per engine vs a hand-written loop and copy; --fig 14|15|16|17 reproduces seed 003's figure (sorting, optimisation levels, aligned vs unaligned, reuses to pay back native code)",
		run:     runBench})
	register(&command{name: "dame", args: "TYPE", summary: "print the committed type as a DAME program (seed 003)", run: runDame})
}

func runBench(e *env, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	typ := fs.String("type", "", "benchmark only this .ddt type")
	count := fs.Int64("count", 1, "instances of --type (only with --type)")
	threads := fs.Int("threads", 0, "goroutines per message (ddt.Options.Threads: 0 automatic, 1 one)")
	engine := fs.String("engine", "", "only this engine (reference, interpreter, compiled, native, auto)")
	asJSON := fs.Bool("json", false, "print one JSON report at the end (every figure, median and best round) instead of the table")
	filter := fs.String("filter", "", "only layouts whose name starts with one of these comma-separated prefixes (see --list)")
	list := fs.Bool("list", false, "list the layouts of the suite (with --filter, those it keeps) and exit")
	sample := fs.Duration("time", 10*time.Millisecond, "minimum time of one sample of a cell")
	rounds := fs.Int("rounds", 5, "samples per cell; the table shows their median, --json also the best")
	mem := fs.Int64("mem", bench.DefaultMaxMem>>20, "memory bound in MiB for one layout's buffers: the suite skips larger layouts, --type larger types are an error")
	mpipack := fs.Bool("mpipack", false, "run the layouts of anchors/mpipack/mpipack.c and print its R lines")
	prefixes := fs.String("f", "", "with --mpipack: comma-separated case-id prefixes (as mpipack -f)")
	fig := fs.Int("fig", 0, "reproduce seed 003's figure 14 (displacement sorting), 15 (optimisation levels), 16 (aligned vs unaligned buffers) or 17 (reuses that pay back native code); with --filter, --sizes, --time (default 5ms), --rounds, --mem")
	sizes := fs.String("sizes", "S,M", "with --fig 15-17: the layout sizes to measure (comma-separated S, M, L)")
	pos, err := parse(e, lookup("bench"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 0, ""); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["count"] && *typ == "" {
		return &usageError{"--count needs --type (the suite's layouts have their own counts)"}
	}
	if *rounds < 1 || *rounds > 1000 {
		return &usageError{fmt.Sprintf("--rounds %d is not in [1, 1000]", *rounds)}
	}
	if *sample <= 0 || *sample > time.Minute {
		return &usageError{fmt.Sprintf("--time %v is not in (0, 1m]", *sample)}
	}
	if *mem < 1 || *mem > 1<<30 {
		return &usageError{fmt.Sprintf("--mem %d is not a positive number of MiB", *mem)}
	}
	if *list {
		return bench.List(e.stdout, *filter)
	}
	if set["fig"] {
		if !slices.Contains(bench.Figures, *fig) {
			return &usageError{fmt.Sprintf("--fig %d: the figures are 14, 15, 16 and 17", *fig)}
		}
		if set["type"] || set["engine"] || set["json"] || set["mpipack"] || set["threads"] {
			return &usageError{"--fig takes only --filter, --sizes, --time, --rounds and --mem"}
		}
		fo := bench.FigOptions{Filter: *filter, Sizes: *sizes, Rounds: *rounds, MaxMem: *mem << 20}
		if set["time"] {
			fo.Sample = *sample
		}
		return bench.Figure(e.stdout, *fig, fo)
	}
	var engines []ddt.Engine
	if *engine != "" {
		en, err := ddt.ParseEngine(*engine)
		if err != nil {
			return &usageError{err.Error()}
		}
		engines = append(engines, en)
	}
	if *mpipack {
		return bench.RunMPIPack(e.stdout, *prefixes, engines...)
	}
	if *threads < 0 {
		return &usageError{fmt.Sprintf("--threads %d is negative", *threads)}
	}
	opts := bench.Options{JSON: *asJSON, Engines: engines, Threads: *threads, Filter: *filter, Sample: *sample, Rounds: *rounds,
		MaxMem: *mem << 20, Log: e.stderr}
	if isTerminal(e.stderr) {
		opts.Progress = e.stderr
	}
	if *typ != "" {
		if err := nonNegative("--count", *count); err != nil {
			return err
		}
		t, err := loadType(e, *typ)
		if err != nil {
			return err
		}
		opts.Type, opts.Count = t, *count
	}
	return bench.Run(e.stdout, opts)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func runDame(e *env, args []string) error {
	t, err := typeArg(e, "dame", flag.NewFlagSet("dame", flag.ContinueOnError), args, nil)
	if err != nil {
		return err
	}
	c, err := ddt.Commit(t)
	if err != nil {
		return err
	}
	s := c.Program().String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err = io.WriteString(e.stdout, s)
	return err
}
