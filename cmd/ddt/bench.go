package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/internal/bench"
)

func init() {
	register(&command{name: "bench", args: "[--type TYPE --count N] [--engine E] [--json] [--filter PREFIX] | --mpipack -f PREFIXES",
		summary: "run the benchmark suite (DDTBench layouts, the seeds' examples) or one layout: pack/unpack MB/s per engine vs a hand-written loop and copy",
		run:     runBench})
	register(&command{name: "dame", args: "TYPE", summary: "print the committed type as a DAME program (seed 003)", run: runDame})
}

func runBench(e *env, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	typ := fs.String("type", "", "benchmark only this .ddt type")
	count := fs.Int64("count", 1, "instances of --type")
	engine := fs.String("engine", "", "only this engine (reference, interpreter, compiled)")
	asJSON := fs.Bool("json", false, "print JSON rows instead of the table")
	filter := fs.String("filter", "", "only layouts whose name starts with this")
	mpipack := fs.Bool("mpipack", false, "run the layouts of anchors/mpipack/mpipack.c and print its R lines")
	prefixes := fs.String("f", "", "with --mpipack: comma-separated case-id prefixes (as mpipack -f)")
	pos, err := parse(e, lookup("bench"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 0, ""); err != nil {
		return err
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
	opts := bench.Options{JSON: *asJSON, Engines: engines, Filter: *filter}
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

func runDame(e *env, args []string) error {
	t, err := typeArg(e, "dame", flag.NewFlagSet("dame", flag.ContinueOnError), args, nil)
	if err != nil {
		return err
	}
	if !ddt.Compilable(t) {
		return errNotCompilable
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

// errNotCompilable is the error of dame for types ddt.Compilable refuses.
var errNotCompilable = errors.New("the type shares subtypes so much that its program would be exponentially larger than its description; it is not compiled (the reference engine packs it)")
