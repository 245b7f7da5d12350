package main

import (
	"flag"
	"io"
	"slices"

	"github.com/ddtlab/ddt"
)

// `ddt dame --plan TYPE [--engine E]` prints the committed type's plan:
// the engine engine.Select chose and why, then its kernel per primitive
// (Committed.Plan). This file wraps the dame command after dame_asm.go
// (it sorts after it, so its init runs later).
func init() {
	c := lookup("dame")
	inner := c.run
	c.args += " [--plan [--engine E]]"
	c.run = func(e *env, args []string) error {
		if !slices.ContainsFunc(args, func(a string) bool { return a == "--plan" || a == "-plan" }) {
			return inner(e, args)
		}
		fs := flag.NewFlagSet("dame", flag.ContinueOnError)
		fs.Bool("plan", false, "print the engine chosen, why, and its plan instead of the program")
		name := fs.String("engine", "auto", "`engine` of the plan: auto, reference, interpreter, compiled or native")
		t, err := typeArg(e, "dame", fs, args, nil)
		if err != nil {
			return err
		}
		en, err := ddt.ParseEngine(*name)
		if err != nil {
			return err
		}
		ct, err := ddt.CommitWith(t, ddt.Options{Engine: en})
		if err != nil {
			return err
		}
		_, err = io.WriteString(e.stdout, ct.Plan())
		return err
	}
}
