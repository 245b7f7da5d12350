package recon

import "fmt"

// Phrases returns z, the fewest phrases of a parse of the gap string of
// the sequence (sym, disp), each phrase being one symbol or a copy of an
// earlier substring (overlapping allowed: the self-referential LZ77 parse,
// which the greedy longest-previous-factor parse attains).
//
// The gap string has one letter per element: element 0 the letter (sym[0],
// start), element i > 0 the letter (sym[i], disp[i]-disp[i-1]); a
// translated copy of a part of the sequence has the same letters except its
// first. Every tree over the constructors needs at most a bounded number of
// phrases per unit of its cost (docs/normalization.md, "The phrase bound"),
// so z bounds the cost of every tree from below.
//
// Time O(n log n) (a suffix array by prefix doubling with counting sorts,
// Kasai's LCP, nearest smaller positions by a stack); memory about 32
// bytes per element.
func Phrases(sym []int32, disp []int64) (int, error) {
	n := len(sym)
	if len(disp) != n {
		return 0, fmt.Errorf("recon: %d symbols at %d displacements", n, len(disp))
	}
	if n > MaxChainLen {
		return 0, fmt.Errorf("recon: sequence of %d elements, more than %d", n, MaxChainLen)
	}
	if n == 0 {
		return 0, nil
	}
	type letter struct {
		sym   int32
		first bool
		gap   int64
	}
	ids := map[letter]int32{}
	s := make([]int32, n)
	for i := range n {
		l := letter{sym: sym[i], first: i == 0}
		if i > 0 {
			l.gap = disp[i] - disp[i-1]
		}
		id, ok := ids[l]
		if !ok {
			id = int32(len(ids))
			ids[l] = id
		}
		s[i] = id
	}
	ids = nil
	sa := suffixArray(s, len(s))
	lcp := kasai(s, sa)
	// lpf[i]: the longest common prefix of suffix i with a suffix starting
	// before i, from its nearest neighbours in suffix order that start
	// before it (on either side).
	lpf := make([]int32, n)
	nearest := func(from, to, step int) {
		stack := make([]int32, 0, 64) // ranks, with increasing positions
		lk := make([]int32, 0, 64)    // lk[k]: min LCP between stack[k] and stack[k+1]
		const big = int32(1 << 30)
		cm := big
		for r := from; r != to; r += step {
			if r != from {
				// LCP between the suffixes at ranks r-step and r
				if step > 0 {
					cm = min(cm, lcp[r])
				} else {
					cm = min(cm, lcp[r+1])
				}
			}
			for len(stack) > 0 && sa[stack[len(stack)-1]] > sa[r] {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					cm = min(cm, lk[len(lk)-1])
					lk = lk[:len(lk)-1]
				}
			}
			if len(stack) > 0 {
				lpf[sa[r]] = max(lpf[sa[r]], cm)
				lk = append(lk, cm)
			}
			stack = append(stack, int32(r))
			cm = big
		}
	}
	nearest(0, n, 1)
	nearest(n-1, -1, -1)
	z := 0
	for i := 0; i < n; z++ {
		i += max(1, int(lpf[i]))
	}
	return z, nil
}

// suffixArray returns the suffix array of s (letters in [0, k)), by prefix
// doubling with counting sorts: O(n log n).
func suffixArray(s []int32, k int) []int32 {
	n := len(s)
	sa := make([]int32, n)
	rank := make([]int32, n)
	tmp := make([]int32, n)
	cnt := make([]int32, max(n, k)+1)
	copy(rank, s)
	for i := range sa {
		sa[i] = int32(i)
	}
	countSort := func(keyMax int, key func(int32) int32, in, out []int32) {
		c := cnt[:keyMax+1]
		clear(c)
		for _, i := range in {
			c[key(i)]++
		}
		sum := int32(0)
		for x := range c {
			c[x], sum = sum, sum+c[x]
		}
		for _, i := range in {
			kx := key(i)
			out[c[kx]] = i
			c[kx]++
		}
	}
	countSort(k, func(i int32) int32 { return rank[i] }, sa, tmp)
	sa, tmp = tmp, sa
	// ranks of the first letters
	newRank := make([]int32, n)
	classes := int32(0)
	for x := range sa {
		if x > 0 && rank[sa[x]] != rank[sa[x-1]] {
			classes++
		}
		newRank[sa[x]] = classes
	}
	rank, newRank = newRank, rank
	for h := 1; int(classes) < n-1; h *= 2 {
		// order by the second key: suffixes without one first, then by sa
		p := 0
		for i := n - h; i < n; i++ {
			tmp[p] = int32(i)
			p++
		}
		for _, i := range sa {
			if int(i) >= h {
				tmp[p] = i - int32(h)
				p++
			}
		}
		countSort(int(classes), func(i int32) int32 { return rank[i] }, tmp, sa)
		second := func(i int32) int32 {
			if int(i)+h < n {
				return rank[int(i)+h]
			}
			return -1
		}
		classes = 0
		newRank[sa[0]] = 0
		for x := 1; x < n; x++ {
			a, b := sa[x-1], sa[x]
			if rank[a] != rank[b] || second(a) != second(b) {
				classes++
			}
			newRank[b] = classes
		}
		rank, newRank = newRank, rank
	}
	return sa
}

// kasai returns lcp with lcp[r] the longest common prefix of the suffixes
// at ranks r-1 and r (lcp[0] = 0).
func kasai(s, sa []int32) []int32 {
	n := len(s)
	rank := make([]int32, n)
	for r, i := range sa {
		rank[i] = int32(r)
	}
	lcp := make([]int32, n+1)
	h := 0
	for i := range n {
		r := rank[i]
		if r == 0 {
			h = 0
			continue
		}
		j := int(sa[r-1])
		for i+h < n && j+h < n && s[i+h] == s[j+h] {
			h++
		}
		lcp[r] = int32(h)
		if h > 0 {
			h--
		}
	}
	return lcp
}
