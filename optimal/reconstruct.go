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
// a map of n elements (about 11 bytes per segment, n^2/2 segments), up to
// MaxLen elements; when opts.Constructors lies within ChainConstructors
// (vec, idx, idxbuc, contig) in O(n log log n) time and O(n) memory, up to
// MaxMapLen elements. For maps of more than 64 elements it first builds
// the least-cost chain tree (one basic type, O(n log n)) and, above 1024
// elements over the paper's five constructors, the approximation's
// segments, period and rules' trees, and returns one without the O(n^3) program when its cost meets
// LowerBound, which proves it optimal over every constructor set.
//
// The tree is optimal among all trees over opts.Constructors, with one
// documented restriction: strided bucket (sbuc) nodes are considered only in
// the canonical form described in the package documentation.
func Reconstruct(m TypeMap, opts Options) (tree *Node, cost int64, err error) {
	opts, err = opts.normalized()
	if err != nil {
		return nil, 0, err
	}
	chain := opts.Constructors&^ChainConstructors == 0
	if chain {
		// any length up to MaxMapLen: O(n log log n)
		if err := checkMapLen(m, MaxMapLen, ErrMapTooLong); err != nil {
			return nil, 0, err
		}
		if err := checkMemory(len(m), chainBytesPerElem); err != nil {
			return nil, 0, err
		}
		return chainTree(m, opts)
	}
	if err := checkMap(m); err != nil {
		return nil, 0, err
	}
	// A chain tree whose cost meets LowerBound is optimal over every set:
	// found in O(n log n), it spares the O(n^3) program (vectors, nested
	// vectors, a vector of an index list...). Small maps go to the program
	// directly, so that their trees are the program's.
	// So is any tree whose cost meets it: above candidateShortcut
	// elements, the approximation's segments, period and rules' trees
	// (exact runs of at most 16 entries) are tried too (a row and a column
	// of 4095 elements: milliseconds instead of 8 s).
	if len(m) > chainShortcut {
		lb := LowerBound(m, opts)
		if opts.Constructors&(AllowVec|AllowIdx|AllowIdxBuc) != 0 && oneType(m) {
			if t, c, err := chainTree(m, opts); err == nil && c <= lb {
				return t, c, nil
			}
		}
		if len(m) > candidateShortcut && opts.Constructors.Has(DefaultConstructors) {
			if t, c, ok := segmentTree(m, opts); ok && c <= lb && flattensTo(t, m) {
				return t, c, nil
			}
			if t, c, ok := periodTree(m, opts, 16, 0); ok && c <= lb && flattensTo(t, m) {
				return t, c, nil
			}
			if t, c, err := byRules(m, opts, 16); err == nil && c <= lb && flattensTo(t, m) {
				return t, c, nil
			}
		}
	}
	// A periodic map above candidateShortcut elements whose program over
	// its period takes less than half the O(n^3) program's steps gets
	// that program (recon.SolvePeriodic: the same optimum in O(p·n²)).
	if len(m) > candidateShortcut {
		if t, c, _, ok := periodicExact(m, opts, recon.Work(len(m))/2); ok {
			return t, c, nil
		}
	}
	// The dynamic program is internal/recon's, over the map with one
	// symbol per basic type name.
	seq, names := toSeq(m, opts)
	t, c, err := recon.Solve(seq, recon.Cost(opts.Cost), recon.Set(opts.Constructors))
	if err != nil {
		return nil, 0, solveErr(err, m, opts)
	}
	return fromRecon(t, names), c, nil
}

// chainShortcut is the length above which Reconstruct tries the chain tree
// against the lower bound before the O(n^3) program.
const chainShortcut = 64

// candidateShortcut is the length above which Reconstruct also tries the
// approximation's other candidates against the lower bound (the program
// takes about 0.2 s at 1024 elements, 11 s at 4096); below it the trees
// are the program's.
const candidateShortcut = 1024

// oneType reports whether all elements of m have one basic type.
func oneType(m TypeMap) bool {
	for _, e := range m {
		if e.Type != m[0].Type {
			return false
		}
	}
	return true
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
