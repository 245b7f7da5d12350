package dame

// Irregular reports whether p still holds explicit block lists that an
// optimal reconstruction (package optimal) may shrink: lists of minBlocks
// to maxBlocks blocks in all (counting shared nodes once) whose gaps mostly
// repeat — at most a quarter of the consecutive gaps differ from the gap
// before them — as in a vector or a row and a column listed block by block
// in an order the local rewrites of Compile do not see through. Compile
// already merges touching blocks and turns runs of constant length and
// stride into vectors, so a list that reaches here regular is rare and
// worth the optimizer's tens of microseconds; random lists (the usual
// gather lists of applications) are not. It costs O(nodes + blocks) and
// stops once the blocks pass maxBlocks.
func Irregular(p *Program, minBlocks, maxBlocks int) bool {
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
	seen            [16]*Node // Struct children counted, the first few
	nseen           int
	seenMap         map[*Node]bool
}

// visit reports whether c was visited before and marks it.
func (s *listStats) visit(c *Node) bool {
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
	s.seenMap = map[*Node]bool{c: true}
	for _, x := range s.seen {
		s.seenMap[x] = true
	}
	return false
}

// add counts the lists of n's tree; it returns false once they pass max
// blocks.
func (s *listStats) add(n *Node, max int) bool {
	for {
		switch n.Op {
		case ContigFinal:
			return true
		case BlockIndex, Index, Struct:
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
		if n.Op != Struct {
			n = n.Child
			continue
		}
		for i, c := range n.Children {
			if i > 0 && c == n.Children[i-1] {
				continue
			}
			if c.Op == ContigFinal || s.visit(c) {
				continue
			}
			if !s.add(c, max) {
				return false
			}
		}
		return true
	}
}
