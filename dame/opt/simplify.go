package opt

import (
	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/recon"
)

// Budget bounds the work of Simplify and says when it runs. The zero
// Budget is CommitBudget. The budgets of the project are the values below:
// commit uses CommitBudget and AutoBudget (ddt.NormalizeAlways and
// NormalizeAuto), the ddt normalize command, the playground and package
// optimal's structural normalizer use OfflineBudget (optimal's
// CommitNormalizeOptions are CommitBudget's limits).
type Budget struct {
	// Auto restricts Simplify to programs where it likely gains: programs
	// holding explicit lists of 16 to MaxBlocks blocks in all whose gaps
	// mostly repeat (hidden regular structure). Checking costs O(nodes +
	// blocks) and allocates nothing (but for structs of more than 16
	// distinct children); other programs are returned as they are.
	Auto bool
	// MaxBlocks bounds the blocks of the lists Auto hands to the rules.
	// Zero means AutoMaxBlocks.
	MaxBlocks int
	// MaxProgram bounds the size of the program (nodes plus list entries);
	// larger programs are returned as they are. Zero means 2^14.
	MaxProgram int
	// MaxSeq is the longest sequence of blocks (or of groups of blocks at
	// a constant stride) reconstructed exactly. Zero means 64.
	MaxSeq int
	// Work bounds the total work of the exact reconstructions of one call,
	// in inner steps of the dynamic program (about n^3/6 for n entries,
	// some 0.5 ns each); runs that would exceed it are skipped. Zero means
	// 2^21 (about a millisecond).
	Work int64
	// Offline takes the least-cost tree even where it puts a STRUCT of
	// subprograms under a repetition, which the cost model counts once but
	// the engines dispatch on at every repetition (commit refuses those:
	// see repeatsStruct). For normalizing descriptions, not for running them.
	Offline bool
	// Cost is the cost model programs are compared in; nil means seed 000's
	// (recon.DefaultCost).
	Cost *recon.Cost
	// MaxChain bounds the lists of one child (a BLOCKINDEX, or a sequence of
	// one symbol) that are reconstructed beyond MaxSeq by the restricted
	// solver (recon.SolveChain: levels of vectors and indexed lists, and
	// offline bucketed ones, exact for them, O(n log log n)): a list of rows listed element by element
	// becomes an indexed list of vectors. (Auto still hands the rules only
	// lists of at most MaxBlocks blocks: longer ones would cost more commit
	// time than MPICH's create+commit+free; docs/normalization.md.) Zero
	// means no such lists.
	MaxChain int
}

// AutoMaxBlocks is the default bound of Budget.MaxBlocks: NormalizeAuto
// hands lists of at most this many blocks in all to the rules.
const AutoMaxBlocks = 1024

// CommitBudget is the budget for simplifying every program at commit (ddt's
// NormalizeAlways): exact reconstruction of sequences of up to 64 blocks or
// groups, about a millisecond of exact work, programs of up to 2^14 nodes
// and list entries.
var CommitBudget = Budget{MaxProgram: 1 << 14, MaxSeq: 64, Work: 1 << 21, MaxChain: 1 << 14}

// AutoBudget is CommitBudget restricted by the automatic policy (ddt's
// NormalizeAuto) to lists of at most AutoMaxBlocks blocks in all.
var AutoBudget = Budget{Auto: true, MaxBlocks: AutoMaxBlocks, MaxProgram: CommitBudget.MaxProgram, MaxSeq: CommitBudget.MaxSeq, Work: CommitBudget.Work, MaxChain: CommitBudget.MaxChain}

// OfflineBudget is the budget for normalizing a description offline (the
// ddt normalize command, the playground, optimal.DefaultNormalizeOptions):
// exact reconstruction of sequences of up to 1024 blocks or groups, 2^32
// steps of exact work (seconds), programs of up to 2^22 nodes and list
// entries, least cost whatever the engines would make of it.
var OfflineBudget = Budget{MaxProgram: 1 << 22, MaxSeq: 1024, Work: 1 << 32, Offline: true, MaxChain: 1 << 22}

// Simplify returns a program that moves exactly the bytes p moves, in the
// same packed order, and costs less in the additive cost model of seed 000
// (a leaf 2, a vector 4, an indexed list 3 plus an entry per block, ...),
// or p itself when it finds nothing cheaper within b. It never modifies p.
//
// It applies, bottom-up, the local rewrites of Compile together with those
// Compile does not apply — touching blocks of equal non-contiguous children
// merge, structs and lists nested in a struct block are inlined into it,
// lists whose children are equal become indexed nodes whatever their
// extents — and replaces each explicit list (dame.BlockIndex, dame.Index, dame.Struct) of
// up to b.MaxSeq blocks, or of groups of blocks at a constant stride, by the
// least-cost tree of vectors, indexed, bucketed and struct nodes over its
// blocks (optimal reconstruction, seed 000/001, internal/recon), when that
// is cheaper.
//
// The result is checked before it is returned: the same packed size,
// extent and data bounds as p (the bytes a caller's buffers are checked
// against), or p is returned.
func Simplify(p *dame.Program, b Budget) *dame.Program {
	if p == nil || p.Root == nil {
		return p
	}
	if b.MaxBlocks <= 0 {
		b.MaxBlocks = AutoMaxBlocks
	}
	if b.Auto && !irregular(p, 16, max(b.MaxBlocks, 16)) {
		return p
	}
	if b.MaxProgram <= 0 {
		b.MaxProgram = 1 << 14
	}
	if b.MaxSeq <= 0 {
		b.MaxSeq = 64
	}
	if b.Work <= 0 {
		b.Work = 1 << 21
	}
	if !rulesMayFire(p.Root) || progSize(p.Root, b.MaxProgram) > b.MaxProgram {
		return p
	}
	s := simplifier{b: b, cm: costModel}
	if b.Cost != nil {
		s.cm = *b.Cost
	}
	root, off := s.node(p.Root)
	if root == p.Root || s.cost(root) >= s.cost(p.Root) {
		return p
	}
	q := &dame.Program{Size: p.Size, Extent: p.Extent}
	q.SetRoot(root, p.Off+off)
	// What memory safety rests on: the engines never reach past the data
	// bounds the caller's buffers are checked against.
	lo0, hi0, ok0 := p.DataBounds()
	lo, hi, ok := q.DataBounds()
	if root.Size != p.Root.Size || !ok0 || !ok || lo != lo0 || hi != hi0 || q.Depth > dame.MaxDepth {
		return p
	}
	checkProgram("Simplify", q)
	return q
}

// rulesMayFire reports whether any rule of Simplify may apply to the tree
// under n: whether it holds a list, a dame.Contig, or a dame.Vector that Compile
// would have rewritten (programs from Parse). Programs of vectors that
// Compile built are final; checking costs O(depth) and allocates nothing.
func rulesMayFire(n *dame.Node) bool {
	for ; n.Op != dame.ContigFinal; n = n.Child {
		if n.Op != dame.Vector || !vectorFinal(n) {
			return true
		}
	}
	return false
}

// vectorFinal reports whether no rule of the table (vectorRule) rewrites
// Vector node n: Compile built it.
func vectorFinal(n *dame.Node) bool {
	return vectorRule(n.Count, n.Blocklen, n.Stride, n.Child) == vecFinal
}

// progSize counts the nodes and list entries of the tree under n (shared
// nodes once per use), stopping once it passes limit.
func progSize(n *dame.Node, limit int) int {
	s := 1 + len(n.Disps)
	switch {
	case n.Op == dame.ContigFinal:
	case n.Op == dame.Struct:
		for i, c := range n.Children {
			if s > limit {
				break
			}
			if i > 0 && c == n.Children[i-1] {
				s++
				continue
			}
			s += progSize(c, limit-s)
		}
	default:
		s += progSize(n.Child, limit-s)
	}
	return s
}

// irregular reports whether p still holds explicit block lists that an
// optimal reconstruction may shrink: lists of minBlocks to maxBlocks blocks
// in all (counting shared nodes once) whose gaps mostly repeat — at most a
// quarter of the consecutive gaps differ from the gap before them — as in
// a vector or a row and a column listed block by block in an order the
// local rewrites of Compile do not see through. Compile already merges
// touching blocks and turns runs of constant length and stride into
// vectors, so a list that reaches here regular is rare and worth the
// optimizer's tens of microseconds; random lists (the usual gather lists of
// applications) are not. It costs O(nodes + blocks), stops once the blocks
// pass maxBlocks, and allocates only for structs of more than 16 distinct
// children.
func irregular(p *dame.Program, minBlocks, maxBlocks int) bool {
	if p.Root == nil {
		return false
	}
	var s listStats
	if !s.add(p.Root, maxBlocks) {
		return false
	}
	return s.entries >= minBlocks && s.breaks*4 <= s.entries
}

type listStats struct {
	entries, breaks int
	seen            [16]*dame.Node // dame.Struct children counted, the first few
	nseen           int
	seenMap         map[*dame.Node]bool
}

// visit reports whether c was visited before and marks it.
func (s *listStats) visit(c *dame.Node) bool {
	if s.seenMap != nil {
		if s.seenMap[c] {
			return true
		}
		s.seenMap[c] = true
		return false
	}
	for _, x := range s.seen[:s.nseen] {
		if x == c {
			return true
		}
	}
	if s.nseen < len(s.seen) {
		s.seen[s.nseen] = c
		s.nseen++
		return false
	}
	s.seenMap = map[*dame.Node]bool{c: true}
	for _, x := range s.seen {
		s.seenMap[x] = true
	}
	return false
}

// add counts the lists of n's tree; it returns false once they pass max
// blocks.
func (s *listStats) add(n *dame.Node, max int) bool {
	for {
		switch n.Op {
		case dame.ContigFinal:
			return true
		case dame.BlockIndex, dame.Index, dame.Struct:
			d := n.Disps
			s.entries += len(d)
			if s.entries > max {
				return false
			}
			for i := 2; i < len(d); i++ {
				if d[i]-d[i-1] != d[i-1]-d[i-2] {
					s.breaks++
				}
			}
		}
		if n.Op != dame.Struct {
			n = n.Child
			continue
		}
		for i, c := range n.Children {
			if i > 0 && c == n.Children[i-1] {
				continue
			}
			if c.Op == dame.ContigFinal || s.visit(c) {
				continue
			}
			if !s.add(c, max) {
				return false
			}
		}
		return true
	}
}

// Cost returns p's cost in seed 000's cost model (recon.DefaultCost):
// what Simplify minimizes, counting every use of a shared node.
func Cost(p *dame.Program) int64 {
	if p == nil || p.Root == nil {
		return 0
	}
	s := simplifier{cm: costModel}
	return s.cost(p.Root)
}
