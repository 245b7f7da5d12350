package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/cmd/ddt/internal/sigexp"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

func init() {
	register(&command{name: "sig", args: "TYPE... [--count N] | --experiment",
		summary: "print HASH ELEMENTS FILE, the signature hash of N instances of each type (seed 004); --experiment reproduces seed 004 Table 1",
		run:     runSig})
	showExtra = func(w io.Writer, t *datatype.Type) {
		c, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Reference})
		if err != nil {
			return // unreachable: t is not nil
		}
		fmt.Fprintf(w, "signature: %s\n", sig.Format(c.Signature()))
	}
}

func runSig(e *env, args []string) error {
	fs := flag.NewFlagSet("sig", flag.ContinueOnError)
	count := fs.Int64("count", 1, "number of instances")
	exp := fs.Bool("experiment", false, "reproduce seed 004 Table 1 for the paper's operators and ours")
	pos, err := parse(e, lookup("sig"), fs, args)
	if err != nil {
		return err
	}
	if *exp {
		if len(pos) > 0 {
			return &usageError{"--experiment takes no TYPE"}
		}
		return sigexp.RunExperiment(e.stdout)
	}
	if err := wantArgs(pos, 1, -1, "TYPE"); err != nil {
		return err
	}
	if *count < 0 {
		return &usageError{fmt.Sprintf("negative --count %d", *count)}
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	for _, p := range pos {
		t, err := loadType(e, p)
		if err != nil {
			return err
		}
		// the signature of the committed type, as a send computes it
		c, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Reference})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		s, err := c.MessageSignature(*count)
		if err != nil {
			return fmt.Errorf("%s: %d instances of %d elements: %w", p, *count, c.Signature().N, err)
		}
		fmt.Fprintf(w, "%s %d %s\n", sig.Format(s), s.N, p)
	}
	return nil
}
