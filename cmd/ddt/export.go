package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/lang"
)

func init() {
	register(&command{name: "export", args: "--lang c|fortran|python TYPE", summary: "print the MPI calls that build the type (C, Fortran mpi_f08 or Python mpi4py)", run: runExport})
}

func runExport(e *env, args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	lng := fs.String("lang", "c", "output `language`: c, fortran (mpi_f08) or python (mpi4py), any case")
	name := fs.String("name", "newtype", "`name` of the variable that holds the type")
	exporters := map[string]func(*datatype.Type, string) (string, error){
		"c": lang.ExportC, "fortran": lang.ExportFortran, "python": lang.ExportPython,
	}
	t, err := typeArg(e, "export", fs, args, func(string) error {
		if exporters[strings.ToLower(*lng)] != nil {
			return nil
		}
		return &usageError{fmt.Sprintf("unsupported --lang %q (supported: c, fortran, python)", clipMsg(*lng))}
	})
	if err != nil {
		return err
	}
	out, err := exporters[strings.ToLower(*lng)](t, *name)
	if err != nil {
		return err
	}
	_, err = io.WriteString(e.stdout, out)
	return err
}
