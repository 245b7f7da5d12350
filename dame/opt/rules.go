package opt

import (
	"github.com/ddtlab/ddt/dame"
	"slices"

	"github.com/ddtlab/ddt/internal/recon"
)

// The rules of Simplify. A simplifier rewrites the tree bottom-up; every
// rewrite of a node returns a node that moves the same bytes in the same
// order when placed at a returned displacement, with the extent of the
// node it replaces (its parent may repeat it at that extent).

// costModel is seed 000's default cost model (recon.DefaultCost, which
// optimal.DefaultCost returns too), in which Simplify compares programs: a
// DAME node costs what the type-tree node of the same shape costs (Vector
// a vec, BlockIndex an idx, Index an idxbuc, Struct a struc; a block length
// above 1 is one more vec).
var costModel = recon.DefaultCost

// reconSet is the constructors reconstruction may use: those with a DAME
// primitive of their own.
const reconSet = recon.AllowVec | recon.AllowIdx | recon.AllowIdxBuc | recon.AllowStruc

// maxSymbols bounds the distinct blocks of a list that reconstruction
// names as symbols.
const maxSymbols = 64

type simplified struct {
	n   *dame.Node
	off int64
}

type simplifier struct {
	b     Budget
	cm    recon.Cost // the cost model: b.Cost, or costModel
	z     builder
	memo  map[*dame.Node]simplified
	costs map[*dame.Node]int64
}

// node returns n simplified and the displacement of its origin, with n's
// extent.
func (s *simplifier) node(n *dame.Node) (*dame.Node, int64) {
	if n.Op == dame.ContigFinal {
		return n, 0
	}
	if r, ok := s.memo[n]; ok {
		return r.n, r.off
	}
	m, off := s.rewrite(n)
	m = s.withExtent(m, n.Extent)
	if invariants {
		checkNode("Simplify ("+n.Op.String()+")", m, off)
	}
	return m, off
}

// shared is node for the children of a dame.Struct, the nodes a program may
// share: each is simplified once.
func (s *simplifier) shared(n *dame.Node) (*dame.Node, int64) {
	if r, ok := s.memo[n]; ok {
		return r.n, r.off
	}
	m, off := s.node(n)
	if s.memo == nil {
		s.memo = map[*dame.Node]simplified{}
	}
	s.memo[n] = simplified{m, off}
	return m, off
}

// withExtent returns m, or a copy of it, with extent e.
func (s *simplifier) withExtent(m *dame.Node, e int64) *dame.Node {
	if m.Extent == e {
		return m
	}
	c := s.z.alloc(*m)
	c.Extent = e
	return c
}

func (s *simplifier) rewrite(n *dame.Node) (*dame.Node, int64) {
	z := &s.z
	switch n.Op {
	case dame.Contig, dame.Vector:
		c, off := s.node(n.Child)
		if c == n.Child && off == 0 && n.Op == dame.Vector && vectorFinal(n) {
			return n, 0
		}
		c = s.withExtent(c, n.Child.Extent)
		if n.Op == dame.Contig {
			return z.vector(n.Count, 1, n.Child.Extent, c), off
		}
		return z.vector(n.Count, n.Blocklen, n.Stride, c), off
	}
	var one simplified // the child of dame.BlockIndex and dame.Index, simplified once
	if n.Op != dame.Struct {
		c, off := s.node(n.Child)
		if c == n.Child && off == 0 && !isList(c) && listFinal(n) {
			// the rules change neither the child nor the list
			return s.reconstruct(n, 0)
		}
		one = simplified{s.withExtent(c, n.Child.Extent), off}
	}
	kids := make([]simplified, len(n.Disps))
	nested := false
	for i := range n.Disps {
		c0 := n.ChildOf(i)
		switch {
		case n.Op != dame.Struct:
			kids[i] = one
		case i > 0 && c0 == n.ChildOf(i-1):
			kids[i] = kids[i-1]
		default:
			c, off := s.shared(c0)
			kids[i] = simplified{s.withExtent(c, c0.Extent), off}
		}
		nested = nested || (n.BlockLen(i) == 1 && isList(kids[i].n))
	}
	if n.Op == dame.Struct && !nested && structFinal(n, kids) {
		return s.reconstruct(n, 0)
	}
	best, bestOff := s.list(n, kids, false)
	if unchanged(n, kids) && s.cost(n) < s.cost(best) {
		// merging touching blocks of symbols can cost more than it saves
		// (an INDEX of buckets in place of a BLOCKINDEX): keep the list
		best, bestOff = n, 0
	}
	if nested {
		// structs and lists nested in blocks of one instance, inlined:
		// cheaper when it lets blocks merge or children be shared
		if m, off := s.list(n, kids, true); s.cost(m) < s.cost(best) {
			best, bestOff = m, off
		}
	}
	return s.reconstruct(best, bestOff)
}

// The rules of a list node (BlockIndex, Index) whose child the rules left
// as it is. listRule is their table: it names the first rule that rewrites
// the node (blockList.normalize and builder.indexed apply them), and a list
// is final (listFinal) exactly when none fires. It costs O(blocks) and
// allocates nothing.
const (
	listIsFinal   = iota
	listBlockOne  // a single block is its child, placed (or a vector)
	listBlockLen  // BlockIndex blocks of bl > 1 instances: blocks of an inner vector
	listByteRuns  // blocks of a leaf whose extent is not its size: Compile makes byte runs of them
	listTouching  // a block touching the next merges with it
	listStrided   // blocks of one length at a constant stride are a vector
	listEqualLens // Index blocks all of one length are a BlockIndex
)

func listRule(n *dame.Node) int {
	ds, c := n.Disps, n.Child
	switch {
	case len(ds) < 2:
		return listBlockOne
	case n.Op == dame.BlockIndex && n.Blocklen != 1:
		return listBlockLen
	}
	step := c.Extent
	if isBytes(c) && c.Extent == c.Size {
		step = c.Size
	} else if isBytes(c) {
		return listByteRuns
	}
	strided, differ := true, false
	for i := 1; i < len(ds); i++ {
		if ds[i-1]+n.BlockLen(i-1)*step == ds[i] {
			return listTouching
		}
		strided = strided && ds[i]-ds[i-1] == ds[1]-ds[0]
		differ = differ || n.BlockLen(i) != n.BlockLen(0)
	}
	switch {
	case strided && !differ:
		return listStrided
	case n.Op == dame.Index && !differ:
		return listEqualLens
	}
	return listIsFinal
}

// listFinal reports whether no list rule rewrites BlockIndex or Index
// node n (as Compile built it).
func listFinal(n *dame.Node) bool { return listRule(n) == listIsFinal }

// The rules of a Struct node whose children simplified to kids. structRule
// is their table: it names the first rule that rewrites the node
// (blockList.normalize and mergeVectors apply them), and a struct is final
// (structFinal) exactly when none fires. It allocates nothing.
const (
	structIsFinal  = iota
	structChildren // a child simplified to another node
	structOne      // a single block is its child, placed
	structBytes    // blocks that are all bytes are byte runs
	structSame     // blocks that all move the same bytes are an indexed node
	structRuns     // a block continuing the run of the one before merges with it (continues)
)

func structRule(n *dame.Node, kids []simplified) int {
	if len(kids) < 2 {
		return structOne
	}
	bytesOnly, same := true, true
	c0 := n.Children[0]
	for i, k := range kids {
		c := n.Children[i]
		if k.n != c || k.off != 0 {
			return structChildren
		}
		bytesOnly = bytesOnly && isBytes(c) && (n.Blocklens[i] == 1 || c.Extent == c.Size)
		same = same && (i == 0 || dame.Equal(c, c0) || n.Blocklens[0] == 1 && n.Blocklens[i] == 1 && sameMoves(c, c0))
		if i > 0 {
			a, oka := runOf(n.Children[i-1], n.Blocklens[i-1])
			b, okb := runOf(c, n.Blocklens[i])
			if oka && okb {
				if _, yes := continues(a, b, n.Disps[i]-n.Disps[i-1]); yes {
					return structRuns
				}
			}
		}
	}
	switch {
	case bytesOnly:
		return structBytes
	case same:
		return structSame
	}
	return structIsFinal
}

// structFinal reports whether no struct rule rewrites Struct node n.
func structFinal(n *dame.Node, kids []simplified) bool { return structRule(n, kids) == structIsFinal }

// unchanged reports whether the children of list node n simplified to
// themselves, in place.
func unchanged(n *dame.Node, kids []simplified) bool {
	for i, k := range kids {
		if k.n != n.ChildOf(i) || k.off != 0 {
			return false
		}
	}
	return true
}

func isList(n *dame.Node) bool {
	return n.Op == dame.BlockIndex || n.Op == dame.Index || n.Op == dame.Struct
}

// list normalizes the blocks of list node n with its children replaced by
// kids, inlining the lists among them when inline is set.
func (s *simplifier) list(n *dame.Node, kids []simplified, inline bool) (*dame.Node, int64) {
	b := newBlockList(len(n.Disps))
	for i, d := range n.Disps {
		k, c := n.BlockLen(i), kids[i]
		if inline && k == 1 && isList(c.n) {
			for j, dj := range c.n.Disps {
				b.add(d+c.off+dj, c.n.BlockLen(j), c.n.ChildOf(j), 0)
			}
			continue
		}
		b.add(d, k, c.n, c.off)
	}
	return b.normalize(&s.z, true)
}

// spend reserves the work of an exact run on n entries.
func (s *simplifier) spend(n int) bool {
	w := recon.Work(n)
	if w > s.b.Work {
		return false
	}
	s.b.Work -= w
	return true
}

// reconstruct returns the cheapest of list node m (at off) and the
// least-cost trees reconstructed over its blocks and over groups of its
// blocks (consecutive equal blocks at a constant stride), within the
// budget.
func (s *simplifier) reconstruct(m *dame.Node, off int64) (*dame.Node, int64) {
	best, bestOff := s.reconstruct1(m, off)
	if s.b.Offline {
		// offline, also over the instances of the blocks: buckets of a few
		// copies may cost more than the copies listed one by one
		if e := s.instances(m); e != nil {
			if r, o := s.reconstruct1(e, off); s.cost(r) < s.cost(best) {
				best, bestOff = r, o
			}
		}
	}
	return best, bestOff
}

// instances is list node m with its blocks of several instances listed
// instance by instance (at their child's extent), or nil if no block has
// several or there would be more than MaxSeq.
func (s *simplifier) instances(m *dame.Node) *dame.Node {
	if m.Op != dame.Index && m.Op != dame.Struct {
		return nil
	}
	var total int64
	for i := range m.Disps {
		total += m.BlockLen(i)
		if total > int64(s.b.MaxSeq) {
			return nil
		}
	}
	if total == int64(len(m.Disps)) {
		return nil
	}
	ds := make([]int64, 0, total)
	var cs []*dame.Node
	for i, d := range m.Disps {
		c := m.ChildOf(i)
		for j := range m.BlockLen(i) {
			ds = append(ds, d+j*c.Extent)
			if m.Op == dame.Struct {
				cs = append(cs, c)
			}
		}
	}
	if m.Op == dame.Index {
		return s.z.alloc(dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: ds, Child: m.Child}).Finish()
	}
	ones := make([]int64, total)
	for i := range ones {
		ones[i] = 1
	}
	return s.z.alloc(dame.Node{Op: dame.Struct, Blocklens: ones, Disps: ds, Children: cs}).Finish()
}

// reconstruct1 is reconstruct over m's blocks as they are.
func (s *simplifier) reconstruct1(m *dame.Node, off int64) (*dame.Node, int64) {
	if !isList(m) || len(m.Disps) < 3 {
		return m, off
	}
	nb := len(m.Disps)
	if nb > s.b.MaxSeq && !s.b.Offline && !fewGroups(m, s.b.MaxSeq) && (m.Op != dame.BlockIndex || nb > s.b.MaxChain || !splits(m.Disps)) {
		return m, off // too long, and so are its groups; nothing for the chain solver
	}
	// the distinct blocks (child and block length) as symbols
	type rep struct {
		c  *dame.Node
		bl int64
	}
	var reps []rep
	syms := make([]int32, nb)
	for i := range nb {
		c, k := m.ChildOf(i), m.BlockLen(i)
		id := -1
		for j, r := range reps {
			if r.bl == k && (r.c == c || dame.Equal(r.c, c)) {
				id = j
				break
			}
		}
		if id < 0 {
			if len(reps) == maxSymbols {
				return m, off
			}
			id = len(reps)
			reps = append(reps, rep{c, k})
		}
		syms[i] = int32(id)
	}
	if len(reps) == nb && m.Op != dame.Struct {
		// no block repeats: no vector, indexed or bucket node can form,
		// and a struct of the blocks costs more than the list
		return m, off
	}
	// a block of bl > 1 instances as one node: a leaf of bl instances of
	// a contiguous leaf, a vector otherwise
	nodes := make([]*dame.Node, len(reps))
	for j, r := range reps {
		switch {
		case r.bl == 1:
			nodes[j] = r.c
		case isBytes(r.c) && r.c.Extent == r.c.Size:
			nodes[j] = s.z.leaf(r.bl * r.c.Size)
		default:
			nodes[j] = s.z.vector(r.bl, 1, r.c.Extent, r.c)
		}
	}
	if len(reps) == nb {
		// no block repeats, but a struct of the blocks as nodes is
		// cheaper when blocks of contiguous leaves become leaves
		b := newBlockList(nb)
		for i, d := range m.Disps {
			b.add(d, 1, nodes[syms[i]], 0)
		}
		if r, d := b.normalize(&s.z, false); s.cost(r) < s.cost(m) {
			return r, off + d
		}
		return m, off
	}
	d0 := m.Disps[0]
	disps := make([]int64, nb)
	for i, d := range m.Disps {
		disps[i] = d - d0
	}
	best, bestOff := m, off
	if r, d, c := s.solve(syms, disps, nodes, m.Op != dame.Struct, 0); r != nil && c < s.cost(m) {
		best, bestOff = r, off+d0+d
	}
	return best, bestOff
}

// splits reports whether the displacements d split into c >= 2 equal
// blocks, each a translate of the first (the chain solver finds nothing
// cheaper than the list otherwise). Random lists fail at the first block
// of every divisor: O(n + divisors) time, no allocation; O(n·divisors) at
// worst.
func splits(d []int64) bool {
	n := len(d)
	for q := 2; q <= n/2; q++ {
		if n%q != 0 {
			continue
		}
		ok := true
		for t := q; t < n && ok; t += q {
			for k := 1; k < q; k++ {
				if d[t+k]-d[t+k-1] != d[k]-d[k-1] {
					ok = false
					break
				}
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// maxSolveDepth bounds the recursion of solve (each level at least halves
// the sequence).
const maxSolveDepth = 64

// solve returns the cheapest node it finds for the sequence of symbols
// syms at displacements disps (symbol j is nodes[j]), the displacement of
// the node's origin relative to disps' origin, and its cost; nil if it
// finds none. Candidates, each compared by cost:
//
//   - exact reconstruction (internal/recon) of a sequence of at most
//     MaxSeq entries, within the work budget;
//   - a longer sequence of one symbol (at most MaxChain entries): the
//     restricted solver's levels of vectors and indexed lists (offline
//     also bucketed ones);
//   - the runs of one symbol at a constant stride as symbols (groups),
//     solved again — at commit one level, offline level by level;
//   - offline, a repeated prefix: the first p entries repeated c >= 2
//     times at a constant shift (a vector of the prefix's solution),
//     followed by the rest, solved on its own (a struct of the two).
//
// under is set inside a repetition (see repeatsStruct).
func (s *simplifier) solve(syms []int32, disps []int64, nodes []*dame.Node, under bool, depth int) (*dame.Node, int64, int64) {
	var best *dame.Node
	var bestOff, bestCost int64
	consider := func(r *dame.Node, d int64) {
		if r == nil {
			return
		}
		if c := s.cost(r); best == nil || c < bestCost {
			best, bestOff, bestCost = r, d, c
		}
	}
	if d0 := disps[0]; d0 != 0 {
		// solved aligned (seed 000, Definition 4), placed at d0
		al := make([]int64, len(disps))
		for i, d := range disps {
			al[i] = d - d0
		}
		r, d, c := s.solve(syms, al, nodes, under, depth)
		return r, d + d0, c
	}
	if len(syms) == 1 {
		consider(nodes[syms[0]], 0)
		return best, bestOff, bestCost
	}
	if len(syms) <= s.b.MaxSeq && s.spend(len(syms)) {
		seq := recon.Seq{Sym: syms, Disp: disps, LeafCost: make([]int64, len(nodes))}
		for j, n := range nodes {
			seq.LeafCost[j] = min(s.cost(n), recon.MaxCost/int64(len(syms)+1))
		}
		if t, _, err := recon.Solve(seq, s.cm, reconSet); err == nil && (s.b.Offline || !repeatsStruct(t, under, nodes)) {
			consider(s.fromTree(t, nodes))
		}
	}
	if len(nodes) == 1 && len(syms) > s.b.MaxSeq && len(syms) <= s.b.MaxChain {
		// one symbol: the restricted solver, exact over vectors and
		// indexed lists (and, offline, bucketed ones), in O(n log log n)
		seq := recon.Seq{Sym: syms, Disp: disps, LeafCost: []int64{s.cost(nodes[0])}}
		set := recon.AllowVec | recon.AllowIdx
		if s.b.Offline {
			// bucketed levels cost a hash map over the gaps: offline only
			set |= recon.AllowIdxBuc
		}
		if t, _, err := recon.SolveChain(seq, s.cm, set); err == nil {
			consider(s.fromTree(t, nodes))
		}
	}
	if depth >= maxSolveDepth {
		return best, bestOff, bestCost
	}
	if gsyms, gdisps, gnodes, ok := s.groups(syms, disps, nodes); ok {
		if !s.b.Offline {
			// at commit, one level of groups, solved exactly
			if len(gsyms) <= s.b.MaxSeq && s.spend(len(gsyms)) {
				seq := recon.Seq{Sym: gsyms, Disp: gdisps, LeafCost: make([]int64, len(gnodes))}
				for j, n := range gnodes {
					seq.LeafCost[j] = min(s.cost(n), recon.MaxCost/int64(len(gsyms)+1))
				}
				if t, _, err := recon.Solve(seq, s.cm, reconSet); err == nil && !repeatsStruct(t, under, gnodes) {
					consider(s.fromTree(t, gnodes))
				}
			}
			return best, bestOff, bestCost
		}
		r, d, _ := s.solve(gsyms, gdisps, gnodes, under, depth+1)
		consider(r, d)
	}
	if s.b.Offline {
		s.repeatedPrefix(syms, disps, nodes, under, depth, consider)
	}
	return best, bestOff, bestCost
}

// maxPeriod bounds the prefix lengths repeatedPrefix tries.
const maxPeriod = 1024

// repeatedPrefix offers solve the smallest repeated prefix that covers at
// least half the sequence: entries [0, p) repeated c >= 2 times, each copy
// shift bytes after the one before (every symbol equal, every
// displacement shifted), as a vector of the prefix's solution, then the
// rest of the sequence solved on its own, the two as a struct.
func (s *simplifier) repeatedPrefix(syms []int32, disps []int64, nodes []*dame.Node, under bool, depth int, consider func(*dame.Node, int64)) {
	n := len(syms)
	for p := 1; p <= min(n/2, maxPeriod); p++ {
		shift := disps[p] - disps[0]
		// entries i and i+p agree from 0 up to the first mismatch
		k := 0
		for k+p < n && syms[k+p] == syms[k] && disps[k+p]-disps[k] == shift {
			k++
		}
		c := (k + p) / p // whole copies of the prefix
		if c < 2 || c*p < n/2 {
			continue
		}
		head, hoff, _ := s.solve(syms[:p], disps[:p], nodes, true, depth+1)
		if head == nil {
			return
		}
		v := s.vector(int64(c), shift, head)
		if c*p == n {
			consider(v, hoff)
			return
		}
		tail, toff, _ := s.solve(syms[c*p:], disps[c*p:], nodes, under, depth+1)
		if tail == nil {
			return
		}
		b := newBlockList(2)
		b.add(hoff, 1, v, 0)
		b.add(toff, 1, tail, 0)
		r, d := b.normalize(&s.z, false)
		consider(r, d)
		return
	}
}

// groups returns the sequence of runs of one symbol at a constant stride
// of syms (at disps, symbol j's node nodes[j]), each distinct run a new
// symbol whose node is a vector of the old one; false if no run has two
// copies, or (but offline) if there are more than MaxSeq runs.
func (s *simplifier) groups(syms []int32, disps []int64, nodes []*dame.Node) ([]int32, []int64, []*dame.Node, bool) {
	type group struct {
		sym                 int32
		disp, count, stride int64
	}
	var gs []group
	for i := range syms {
		if k := len(gs) - 1; k >= 0 && gs[k].sym == syms[i] {
			g := &gs[k]
			if g.count == 1 {
				g.count, g.stride = 2, disps[i]-g.disp
				continue
			}
			if disps[i] == g.disp+g.count*g.stride {
				g.count++
				continue
			}
		}
		if len(gs) == s.b.MaxSeq && !s.b.Offline {
			return nil, nil, nil, false
		}
		gs = append(gs, group{syms[i], disps[i], 1, 0})
	}
	if len(gs) == len(syms) {
		return nil, nil, nil, false
	}
	type gkey struct {
		sym           int32
		count, stride int64
	}
	ids := map[gkey]int32{}
	var gnodes []*dame.Node
	gsyms, gdisps := make([]int32, len(gs)), make([]int64, len(gs))
	for k, g := range gs {
		key := gkey{g.sym, g.count, g.stride}
		if g.count == 1 {
			key.stride = 0
		}
		id, ok := ids[key]
		if !ok {
			id = int32(len(gnodes))
			ids[key] = id
			n := nodes[g.sym]
			if g.count > 1 {
				n = s.vector(g.count, g.stride, n)
			}
			gnodes = append(gnodes, n)
		}
		gsyms[k], gdisps[k] = id, g.disp
	}
	return gsyms, gdisps, gnodes, true
}

// vector is count copies of c stride bytes apart (normalized by the
// builder), its extent the span of the copies' extents.
func (s *simplifier) vector(count, stride int64, c *dame.Node) *dame.Node {
	v := s.z.vector(count, 1, stride, c)
	if v != c && v.Extent == 0 && v.Op != dame.ContigFinal {
		v.Extent = (count-1)*stride + c.Extent
	}
	return v
}

// fewGroups reports whether the blocks of list node m may form at most
// max groups (runs of equal blocks at a constant stride, as reconstruct
// forms them), the check that lets a long list skip reconstruction before
// anything is allocated. Blocks count as equal when their children have
// the same op, size and extent and their block lengths agree (dame.Equal
// implies it), so the answer is an estimate; a list it turns away keeps
// what the local rules made of it. It stops at the first max+1 groups.
func fewGroups(m *dame.Node, max int) bool {
	same := func(i, j int) bool {
		a, b := m.ChildOf(i), m.ChildOf(j)
		return m.BlockLen(i) == m.BlockLen(j) && (a == b || a.Op == b.Op && a.Size == b.Size && a.Extent == b.Extent)
	}
	groups, start := 1, 0 // the open group starts at block start
	var count, stride int64 = 1, 0
	for i := 1; i < len(m.Disps); i++ {
		if same(i, start) {
			if count == 1 {
				count, stride = 2, m.Disps[i]-m.Disps[start]
				continue
			}
			if m.Disps[i] == m.Disps[start]+count*stride {
				count++
				continue
			}
		}
		if groups++; groups > max {
			return false
		}
		start, count = i, 1
	}
	return true
}

// repeatsStruct reports whether t has a struc node inside a repetition
// (vec, idx, idxbuc) — under is set inside one — that builds a STRUCT of
// subprograms, one every repetition enters: the cost model counts such a
// struct once, but the engines dispatch on its members at every
// repetition, more work per instance than the flat list it would replace
// (0.85x the list's pack speed for alternating blocks of one and two
// vectors of doubles, go test -bench SimplifiedPack ./dame/opt before this
// rule). Reconstructing a dame.BlockIndex or dame.Index list starts with under set:
// the engines loop over a list more cheaply than they dispatch on struct
// members. A struc whose members are all byte runs (symbols whose node is
// a leaf) is not refused: it becomes an indexed list of bytes.
func repeatsStruct(t *recon.Tree, under bool, nodes []*dame.Node) bool {
	switch t.Kind {
	case recon.Leaf:
		return false
	case recon.Struc:
		bytes := true
		for _, c := range t.Children {
			if repeatsStruct(c, false, nodes) {
				return true
			}
			bytes = bytes && c.Kind == recon.Leaf && nodes[c.Sym].Op == dame.ContigFinal
		}
		return under && !bytes
	}
	return repeatsStruct(t.Child, true, nodes)
}

// fromTree builds the DAME node of a reconstructed tree over the symbols
// nodes, and the displacement of its origin.
func (s *simplifier) fromTree(t *recon.Tree, nodes []*dame.Node) (*dame.Node, int64) {
	z := &s.z
	switch t.Kind {
	case recon.Leaf:
		return nodes[t.Sym], 0
	case recon.Vec:
		c, d := s.fromTree(t.Child, nodes)
		return s.vector(t.Count, t.Stride, c), d
	case recon.Idx, recon.IdxBuc:
		c, d := s.fromTree(t.Child, nodes)
		ds := make([]int64, len(t.Disps))
		for k, x := range t.Disps {
			ds[k] = x + d
		}
		bls := t.Sizes
		if t.Kind == recon.Idx {
			bls = make([]int64, len(ds))
			for k := range bls {
				bls[k] = 1
			}
		} else {
			// bucket copies lie Stride apart: the child's extent
			c = s.withExtent(c, t.Stride)
		}
		return z.indexed(ds, slices.Clone(bls), c)
	case recon.Struc:
		b := newBlockList(len(t.Children))
		for k, ct := range t.Children {
			c, d := s.fromTree(ct, nodes)
			b.add(t.Disps[k], 1, c, d)
		}
		return b.normalize(z, false)
	}
	panic("dame: reconstruction produced a " + "node of an unknown kind") // reconSet allows no other
}

// cost is n's cost in costModel, counting every use of a shared node.
func (s *simplifier) cost(n *dame.Node) int64 {
	if n.Op == dame.ContigFinal {
		return s.cm.Leaf
	}
	if c, ok := s.costs[n]; ok {
		return c
	}
	var c int64
	nb := int64(len(n.Disps))
	switch n.Op {
	case dame.Contig:
		c = s.cm.Vec + s.cost(n.Child)
	case dame.Vector, dame.BlockIndex:
		c = s.cm.Vec
		if n.Op == dame.BlockIndex {
			c = s.cm.Idx + nb*s.cm.Ix
		}
		if n.Blocklen > 1 {
			c += s.cm.Vec
		}
		c += s.cost(n.Child)
	case dame.Index:
		c = s.cm.IdxBuc + nb*(s.cm.Ix+s.cm.Bucket) + s.cost(n.Child)
	case dame.Struct:
		c = s.cm.Struc + nb*(s.cm.Ix+s.cm.Type)
		var prev *dame.Node
		var pc int64
		for i, k := range n.Blocklens {
			ch := n.Children[i]
			if ch != prev {
				prev, pc = ch, s.cost(ch)
			}
			c += pc
			if k > 1 {
				c += s.cm.Vec
			}
		}
	}
	if s.costs == nil {
		s.costs = map[*dame.Node]int64{}
	}
	s.costs[n] = c // each list asks for its subtree's cost
	return c
}
