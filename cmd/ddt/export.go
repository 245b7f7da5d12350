package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/ddtlab/ddt/lang"
)

func init() {
	register(&command{name: "export", args: "--lang c TYPE", summary: "print the MPI C calls that build the type", run: runExport})
}

func runExport(e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	lng := fs.String("lang", "c", "output language (c)")
	name := fs.String("name", "newtype", "name of the C variable that holds the type")
	t, err := typeArg(e, "export", fs, args, func() error {
		if *lng != "c" {
			return &usageError{fmt.Sprintf("unsupported --lang %q (supported: c)", *lng)}
		}
		return nil
	})
	if err != nil {
		return err
	}
	out, err := lang.ExportC(t, *name)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, out)
	return err
}
