package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ddtlab/ddt/lang"
)

func init() {
	register(&command{name: "export", args: "--lang c TYPE", summary: "print the MPI C calls that build the type", run: runExport})
}

func runExport(e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	lng := fs.String("lang", "c", "output `language`: c (any case)")
	name := fs.String("name", "newtype", "`name` of the C variable that holds the type")
	t, err := typeArg(e, "export", fs, args, func(string) error {
		switch strings.ToLower(*lng) {
		case "c":
			return nil
		}
		return &usageError{fmt.Sprintf("unsupported --lang %q (supported: c)", clipMsg(*lng))}
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
