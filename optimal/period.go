package optimal

// maxPeriodExact is the longest block (and rest) periodTree reconstructs
// exactly (Reconstruct, O(p³): about 2 s at 2048 elements); longer ones
// get the approximation, recursively.
const maxPeriodExact = 2048

// maxPeriodDepth bounds periodTree's recursion through the approximation
// of its blocks.
const maxPeriodDepth = 3

// periodTree is a candidate of the approximation for periodic maps: with
// p the least period of m — element i+p is element i's type at
// displacement d(i) + s for one shift s and every i < n − p — and p ≤ n/2,
// m is c = ⌊n/p⌋ translated copies of its first p elements s apart, then
// its first r = n − c·p elements once more (translated). The tree is
// vec(c, s, T(block)), in a struc of two entries with T(first r elements)
// when r > 0 (of one entry when m starts at a nonzero displacement and
// r = 0), T exact for at most maxPeriodExact elements and else the
// approximation's tree. A block of several types or of a shape the
// approximation's chain, segments and rules do not see as a whole (a
// period of 3000 elements: three runs of a 3-element struct) is solved on
// its own. O(n) for the period (prefix function) plus the two trees.
func periodTree(m TypeMap, opts Options, maxSeq, depth int) (tree *Node, cost int64, ok bool) {
	n := len(m)
	if n < 4 || depth > maxPeriodDepth {
		return nil, 0, false
	}
	p := leastPeriod(m)
	if p == 0 || p > n/2 {
		return nil, 0, false
	}
	sub := func(x TypeMap) (*Node, bool) {
		x = aligned(x)
		if len(x) <= maxPeriodExact {
			t, _, err := Reconstruct(x, opts)
			return t, err == nil
		}
		t, _, _, err := approximateAt(x, opts, maxSeq, depth+1)
		return t, err == nil
	}
	block, ok := sub(m[:p])
	if !ok {
		return nil, 0, false
	}
	c := n / p
	r := n - c*p
	v := &Node{Kind: Vec, Count: int64(c), Stride: m[p].Disp - m[0].Disp, Child: block}
	switch {
	case r > 0:
		rest, ok := sub(m[c*p:])
		if !ok {
			return nil, 0, false
		}
		tree = &Node{Kind: Struc, Disps: []int64{m[0].Disp, m[c*p].Disp}, Children: []*Node{v, rest}}
	case m[0].Disp != 0:
		tree = &Node{Kind: Struc, Disps: []int64{m[0].Disp}, Children: []*Node{v}}
	default:
		tree = v
	}
	if !opts.Constructors.Allows(tree) {
		return nil, 0, false
	}
	return tree, treeCost(tree, opts.Cost, map[*Node]int64{}), true
}

// leastPeriod returns the least p ≥ 1 such that element i+p of m is
// element i's type at d(i) + (d(p) − d(0)) for every i < n − p, or 0 if
// only n is; by the prefix function of the letters (type, gap to the
// element before) of elements 1 … n−1, whose periods p are those with
// letter i+p = letter i, and t(p) = t(0).
func leastPeriod(m TypeMap) int {
	n := len(m)
	type letter struct {
		t string
		g int64
	}
	x := make([]letter, n-1)
	for i := 1; i < n; i++ {
		x[i-1] = letter{m[i].Type, m[i].Disp - m[i-1].Disp}
	}
	pi := make([]int32, len(x))
	for i := 1; i < len(x); i++ {
		k := int(pi[i-1])
		for k > 0 && x[i] != x[k] {
			k = int(pi[k-1])
		}
		if x[i] == x[k] {
			k++
		}
		pi[i] = int32(k)
	}
	// the periods of x are len(x) − b for its borders b, longest first
	for b := int(pi[len(x)-1]); b > 0; b = int(pi[b-1]) {
		if p := len(x) - b; m[p].Type == m[0].Type {
			return p
		}
	}
	return 0
}
