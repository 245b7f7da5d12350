package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/lang"
	"github.com/ddtlab/ddt/optimal"
)

func init() {
	register(&command{name: "reconstruct", args: "TYPEMAP [--cost K=V,...] [--constructors LIST] [-o OUT.ddt]",
		summary: "print cost: N and a least-cost type tree (seed 000) for a type map of BASICTYPE DISPLACEMENT lines (exact up to 4096 elements, and up to 2^20 over leaf,vec,idx,idxbuc,contig; above 4096 otherwise the exact program for periodic maps when it fits, else the approximation, with the certified gap and its a-priori bound on stderr); -o writes it as a .ddt file",
		run:     runReconstruct})
	register(&command{name: "normalize", args: "TYPE [--cost K=V,...] [-o OUT.ddt]",
		summary: "print cost_before, cost_after and a cheaper type tree with the same type map (seed 000 §VI); -o writes it as a .ddt file",
		run:     runNormalize})
}

const costHelp = "cost constants as KEY=VALUE,... (leaf, vec, idx, idxbuc, struc, ix, bucket, type, contig, sbuc; default leaf=2,vec=4,idx=3,idxbuc=4,struc=2,ix=1,bucket=1,type=1)"

// readInput reads a file, or stdin for "-".
func readInput(e *env, path string) (io.Reader, func(), error) {
	if path == "-" {
		return e.stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// writeDDT writes t as a .ddt file.
func writeDDT(path string, t *datatype.Type) error {
	return os.WriteFile(path, []byte(lang.Format(t)), 0o644)
}

func runReconstruct(e *env, args []string) error {
	fs := flag.NewFlagSet("reconstruct", flag.ContinueOnError)
	costs := fs.String("cost", "", costHelp)
	ctors := fs.String("constructors", "default", "constructors the tree may use: leaf,vec,idx,idxbuc,struc and the opt-in contig,sbuc (or default, all)")
	out := fs.String("o", "", "also write the tree as a .ddt file whose type map equals the input")
	pos, err := parse(e, lookup("reconstruct"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, 1, "TYPEMAP"); err != nil {
		return err
	}
	opts := optimal.DefaultOptions()
	if opts.Cost, err = optimal.ParseCost(*costs); err != nil {
		return &usageError{"--cost: " + err.Error()}
	}
	if opts.Constructors, err = optimal.ParseConstructors(*ctors); err != nil {
		return &usageError{"--constructors: " + err.Error()}
	}
	if opts.Constructors == 0 {
		opts.Constructors = optimal.DefaultConstructors
	}
	r, done, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	m, err := optimal.ParseTypeMap(r)
	done()
	if errors.Is(err, optimal.ErrMapTooLong) {
		return fmt.Errorf("%s: %w; ddt normalize optimizes a larger type from its .ddt description", pos[0], err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	for i, el := range m {
		if _, ok := datatype.BasicByName(el.Type); !ok {
			return fmt.Errorf("%s: element %d (%s %d): %q is not a basic MPI type", pos[0], i+1, el.Type, el.Disp, el.Type)
		}
	}
	// exact up to optimal.MaxLen elements, and at any length over vec, idx,
	// idxbuc and contig only; longer maps over other sets get the approximation,
	// with the certified gap on stderr
	ans, err := optimal.ReconstructLargeAnswer(m, opts)
	if err != nil {
		return err
	}
	tree, cost, lower := ans.Tree, ans.Cost, ans.Lower
	switch {
	case len(m) <= optimal.MaxLen || opts.Constructors&^optimal.ChainConstructors == 0:
	case ans.Exact:
		fmt.Fprintf(e.stderr, "ddt reconstruct: %d elements, more than %d: %s\n",
			len(m), optimal.MaxLen, ans.How())
	default:
		fmt.Fprintf(e.stderr, "ddt reconstruct: %d elements, more than %d: by the approximation; the optimal cost lies in [%d, %d] (within %.2f× of optimal; a-priori bound %.2f×)\n",
			len(m), optimal.MaxLen, lower, cost, float64(cost)/float64(lower), float64(optimal.ListCost(m, opts))/float64(lower))
	}
	if *out != "" {
		t, err := optimal.ToType(tree)
		if err != nil {
			return fmt.Errorf("-o: %w", err)
		}
		if err := writeDDT(*out, t); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(e.stdout)
	fmt.Fprintf(w, "cost: %d\n%s\n", cost, tree)
	return w.Flush()
}

func runNormalize(e *env, args []string) error {
	fs := flag.NewFlagSet("normalize", flag.ContinueOnError)
	costs := fs.String("cost", "", costHelp)
	out := fs.String("o", "", "also write the normalized type as a .ddt file (same type map, lb and extent)")
	opts := optimal.DefaultNormalizeOptions()
	t, err := typeArg(e, "normalize", fs, args, func(string) error {
		var err error
		if opts.Cost, err = optimal.ParseCost(*costs); err != nil {
			return &usageError{"--cost: " + err.Error()}
		}
		return nil
	})
	if err != nil {
		return err
	}
	tree, before, after, err := optimal.NormalizeTree(t, opts)
	if err != nil {
		return err
	}
	if *out != "" {
		nt := t
		if after < before {
			if nt, err = optimal.ToTypeLike(tree, t); err != nil {
				return fmt.Errorf("-o: %w", err)
			}
		}
		if err := writeDDT(*out, nt); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(e.stdout)
	fmt.Fprintf(w, "cost_before: %d\ncost_after: %d\n%s\n", before, after, tree)
	return w.Flush()
}
