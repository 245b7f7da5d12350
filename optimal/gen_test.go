package optimal

import "math/rand/v2"

var genTypes = []string{"int", "int", "int", "double", "char", "short"}

// randTree returns a random tree of the paper's constructors (and, with
// extra, contiguous leaves and strided buckets) representing at most maxLen
// elements, with small parameters so that structure repeats.
func randTree(rng *rand.Rand, maxLen int, depth int, extra bool) *Node {
	leaf := func() *Node {
		t := genTypes[rng.IntN(len(genTypes))]
		if extra && maxLen >= 2 && rng.IntN(3) == 0 {
			sz, _ := DefaultSizes().Size(t)
			return &Node{Kind: Leaf, Type: t, Count: int64(2 + rng.IntN(min(maxLen-1, 4))), Size: sz}
		}
		return &Node{Kind: Leaf, Type: t, Count: 1}
	}
	if maxLen < 2 || depth <= 0 || rng.IntN(5) == 0 {
		return leaf()
	}
	disp := func() int64 { return int64(rng.IntN(60) - 20) }
	k := rng.IntN(6)
	if !extra && k == 5 {
		k = rng.IntN(5)
	}
	switch k {
	case 0: // vec
		c := 2 + rng.IntN(min(maxLen/2, 5))
		return &Node{Kind: Vec, Count: int64(c), Stride: int64(rng.IntN(40) - 8), Child: randTree(rng, maxLen/c, depth-1, extra)}
	case 1: // idx
		c := 1 + rng.IntN(min(maxLen, 4))
		n := &Node{Kind: Idx, Child: randTree(rng, maxLen/c, depth-1, extra)}
		for range c {
			n.Disps = append(n.Disps, disp())
		}
		return n
	case 2: // idxbuc
		c := 1 + rng.IntN(3)
		per := maxLen / c
		if per < 1 {
			return leaf()
		}
		n := &Node{Kind: IdxBuc, Stride: int64(rng.IntN(20) - 4)}
		total := 0
		for range c {
			a := 1 + rng.IntN(min(per, 3))
			n.Disps = append(n.Disps, disp())
			n.Sizes = append(n.Sizes, int64(a))
			total += a
		}
		n.Child = randTree(rng, maxLen/total, depth-1, extra)
		return n
	case 3, 4: // struc
		c := 2 + rng.IntN(min(maxLen-1, 3))
		n := &Node{Kind: Struc}
		for range c {
			n.Disps = append(n.Disps, disp())
			n.Children = append(n.Children, randTree(rng, maxLen/c, depth-1, extra))
		}
		return n
	default: // sbuc
		c := 1 + rng.IntN(3)
		per := maxLen / c
		if per < 1 {
			return leaf()
		}
		n := &Node{Kind: SBuc, Stride: int64(rng.IntN(60)), Inner: int64(rng.IntN(10) + 1)}
		total := 0
		for range c {
			a := 1 + rng.IntN(min(per, 3))
			n.Sizes = append(n.Sizes, int64(a))
			total += a
		}
		n.Child = randTree(rng, maxLen/total, depth-1, extra)
		return n
	}
}

// randMap returns a random type map of length in [1, maxLen]: a flattened
// random tree, then perturbed with noise, duplicates and a shift.
func randMap(rng *rand.Rand, maxLen int, extra bool) TypeMap {
	var m TypeMap
	switch rng.IntN(8) {
	case 0: // unstructured
		n := 1 + rng.IntN(maxLen)
		for range n {
			m = append(m, Elem{genTypes[rng.IntN(2)*3], int64(rng.IntN(40) - 10)})
		}
		return m
	default:
		t := randTree(rng, maxLen, 4, extra)
		m, _ = Flatten(t)
	}
	if len(m) == 0 {
		m = TypeMap{{"int", 0}}
	}
	if rng.IntN(3) == 0 { // noise
		for range 1 + rng.IntN(2) {
			m[rng.IntN(len(m))].Disp += int64(rng.IntN(9) - 4)
		}
	}
	if rng.IntN(4) == 0 && len(m) < maxLen { // duplicate an element
		k := rng.IntN(len(m))
		at := rng.IntN(len(m) + 1)
		m = append(m[:at], append(TypeMap{m[k]}, m[at:]...)...)
	}
	if rng.IntN(4) == 0 && len(m) < maxLen { // change a type
		m[rng.IntN(len(m))].Type = "char"
	}
	if len(m) > maxLen {
		m = m[:maxLen]
	}
	switch rng.IntN(3) { // shift
	case 0:
		x := m[0].Disp
		for k := range m {
			m[k].Disp -= x
		}
	case 1:
		x := int64(rng.IntN(30) - 15)
		for k := range m {
			m[k].Disp += x
		}
	}
	return m
}
