// Command ddt describes, inspects, packs and benchmarks MPI derived
// datatypes written in the .ddt language.
//
// Usage:
//
//	ddt <command> [arguments]
//
// The commands are show, typemap, pack, unpack, export, reconstruct,
// normalize, dame, sig, bench, draw and serve; `ddt <command> -h` describes each. Output
// meant for machines is line-oriented; errors are one line on stderr with
// exit status 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(env *env, args []string) error
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

// env is what a command writes to; tests substitute buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// usageError is a user error whose message is already complete.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(&env{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:]))
}

// run executes one command line and returns the exit status.
func run(e *env, args []string) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "ddt: internal error: %v\n", r)
			status = 1
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stderr)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(e, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			if err != nil {
				msg := strings.ReplaceAll(err.Error(), "\n", "; ")
				fmt.Fprintf(e.stderr, "ddt %s: %s\n", c.name, msg)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(e.stderr, "ddt: unknown command %q (run ddt -h for the list)\n", args[0])
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ddt: MPI derived datatypes: describe, inspect, pack, optimize, benchmark.")
	fmt.Fprintln(w, "\nUsage: ddt <command> [arguments]   (ddt <command> -h for details)")
	fmt.Fprintln(w)
	cs := append([]*command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
}

// parse parses a command's flags, which may come before, between or after
// its positional arguments, and returns the positional arguments.
func parse(e *env, c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	usage := func() {
		fmt.Fprintf(e.stderr, "Usage: ddt %s %s\n\n%s\n", c.name, c.args, c.summary)
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(e.stderr, "\nFlags:")
			fs.SetOutput(e.stderr)
			fs.PrintDefaults()
		}
	}
	fs.Usage = func() {}
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // fs.Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	return pos, nil
}

func wantArgs(pos []string, min, max int, what string) error {
	if len(pos) < min {
		return &usageError{"missing " + what}
	}
	if max >= 0 && len(pos) > max {
		return &usageError{fmt.Sprintf("unexpected argument %q", pos[max])}
	}
	return nil
}
