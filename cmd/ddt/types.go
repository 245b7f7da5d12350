package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/lang"
)

// loadType reads a .ddt file, or stdin for "-". The parser reads as far as
// the first error and at most lang.MaxSourceSize bytes.
func loadType(e *env, path string) (*datatype.Type, error) {
	if path == "-" {
		return lang.ParseReader("<stdin>", e.stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > lang.MaxSourceSize {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d MiB the .ddt reader accepts", path, st.Size(), lang.MaxSourceSize>>20)
	}
	return lang.ParseReader(path, f)
}

// typeArg parses the flags of a command that takes exactly one TYPE, runs
// check (flag validation, given the TYPE argument; may be nil) and loads
// the type.
func typeArg(e *env, name string, fs *flag.FlagSet, args []string, check func(typePath string) error) (*datatype.Type, error) {
	pos, err := parse(e, lookup(name), fs, args)
	if err != nil {
		return nil, err
	}
	if err := wantArgs(pos, 1, 1, "TYPE"); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(pos[0]); err != nil {
			return nil, err
		}
	}
	return loadType(e, pos[0])
}

func init() {
	register(&command{name: "show", args: "TYPE", summary: "print the size, bounds and other properties of a type", run: runShow})
	register(&command{name: "typemap", args: "TYPE [--count N]", summary: "print the type map of N instances, one BASICTYPE DISPLACEMENT line per element", run: runTypemap})
}

func runShow(e *env, args []string) error {
	t, err := typeArg(e, "show", flag.NewFlagSet("show", flag.ContinueOnError), args, nil)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	fmt.Fprintf(w, "size: %d\n", t.Size())
	fmt.Fprintf(w, "extent: %d\n", t.Extent())
	fmt.Fprintf(w, "lb: %d\n", t.LB())
	fmt.Fprintf(w, "ub: %d\n", t.UB())
	fmt.Fprintf(w, "true_lb: %d\n", t.TrueLB())
	fmt.Fprintf(w, "true_ub: %d\n", t.TrueUB())
	fmt.Fprintf(w, "true_extent: %d\n", t.TrueExtent())
	fmt.Fprintf(w, "elements: %d\n", t.Elements())
	fmt.Fprintf(w, "blocks: %d\n", t.NumBlocks(1))
	fmt.Fprintf(w, "depth: %d\n", t.Depth())
	fmt.Fprintf(w, "combiner: %s\n", t.Combiner())
	fmt.Fprintf(w, "contiguous: %t\n", t.IsContiguous())
	showExtra(w, t)
	return nil
}

// showExtra prints the properties later stages add (signature, ...).
var showExtra = func(w io.Writer, t *datatype.Type) {}

func runTypemap(e *env, args []string) error {
	fs := flag.NewFlagSet("typemap", flag.ContinueOnError)
	count := fs.Int64("count", 1, "number of instances")
	maxLines := fs.Int64("max", defaultMaxTypemap, "refuse a type map of more than `M` elements (0: no limit)")
	t, err := typeArg(e, "typemap", fs, args, func(string) error {
		if err := nonNegative("--max", *maxLines); err != nil {
			return err
		}
		return nonNegative("--count", *count)
	})
	if err != nil {
		return err
	}
	if _, _, err := t.Span(*count); err != nil {
		return err
	}
	if n, ok := mulOK(t.Elements(), *count); !ok || *maxLines > 0 && n > *maxLines {
		what := fmt.Sprintf("%d", n)
		if !ok {
			what = "more than 2^63"
		}
		return fmt.Errorf("the type map of --count %d has %s elements, more than --max %d; raise --max (0: no limit) to print it",
			*count, what, *maxLines)
	}
	w := bufio.NewWriterSize(e.stdout, 1<<16)
	var werr error
	t.Walk(*count, func(b datatype.Basic, d int64) bool {
		_, werr = fmt.Fprintf(w, "%s %d\n", b, d)
		return werr == nil
	})
	if werr != nil {
		return werr
	}
	return w.Flush()
}

// defaultMaxTypemap bounds the output of typemap unless --max says
// otherwise: 2^26 lines, about 1 GB of text.
const defaultMaxTypemap = 1 << 26

// mulOK returns a*b for non-negative a and b and whether it fits in int64.
func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}

// nonNegative is the usage error of a negative count-like flag.
func nonNegative(flag string, v int64) error {
	if v < 0 {
		return &usageError{fmt.Sprintf("negative %s %d", flag, v)}
	}
	return nil
}
