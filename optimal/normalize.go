package optimal

import (
	"errors"
	"fmt"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/recon"
)

// NormalizeOptions configures Normalize and NormalizeTree.
type NormalizeOptions struct {
	// Options are the cost model, constructor set and basic type sizes.
	// The constructor set must contain the paper's five (vec, idx, idxbuc
	// and struc are needed to describe arbitrary MPI types); contig and
	// sbuc are optional.
	Options
	// ExactLimit is the largest sequence the exact O(n^3) algorithm is run
	// on: a type with at most ExactLimit basic elements is flattened and
	// reconstructed optimally; a larger one is normalized structurally, with
	// exact reconstruction over block sequences of at most ExactLimit
	// entries. Zero means 1024.
	ExactLimit int
	// Work bounds the total work of the exact runs of one call, in inner
	// steps of the algorithm (about n^3/6 for a sequence of n entries, some
	// 0.5 ns each). Runs that would exceed it are skipped. Zero means 2^32.
	Work int64
	// MaxTree bounds the size of the input's tree (nodes plus list entries);
	// larger types are returned unchanged. Zero means 2^22.
	MaxTree int
}

// DefaultNormalizeOptions returns the paper's cost model and constructors
// with the limits of opt.OfflineBudget, for offline use (the ddt normalize
// command): exact reconstruction of sequences of up to 1024 entries, 2^32
// steps of exact work, trees of up to 2^22 nodes and list entries.
func DefaultNormalizeOptions() NormalizeOptions {
	return budgetOptions(opt.OfflineBudget)
}

// CommitNormalizeOptions returns the limits of opt.CommitBudget, which
// commit uses on the program: exact reconstruction only on sequences of
// up to 64 entries and about a millisecond of exact work, and no
// normalization of types whose tree has more than 2^14 nodes and list
// entries.
func CommitNormalizeOptions() NormalizeOptions {
	return budgetOptions(opt.CommitBudget)
}

// budgetOptions are the paper's cost model and constructors within b's limits.
func budgetOptions(b opt.Budget) NormalizeOptions {
	return NormalizeOptions{Options: DefaultOptions(), ExactLimit: b.MaxSeq, Work: b.Work, MaxTree: b.MaxProgram}
}

func (o NormalizeOptions) withDefaults() (NormalizeOptions, error) {
	var err error
	if o.Options, err = o.Options.normalized(); err != nil {
		return o, err
	}
	if !o.Constructors.Has(DefaultConstructors) {
		return o, fmt.Errorf("optimal: normalization needs the constructors %s, got %s", DefaultConstructors, o.Constructors)
	}
	if o.ExactLimit <= 0 {
		o.ExactLimit = 1024
	}
	o.ExactLimit = min(o.ExactLimit, MaxLen)
	if o.Work <= 0 {
		o.Work = 1 << 32
	}
	if o.MaxTree <= 0 {
		o.MaxTree = 1 << 22
	}
	return o, nil
}

// Normalize returns a datatype with the same type map, lower bound and
// extent as t (so any number of instances packs identically) whose tree in
// the paper's model costs no more than t's, together with both costs (see
// Cost for the cost of an MPI type). If no cheaper tree is found, or the
// cheaper tree cannot be built as an MPI type, it returns t itself and
// costAfter == costBefore.
//
// How: a type with at most opts.ExactLimit elements is flattened and
// reconstructed exactly (seed 000, section VI: the trivial solution, which
// is optimal). A larger type is normalized structurally in time bounded by
// the size of its tree, not of its type map (see NormalizeTree).
func Normalize(t *datatype.Type, opts NormalizeOptions) (nt *datatype.Type, costBefore, costAfter int64, err error) {
	tree, before, after, err := NormalizeTree(t, opts)
	if err != nil {
		return nil, 0, 0, err
	}
	if after >= before {
		return t, before, before, nil
	}
	nt, err = ToTypeLike(tree, t)
	if err != nil {
		return t, before, before, nil
	}
	return nt, before, after, nil
}

// ToTypeLike is ToType(n) resized, if needed, to the lower bound and extent
// of like, for a tree n that represents like's type map.
func ToTypeLike(n *Node, like *datatype.Type) (*datatype.Type, error) {
	t, err := ToType(n)
	if err != nil {
		return nil, err
	}
	if t.LB() != like.LB() || t.Extent() != like.Extent() {
		return datatype.Resized(t, like.LB(), like.Extent())
	}
	return t, nil
}

// NormalizeTree returns a tree for the type map of one instance of t, its
// cost and the cost of t (Cost), with costAfter <= costBefore. If nothing
// cheaper is found the tree is TreeOf(t).
//
// A type with at most opts.ExactLimit elements is flattened and
// reconstructed exactly (seed 000, section VI: the trivial solution, which
// is optimal). A larger type is normalized structurally, in time bounded by
// the size of its tree times opts.ExactLimit, plus opts.Work, by the rules
// commit uses (package dame/opt, opt.Simplify within opt.OfflineBudget's
// rules and opts' limits): its tree becomes a DAME program whose leaves are
// one symbol per basic type, which the rules rewrite bottom-up — vectors of
// count 1 vanish, nested vectors whose strides compose collapse, blocks of
// several instances become inner vectors, touching blocks of equal children
// merge, regular lists become vectors, lists of blocks of one length become
// indexed nodes, structs of equal members become indexed nodes, structs
// nested in struct blocks are inlined — and whose explicit lists of up to
// opts.ExactLimit blocks, or groups of equal blocks at a constant stride,
// are replaced by the least-cost tree over them (internal/recon, each
// distinct block an opaque symbol). The program is read back as a tree.
//
// Every candidate is compared by cost, so the result never costs more
// than the input.
func NormalizeTree(t *datatype.Type, opts NormalizeOptions) (tree *Node, costBefore, costAfter int64, err error) {
	if t == nil {
		return nil, 0, 0, errors.New("optimal: nil type")
	}
	if opts, err = opts.withDefaults(); err != nil {
		return nil, 0, 0, err
	}
	in, err := TreeOf(t)
	if err != nil {
		return nil, 0, 0, err
	}
	memo := map[*Node]int64{}
	before := treeCost(in, opts.Cost, memo)
	if t.Size() == 0 || treeSize(in, map[*Node]bool{}, opts.MaxTree) > opts.MaxTree {
		return in, before, before, nil
	}
	work := opts.Work
	if n := t.Elements(); n <= int64(opts.ExactLimit) && recon.Work(int(n)) <= work {
		work -= recon.Work(int(n))
		m := make(TypeMap, 0, n)
		t.Walk(1, func(b datatype.Basic, d int64) bool {
			m = append(m, Elem{b.String(), d})
			return true
		})
		if r, c, err := Reconstruct(m, opts.Options); err == nil && c < before {
			return r, before, c, nil
		}
	}
	if r := viaRules(in, opts, work); r != nil {
		if c := treeCost(r, opts.Cost, memo); c < before {
			return r, before, c, nil
		}
	}
	return in, before, before, nil
}

// treeSize counts the distinct nodes and list entries of n, stopping early
// once it exceeds limit.
func treeSize(n *Node, seen map[*Node]bool, limit int) int {
	if n == nil || seen[n] {
		return 0
	}
	seen[n] = true
	s := 1 + len(n.Disps) + len(n.Sizes)
	if n.Child != nil {
		s += treeSize(n.Child, seen, limit)
	}
	for _, c := range n.Children {
		if s > limit {
			break
		}
		s += treeSize(c, seen, limit)
	}
	return s
}
