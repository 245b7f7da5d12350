package optimal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
// with generous limits, for offline use (the ddt normalize command).
func DefaultNormalizeOptions() NormalizeOptions {
	return NormalizeOptions{Options: DefaultOptions(), ExactLimit: 1024, Work: 1 << 32, MaxTree: 1 << 22}
}

// CommitNormalizeOptions returns limits for normalizing within about a
// millisecond: exact reconstruction only on sequences of up to 64 entries
// and at most about a millisecond of exact work, and no normalization of
// types whose tree has more than 2^14 nodes and list entries (the limits
// of opt.CommitBudget, which commit uses on the program).
func CommitNormalizeOptions() NormalizeOptions {
	return NormalizeOptions{Options: DefaultOptions(), ExactLimit: 64, Work: 1 << 21, MaxTree: 1 << 14}
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
// reconstructed exactly. For larger types the work is bounded by the size
// of t's tree times opts.ExactLimit, plus opts.Work:
//
//  1. Each subtree is expanded into a sequence of groups (count copies of
//     an atom at a start displacement and a stride), merging as it goes:
//     contiguous runs of one basic type become one group, and so do copies
//     that continue a group's stride; a vec over a one-group subtree stays
//     one group however large its count. A subtree whose sequence has more
//     than ExactLimit groups (after also pairing single copies at any
//     stride) is not expanded: it becomes an atom of its parent's sequence,
//     normalized on its own.
//  2. The largest expandable subtrees are reconstructed exactly over their
//     group sequences, each distinct group (a vec over its atom) being one
//     opaque symbol whose leaf costs the group's tree cost. This is optimal
//     among trees that do not split groups or atoms.
//  3. Elsewhere cost-reducing rewrite rules apply bottom-up: vec of count
//     1, idx or struc of one entry at 0 vanish; nested vecs whose inner
//     block tiles the outer stride merge; a vec over a leaf at its size
//     becomes a contiguous leaf (if allowed and cheaper); regular idx
//     displacements become a vec; empty buckets are dropped and adjacent
//     buckets merged; idxbuc with buckets of one copy becomes idx, with one
//     bucket a vec, with equal regularly placed buckets a vec of vecs;
//     empty struc members are dropped, nested strucs inlined, and a struc
//     of identical members becomes an idx.
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
	z := newNormalizer(opts)
	before := z.costOf(in)
	if t.Size() == 0 || treeSize(in, map[*Node]bool{}, opts.MaxTree) > opts.MaxTree {
		return in, before, before, nil
	}
	best, bestCost := in, before
	if n := t.Elements(); n <= int64(opts.ExactLimit) && z.spend(int(n)) {
		m := make(TypeMap, 0, n)
		t.Walk(1, func(b datatype.Basic, d int64) bool {
			m = append(m, Elem{b.String(), d})
			return true
		})
		if r, c, err := Reconstruct(m, opts.Options); err == nil && c < bestCost {
			return r, before, c, nil
		}
	}
	if r := z.norm(in); z.costOf(r) < bestCost {
		best, bestCost = r, z.costOf(r)
	}
	return best, before, bestCost, nil
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

// group is count copies of atom, the first at disp, stride bytes apart.
type group struct {
	atom                *Node
	id                  int // the atom's structural id
	disp, count, stride int64
}

type expansion struct {
	gs []group
	ok bool
}

// normalizer holds the memo tables of one normalization. Trees are never
// modified; subtrees are shared by pointer.
type normalizer struct {
	o     Options
	cm    CostModel
	limit int
	work  int64
	ids   map[*Node]int
	sigs  map[string]int
	cost  map[*Node]int64
	empty map[*Node]bool
	exps  map[*Node]expansion
	norms map[*Node]*Node
	simps map[*Node]*Node
}

func newNormalizer(o NormalizeOptions) *normalizer {
	return &normalizer{o: o.Options, cm: o.Cost, limit: o.ExactLimit, work: o.Work,
		ids: map[*Node]int{}, sigs: map[string]int{}, cost: map[*Node]int64{}, empty: map[*Node]bool{},
		exps: map[*Node]expansion{}, norms: map[*Node]*Node{}, simps: map[*Node]*Node{}}
}

func (z *normalizer) costOf(n *Node) int64 { return treeCost(n, z.cm, z.cost) }

// spend reserves the work of an exact run on n entries.
func (z *normalizer) spend(n int) bool {
	w := int64(n)*int64(n)*int64(n)/6 + int64(n)
	if w > z.work {
		return false
	}
	z.work -= w
	return true
}

// id returns a small integer that is equal for structurally equal trees.
func (z *normalizer) id(n *Node) int {
	if id, ok := z.ids[n]; ok {
		return id
	}
	var b strings.Builder
	n.writeWith(&b, func(c *Node, b *strings.Builder) {
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(z.id(c)))
	})
	if n.Kind == Leaf && n.Count > 1 {
		b.WriteString("/" + strconv.FormatInt(n.Size, 10))
	}
	sig := b.String()
	id, ok := z.sigs[sig]
	if !ok {
		id = len(z.sigs)
		z.sigs[sig] = id
	}
	z.ids[n] = id
	return id
}

// isEmpty reports whether n represents the empty type map.
func (z *normalizer) isEmpty(n *Node) bool {
	if e, ok := z.empty[n]; ok {
		return e
	}
	var e bool
	switch n.Kind {
	case Leaf:
		e = n.Count < 1
	case Vec:
		e = n.Count == 0 || z.isEmpty(n.Child)
	case Idx:
		e = len(n.Disps) == 0 || z.isEmpty(n.Child)
	case IdxBuc, SBuc:
		e = z.isEmpty(n.Child)
		if !e {
			e = true
			for _, a := range n.Sizes {
				e = e && a == 0
			}
		}
	case Struc:
		e = true
		for _, c := range n.Children {
			e = e && z.isEmpty(c)
		}
	}
	z.empty[n] = e
	return e
}

// leafSize is the size of a plain leaf's basic type, or 0 if unknown.
func (z *normalizer) leafSize(n *Node) int64 {
	if n.Kind != Leaf || n.Count != 1 {
		return 0
	}
	s, ok := z.o.Sizes.Size(n.Type)
	if !ok || s <= 0 {
		return 0
	}
	return s
}

// norm returns a tree for n's type map that costs no more than n.
func (z *normalizer) norm(n *Node) *Node {
	if r, ok := z.norms[n]; ok {
		return r
	}
	var r *Node
	if gs, ok := z.exp(n); ok {
		r = z.simplify(n)
		if t := z.exact(gs); t != nil && z.costOf(t) < z.costOf(r) {
			r = t
		}
	} else {
		r = z.local(z.withChildren(n, z.norm))
	}
	if z.costOf(r) > z.costOf(n) {
		r = n
	}
	z.norms[n] = r
	return r
}

// simplify applies the rewrite rules bottom-up, without exact runs.
func (z *normalizer) simplify(n *Node) *Node {
	if r, ok := z.simps[n]; ok {
		return r
	}
	r := z.local(z.withChildren(n, z.simplify))
	z.simps[n] = r
	return r
}

// withChildren returns n with its subtrees replaced by f of them.
func (z *normalizer) withChildren(n *Node, f func(*Node) *Node) *Node {
	switch {
	case n.Child != nil:
		c := f(n.Child)
		if c == n.Child {
			return n
		}
		m := *n
		m.Child = c
		return &m
	case len(n.Children) > 0:
		cs := make([]*Node, len(n.Children))
		changed := false
		for k, c := range n.Children {
			cs[k] = f(c)
			changed = changed || cs[k] != c
		}
		if !changed {
			return n
		}
		m := *n
		m.Children = cs
		return &m
	}
	return n
}

// exp returns n's group sequence if it has at most limit groups.
func (z *normalizer) exp(n *Node) ([]group, bool) {
	if e, ok := z.exps[n]; ok {
		return e.gs, e.ok
	}
	gs, ok := z.expand(n, false)
	if !ok {
		gs, ok = z.expand(n, true)
	}
	if !ok {
		gs = nil
	}
	z.exps[n] = expansion{gs, ok}
	return gs, ok
}

// sub returns the groups of subtree c: its expansion, or c normalized on its
// own as one atom.
func (z *normalizer) sub(c *Node) []group {
	if gs, ok := z.exp(c); ok {
		return gs
	}
	a := z.norm(c)
	return []group{{atom: a, id: z.id(a), count: 1}}
}

// seq builds a group sequence with merging; it fails once it holds more
// than limit groups.
type seq struct {
	z     *normalizer
	gs    []group
	loose bool // also pair two single copies at any stride
	over  bool
}

func (s *seq) add(g group) {
	if s.over || g.count == 0 {
		return
	}
	if k := len(s.gs); k > 0 {
		l := &s.gs[k-1]
		if l.id == g.id && s.merge(l, g) {
			return
		}
	}
	if len(s.gs) >= s.z.limit {
		s.over = true
		return
	}
	s.gs = append(s.gs, g)
}

// merge tries to extend l by g (same atom).
func (s *seq) merge(l *group, g group) bool {
	switch {
	case l.count >= 2:
		end, ok := mulOK(l.count, l.stride)
		if ok {
			end, ok = addOK(l.disp, end)
		}
		if ok && g.disp == end && (g.count == 1 || g.stride == l.stride) {
			l.count += g.count
			return true
		}
	case g.count >= 2:
		if d, ok := addOK(g.disp, -l.disp); ok && d == g.stride {
			l.count, l.stride = g.count+1, g.stride
			return true
		}
	default:
		d, ok := addOK(g.disp, -l.disp)
		if ok && (s.loose || (d != 0 && d == s.z.leafSize(l.atom))) {
			l.count, l.stride = 2, d
			return true
		}
	}
	return false
}

// repeat adds c copies of the sequence e, the copies stride apart, starting
// at base.
func (s *seq) repeat(e []group, base, c, stride int64) {
	if c == 0 || s.over {
		return
	}
	if len(e) == 1 {
		g := e[0]
		if g.count == 1 || c == 1 {
			g.disp, _ = addOK(g.disp, base)
			if g.count == 1 {
				g.count, g.stride = c, stride
			}
			s.add(g)
			return
		}
		if span, ok := mulOK(g.count, g.stride); ok && span == stride {
			if total, ok := mulOK(g.count, c); ok {
				g.disp, _ = addOK(g.disp, base)
				g.count = total
				s.add(g)
				return
			}
		}
	}
	if c > int64(4*s.z.limit) || c*int64(len(e)) > int64(4*s.z.limit) {
		s.over = true
		return
	}
	for j := int64(0); j < c && !s.over; j++ {
		off := base + j*stride
		for _, g := range e {
			g.disp += off
			s.add(g)
		}
	}
}

// expand computes n's group sequence (see NormalizeTree).
func (z *normalizer) expand(n *Node, loose bool) ([]group, bool) {
	s := &seq{z: z, loose: loose}
	switch n.Kind {
	case Leaf:
		if n.Count > 1 {
			a := &Node{Kind: Leaf, Type: n.Type, Count: 1}
			s.add(group{atom: a, id: z.id(a), count: n.Count, stride: n.Size})
		} else {
			s.add(group{atom: n, id: z.id(n), count: 1})
		}
	case Vec:
		s.repeat(z.sub(n.Child), 0, n.Count, n.Stride)
	case Idx:
		e := z.sub(n.Child)
		for _, d := range n.Disps {
			s.repeat(e, d, 1, 0)
		}
	case IdxBuc:
		e := z.sub(n.Child)
		for k, d := range n.Disps {
			s.repeat(e, d, n.Sizes[k], n.Stride)
		}
	case SBuc:
		e := z.sub(n.Child)
		for k, a := range n.Sizes {
			d, ok := mulOK(int64(k), n.Stride)
			if !ok {
				return nil, false
			}
			s.repeat(e, d, a, n.Inner)
		}
	case Struc:
		for k, c := range n.Children {
			s.repeat(z.sub(c), n.Disps[k], 1, 0)
		}
	}
	if s.over {
		return nil, false
	}
	return s.gs, true
}

// groupTree is the tree of a group: its atom, a vec over it, or a
// contiguous leaf.
func (z *normalizer) groupTree(g group) *Node {
	if g.count == 1 {
		return g.atom
	}
	if sz := z.leafSize(g.atom); sz > 0 && g.stride == sz && z.o.Constructors.Has(AllowContig) && z.cm.Contig < z.cm.Vec+z.cm.Leaf {
		return &Node{Kind: Leaf, Type: g.atom.Type, Count: g.count, Size: sz}
	}
	return &Node{Kind: Vec, Count: g.count, Stride: g.stride, Child: g.atom}
}

// exact reconstructs a least-cost tree over the group sequence gs, each
// distinct group an opaque symbol (internal/recon) whose leaf costs the
// group's tree. It returns nil if the work budget is spent or the sequence
// cannot be handled.
func (z *normalizer) exact(gs []group) *Node {
	if len(gs) == 0 {
		return nil
	}
	if len(gs) == 1 && gs[0].disp == 0 {
		return z.groupTree(gs[0])
	}
	if !z.spend(len(gs)) {
		return nil
	}
	type key struct{ id, count, stride int64 }
	ids := map[key]int32{}
	var trees []*Node
	seq := recon.Seq{Sym: make([]int32, len(gs)), Disp: make([]int64, len(gs))}
	for k, g := range gs {
		if g.disp > MaxDisp || g.disp < -MaxDisp {
			return nil
		}
		kk := key{int64(g.id), g.count, g.stride}
		id, ok := ids[kk]
		if !ok {
			id = int32(len(trees))
			ids[kk] = id
			t := z.groupTree(g)
			c := z.costOf(t)
			if c > int64(costCap)/int64(len(gs)+1) {
				return nil
			}
			trees = append(trees, t)
			seq.LeafCost = append(seq.LeafCost, c)
		}
		seq.Sym[k], seq.Disp[k] = id, g.disp
	}
	// symbols never form contiguous leaves (seq.Size is nil)
	r, _, err := recon.Solve(seq, recon.Cost(z.cm), recon.Set(z.o.Constructors))
	if err != nil {
		return nil
	}
	var subst func(t *recon.Tree) *Node
	subst = func(t *recon.Tree) *Node {
		if t.Kind == recon.Leaf {
			return trees[t.Sym]
		}
		n := &Node{Kind: Kind(t.Kind), Stride: t.Stride, Inner: t.Inner, Disps: t.Disps, Sizes: t.Sizes}
		if t.Kind == recon.Vec {
			n.Count = t.Count
		}
		if t.Kind == recon.Struc {
			n.Children = make([]*Node, len(t.Children))
			for k, c := range t.Children {
				n.Children[k] = subst(c)
			}
		} else {
			n.Child = subst(t.Child)
		}
		return n
	}
	return subst(r)
}

// regular reports whether ds has at least two entries at a constant gap.
func regular(ds []int64) (gap int64, ok bool) {
	if len(ds) < 2 {
		return 0, false
	}
	gap, ok = addOK(ds[1], -ds[0])
	for k := 2; k < len(ds) && ok; k++ {
		d, ok2 := addOK(ds[k], -ds[k-1])
		ok = ok2 && d == gap
	}
	return gap, ok
}

// local applies the rewrite rules at the root of n (whose subtrees are
// already rewritten) and returns the cheapest candidate.
func (z *normalizer) local(n *Node) *Node {
	best := n
	try := func(c *Node) {
		if c != nil && z.costOf(c) < z.costOf(best) {
			best = c
		}
	}
	// shifted is c placed at d: c itself at 0, else the cheapest
	// count-1 irregular node over it.
	shifted := func(c *Node, d int64) *Node {
		if d == 0 {
			return c
		}
		a := &Node{Kind: Idx, Disps: []int64{d}, Child: c}
		b := &Node{Kind: IdxBuc, Disps: []int64{d}, Sizes: []int64{1}, Child: c}
		if z.costOf(b) < z.costOf(a) {
			return b
		}
		return a
	}
	switch n.Kind {
	case Vec:
		ch := n.Child
		if n.Count == 1 {
			try(ch)
		}
		if ch.Kind == Vec {
			if span, ok := mulOK(ch.Count, ch.Stride); ok && span == n.Stride {
				if c, ok := mulOK(n.Count, ch.Count); ok {
					try(z.local(&Node{Kind: Vec, Count: c, Stride: ch.Stride, Child: ch.Child}))
				}
			}
		}
		if ch.Kind == Leaf && z.o.Constructors.Has(AllowContig) {
			if sz := z.leafSize(ch); sz > 0 && n.Stride == sz {
				try(&Node{Kind: Leaf, Type: ch.Type, Count: n.Count, Size: sz})
			}
			if ch.Count > 1 {
				if span, ok := mulOK(ch.Count, ch.Size); ok && span == n.Stride {
					if c, ok := mulOK(n.Count, ch.Count); ok {
						try(&Node{Kind: Leaf, Type: ch.Type, Count: c, Size: ch.Size})
					}
				}
			}
		}
	case Idx:
		if len(n.Disps) == 1 && n.Disps[0] == 0 {
			try(n.Child)
		}
		if gap, ok := regular(n.Disps); ok {
			v := z.local(&Node{Kind: Vec, Count: int64(len(n.Disps)), Stride: gap, Child: n.Child})
			try(shifted(v, n.Disps[0]))
			try(&Node{Kind: IdxBuc, Stride: gap, Disps: n.Disps[:1], Sizes: []int64{int64(len(n.Disps))}, Child: n.Child})
		}
	case IdxBuc:
		// Drop empty buckets, merge adjacent ones.
		var ds, as []int64
		for k, a := range n.Sizes {
			if a == 0 {
				continue
			}
			if j := len(ds) - 1; j >= 0 {
				if span, ok := mulOK(as[j], n.Stride); ok {
					if end, ok := addOK(ds[j], span); ok && end == n.Disps[k] {
						as[j] += a
						continue
					}
				}
			}
			ds, as = append(ds, n.Disps[k]), append(as, a)
		}
		if len(ds) == 0 {
			break
		}
		if len(ds) < len(n.Disps) {
			m := &Node{Kind: IdxBuc, Stride: n.Stride, Disps: ds, Sizes: as, Child: n.Child}
			try(m)
			if best == m {
				n = m
			}
		}
		ones, equal := true, true
		for _, a := range as {
			ones = ones && a == 1
			equal = equal && a == as[0]
		}
		if ones {
			try(z.local(&Node{Kind: Idx, Disps: ds, Child: n.Child}))
		}
		if len(ds) == 1 {
			try(shifted(z.local(&Node{Kind: Vec, Count: as[0], Stride: n.Stride, Child: n.Child}), ds[0]))
		}
		if gap, ok := regular(ds); ok && equal {
			inner := z.local(&Node{Kind: Vec, Count: as[0], Stride: n.Stride, Child: n.Child})
			try(shifted(z.local(&Node{Kind: Vec, Count: int64(len(ds)), Stride: gap, Child: inner}), ds[0]))
		}
	case Struc:
		var ds []int64
		var cs []*Node
		for k, c := range n.Children {
			switch {
			case z.isEmpty(c):
			case c.Kind == Struc && inlinable(n.Disps[k], c.Disps):
				for j, cc := range c.Children {
					ds, cs = append(ds, n.Disps[k]+c.Disps[j]), append(cs, cc)
				}
			default:
				ds, cs = append(ds, n.Disps[k]), append(cs, c)
			}
		}
		if len(cs) == 0 {
			break
		}
		if len(cs) != len(n.Children) {
			m := &Node{Kind: Struc, Disps: ds, Children: cs}
			try(m)
			if best == m {
				n = m
			}
		}
		if len(cs) == 1 {
			try(shifted(cs[0], ds[0]))
		}
		same := true
		for _, c := range cs[1:] {
			same = same && z.id(c) == z.id(cs[0])
		}
		if same {
			try(z.local(&Node{Kind: Idx, Disps: ds, Child: cs[0]}))
		}
	}
	return best
}

// inlinable reports whether base+d stays in range for every d in ds.
func inlinable(base int64, ds []int64) bool {
	for _, d := range ds {
		if _, ok := addOK(base, d); !ok {
			return false
		}
	}
	return true
}
