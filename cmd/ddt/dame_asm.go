package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// `ddt dame --asm TYPE` prints the native code the JIT generates for the
// committed type (internal/engine/jit) instead of the DAME program: for
// this machine's architecture, or for the one --arch names (amd64, arm64:
// either listing is made on any machine). This file
// wraps the dame command registered in bench.go (it sorts after it, so
// its init runs later).
func init() {
	c := lookup("dame")
	plain := c.run
	c.args += " [--asm [--arch amd64|arm64] | --plan]"
	c.run = func(e *env, args []string) error {
		if !slices.ContainsFunc(args, func(a string) bool {
			return a == "--asm" || a == "-asm" || a == "--plan" || a == "-plan" || a == "-h" || a == "--help" || a == "-help" ||
				strings.HasPrefix(a, "--arch") || strings.HasPrefix(a, "-arch")
		}) {
			return plain(e, args)
		}
		fs := flag.NewFlagSet("dame", flag.ContinueOnError)
		fs.Bool("asm", false, "print the generated native code (offsets, bytes, instructions) instead of the program")
		arch := fs.String("arch", "", "with --asm: the architecture of the code, amd64 or arm64 (default: this machine's; amd64 code on others)")
		plan := fs.Bool("plan", false, "print the engine the type runs on, why it was chosen (engine.Select) and its plan instead of the program")
		t, err := typeArg(e, "dame", fs, args, nil)
		if err != nil {
			return err
		}
		if *plan {
			ct, err := ddt.Commit(t)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, ct.Plan())
			return err
		}
		ct, err := ddt.Commit(t)
		if err != nil {
			return err
		}
		var s string
		if *arch != "" {
			s, err = jit.ListingFor(*arch, ct.Program())
		} else {
			s, err = jit.Listing(ct.Program())
		}
		if errors.Is(err, jit.ErrUnsupported) {
			_, err = fmt.Fprintf(e.stdout, "; not compiled (%v): the compiled engine runs this type\n", err)
			return err
		}
		if err != nil {
			return err
		}
		_, err = io.WriteString(e.stdout, s)
		return err
	}
}
