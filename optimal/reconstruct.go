package optimal

import (
	"errors"
	"fmt"

	"github.com/ddtlab/ddt/internal/recon"
)

// MaxLen is the longest type map Reconstruct accepts. Time grows as n^3 and
// memory as n^2 (about 11 bytes per segment): at 4096 elements the slowest
// maps measured (a plain vector, the seed's row and column) take 15 s of
// CPU time and 110 MB on an AMD EPYC core (36 s of wall time in the
// benchmark on the shared, loaded machine), so the limit keeps every
// accepted map well within a minute. Normalize handles larger types
// structurally.
const MaxLen = 4096

// Options configures Reconstruct.
type Options struct {
	// Cost is the cost model. The zero value means DefaultCost().
	Cost CostModel
	// Constructors is the set of constructors the tree may use; plain
	// leaves are always allowed. Zero means DefaultConstructors.
	Constructors Constructors
	// Sizes gives basic type sizes for the contiguous leaf. Nil means
	// DefaultSizes(). Types it does not know never form contiguous leaves.
	Sizes Sizer
}

// DefaultOptions returns the paper's cost model and five constructors.
func DefaultOptions() Options {
	return Options{Cost: DefaultCost(), Constructors: DefaultConstructors, Sizes: DefaultSizes()}
}

func (o Options) normalized() (Options, error) {
	if o.Cost == (CostModel{}) {
		o.Cost = DefaultCost()
	}
	if o.Constructors == 0 {
		o.Constructors = DefaultConstructors
	}
	if o.Sizes == nil {
		o.Sizes = DefaultSizes()
	}
	if o.Constructors&^AllConstructors != 0 {
		return o, fmt.Errorf("optimal: unknown constructor flags %#x", uint8(o.Constructors&^AllConstructors))
	}
	return o, o.Cost.Validate()
}

// ErrNotRepresentable is wrapped by the error Reconstruct returns when no
// tree over the allowed constructors represents the type map.
var ErrNotRepresentable = errors.New("type map not representable with these constructors")

// costCap bounds the costs the exact solver stores.
const costCap = recon.MaxCost

// Reconstruct returns a least-cost tree whose flattening equals m exactly,
// and its cost under opts.Cost. It runs in O(n^3) time and O(n^2) memory for
// a map of n elements (about 11 bytes per segment, n^2/2 segments).
//
// The tree is optimal among all trees over opts.Constructors, with one
// documented restriction: strided bucket (sbuc) nodes are considered only in
// the canonical form described in the package documentation.
func Reconstruct(m TypeMap, opts Options) (tree *Node, cost int64, err error) {
	// The dynamic program is internal/recon's, over the map with one
	// symbol per basic type name.
	opts, err = opts.normalized()
	if err != nil {
		return nil, 0, err
	}
	if err := checkMap(m); err != nil {
		return nil, 0, err
	}
	seq := recon.Seq{Sym: make([]int32, len(m)), Disp: make([]int64, len(m))}
	var names []string
	ids := map[string]int32{}
	for i, e := range m {
		id, ok := ids[e.Type]
		if !ok {
			id = int32(len(names))
			ids[e.Type] = id
			names = append(names, e.Type)
			sz, known := opts.Sizes.Size(e.Type)
			if !known || sz <= 0 || sz > MaxDisp {
				sz = 0
			}
			seq.Size = append(seq.Size, sz)
			seq.LeafCost = append(seq.LeafCost, opts.Cost.Leaf)
		}
		seq.Sym[i], seq.Disp[i] = id, e.Disp
	}
	t, c, err := recon.Solve(seq, recon.Cost(opts.Cost), recon.Set(opts.Constructors))
	switch {
	case errors.Is(err, recon.ErrNotRepresentable):
		return nil, 0, fmt.Errorf("optimal: constructors %s: %w", opts.Constructors, ErrNotRepresentable)
	case errors.Is(err, recon.ErrShift):
		return nil, 0, fmt.Errorf("optimal: constructors %s: map starts at displacement %d, which needs idx, idxbuc or struc: %w",
			opts.Constructors, m[0].Disp, ErrNotRepresentable)
	case errors.Is(err, recon.ErrCost):
		return nil, 0, fmt.Errorf("optimal: %v; use smaller cost constants", err)
	case err != nil:
		return nil, 0, fmt.Errorf("optimal: %w", err)
	}
	return fromRecon(t, names), c, nil
}

// fromRecon converts a reconstructed tree to the papers' notation, naming
// each symbol by its basic type.
func fromRecon(t *recon.Tree, names []string) *Node {
	n := &Node{Kind: Kind(t.Kind), Count: t.Count, Stride: t.Stride, Inner: t.Inner, Disps: t.Disps, Sizes: t.Sizes}
	switch t.Kind {
	case recon.Leaf:
		n.Type = names[t.Sym]
		if t.Count > 1 {
			n.Size = t.Size
		}
	case recon.Struc:
		n.Children = make([]*Node, len(t.Children))
		for k, c := range t.Children {
			n.Children[k] = fromRecon(c, names)
		}
	default:
		n.Child = fromRecon(t.Child, names)
	}
	if t.Kind == recon.Idx || t.Kind == recon.Struc || t.Kind == recon.IdxBuc || t.Kind == recon.SBuc {
		n.Count = 0
	}
	return n
}
