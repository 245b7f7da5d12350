// Command ddt describes, inspects, packs and benchmarks MPI derived
// datatypes written in the .ddt language.
//
// Usage:
//
//	ddt <command> [arguments]
//
// `ddt -h` lists the commands and `ddt <command> -h` describes each. Output
// meant for machines is line-oriented. An error is one line on stderr; the
// exit status is 0 on success, 1 when the command failed (bad input file,
// buffer too small, ...) and 2 for a usage error (unknown command or flag,
// missing argument).
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

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and failed
	exitUsage = 2 // the command line is wrong
)

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(env *env, args []string) error
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

// env is what a command reads and writes; tests substitute buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// usageError is an error in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	setMemoryLimit()
	os.Exit(run(&env{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:]))
}

// seeds are the papers the help cites as "seed NNN".
var seeds = []struct{ id, ref string }{
	{"seed 000", "Ganian, Kalany, Szeider, Träff: Polynomial-time Construction of\n            Optimal MPI Derived Datatype Trees (IPDPS 2016)"},
	{"seed 001", "the same authors: Polynomial-time Construction of Optimal\n            Tree-structured Communication Data Layout Descriptions"},
	{"seed 002", "Gropp, Lusk, Swider: Improving the Performance of MPI Derived\n            Datatypes (MPIDC 1999)"},
	{"seed 003", "Prabhu, Gropp: DAME: Runtime-compilation for data movement\n            (IJHPCA 2017)"},
	{"seed 004", "Gropp: Runtime Checking of Datatype Signatures in MPI\n            (EuroPVM/MPI 2000)"},
}

// printSeeds prints the references of the seeds text cites, or of all
// seeds if text is "".
func printSeeds(w io.Writer, text string) {
	first := true
	for _, s := range seeds {
		if text != "" && !strings.Contains(text, s.id) {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nThe seeds are the papers ddt implements:")
			first = false
		}
		fmt.Fprintf(w, "  %s  %s\n", s.id, s.ref)
	}
}

// run executes one command line and returns the exit status.
func run(e *env, args []string) (status int) {
	name := "ddt"
	defer func() {
		// Every input is checked before use, so this is reached only
		// through a bug in ddt; say so instead of printing a stack trace.
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "%s: bug: %s (please report it with the command line)\n", name, clipMsg(fmt.Sprint(r)))
			status = exitFail
		}
	}()
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(e.stderr)
		return exitOK
	}
	c := find(args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "ddt: unknown command %q (ddt -h lists the commands)\n", clipMsg(args[0]))
		return exitUsage
	}
	name = "ddt " + c.name
	err := c.run(e, args[1:])
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s: %s (ddt %s -h for usage)\n", name, clipMsg(oneLine(ue.msg)), c.name)
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "%s: %s\n", name, errorText(c.name, err))
	return exitFail
}

// errorText formats err for the one-line message of command name: on one
// line, at most a few hundred bytes, without repeating the command's name
// where the packages below prefix it ("ddt pack: pack: ...").
func errorText(name string, err error) string {
	parts := strings.Split(oneLine(err.Error()), ": ")
	var kept []string
	for i, p := range parts {
		if p != name || i == len(parts)-1 {
			kept = append(kept, p)
		}
	}
	return clipMsg(strings.Join(kept, ": "))
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

// maxMsg bounds an error line.
const maxMsg = 400

// clipMsg cuts s to maxMsg bytes.
func clipMsg(s string) string {
	if len(s) <= maxMsg {
		return s
	}
	k := maxMsg
	for k > 0 && s[k]&0xC0 == 0x80 {
		k--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:k], len(s))
}

func find(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// lookup returns the registered command name.
func lookup(name string) *command {
	c := find(name)
	if c == nil {
		panic("ddt: no command " + name)
	}
	return c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ddt: MPI derived datatypes: describe, inspect, pack, optimize, benchmark.")
	fmt.Fprintln(w, "\nUsage: ddt <command> [arguments]   (ddt <command> -h for details)")
	fmt.Fprintln(w, "\nCommands:")
	cs := append([]*command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, `
A TYPE is a .ddt file (the MPI constructors as text) or - for stdin.
Errors are one line on stderr. Exit status: 0 success, 1 the command failed
(bad input, buffer too small, limit exceeded), 2 usage error (unknown command
or flag, missing argument).`)
	printSeeds(w, "")
}

func init() {
	register(&command{name: "help", args: "[COMMAND]", summary: "describe ddt or one command", run: runHelp})
}

func runHelp(e *env, args []string) error {
	pos, err := parse(e, lookup("help"), flag.NewFlagSet("help", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 1, ""); err != nil {
		return err
	}
	if len(pos) == 0 {
		usage(e.stdout)
		return nil
	}
	c := find(pos[0])
	if c == nil {
		return &usageError{fmt.Sprintf("unknown command %q", clipMsg(pos[0]))}
	}
	return c.run(&env{e.stdin, e.stdout, e.stdout}, []string{"-h"})
}

// parse parses a command's flags, which may come before, between or after
// its positional arguments, and returns the positional arguments. -h prints
// the command's usage and returns flag.ErrHelp.
func parse(e *env, c *command, fs *flag.FlagSet, args []string) ([]string, error) {
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
			commandUsage(e.stderr, c, fs)
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	return pos, nil
}

// commandUsage prints the help of c.
func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: ddt %s %s\n\n%s\n", c.name, c.args, c.summary)
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nFlags:")
			first = false
		}
		arg, help := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		line := "  " + dash + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintln(w, line)
		def := ""
		switch f.DefValue {
		case "", "0", "false":
		default:
			if !strings.Contains(help, "(required)") {
				def = fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "      %s%s\n", help, def)
	})
	var text strings.Builder
	text.WriteString(c.summary)
	fs.VisitAll(func(f *flag.Flag) { text.WriteString(f.Usage) })
	printSeeds(w, text.String())
}

func wantArgs(pos []string, min, max int, what string) error {
	if len(pos) < min {
		return &usageError{"missing " + what}
	}
	if max >= 0 && len(pos) > max {
		return &usageError{fmt.Sprintf("unexpected argument %q", clipMsg(pos[max]))}
	}
	return nil
}
