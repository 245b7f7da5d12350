package optimal

import "math/bits"

// letterHash holds polynomial hashes (mod 2^61 − 1) of the letters of a
// map — letter i ≥ 1 is (type of element i, d(i) − d(i−1)) — for O(1)
// comparisons of factors. Equal factors always hash equal; the bounds that
// use it treat a collision as an equality, which can only lower them.
type letterHash struct {
	typ []int32 // type ids
	gap []int64 // gap[i] = d(i) − d(i−1), i ≥ 1
	h   []uint64
	pw  []uint64
}

const hashMod = (1 << 61) - 1

func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a·b = hi·2^64 + lo, and 2^64 ≡ 8 (mod 2^61 − 1)
	r := (lo & hashMod) + (lo >> 61) + (hi << 3 & hashMod) + (hi >> 58)
	for r >= hashMod {
		r -= hashMod
	}
	return r
}

func newLetterHash(m TypeMap) *letterHash {
	n := len(m)
	lh := &letterHash{typ: make([]int32, n), gap: make([]int64, n), h: make([]uint64, n+1), pw: make([]uint64, n+1)}
	ids := map[string]int32{}
	for i, e := range m {
		id, seen := ids[e.Type]
		if !seen {
			id = int32(len(ids))
			ids[e.Type] = id
		}
		lh.typ[i] = id
		if i > 0 {
			lh.gap[i] = e.Disp - m[i-1].Disp
		}
	}
	const base = 0x1f3d5b79a2c4e687 % hashMod
	lh.pw[0] = 1
	for i := 1; i <= n; i++ {
		lh.pw[i] = mulMod(lh.pw[i-1], base)
		var x uint64
		if i-1 >= 1 {
			x = (uint64(lh.gap[i-1])*0x9e3779b97f4a7c15 ^ uint64(lh.typ[i-1])*0xc2b2ae3d27d4eb4f) % hashMod
		}
		lh.h[i] = (mulMod(lh.h[i-1], base) + x + 1) % hashMod
	}
	return lh
}

// sub is the hash of letters a … b−1 (1 ≤ a ≤ b ≤ n).
func (lh *letterHash) sub(a, b int) uint64 {
	return (lh.h[b] + hashMod - mulMod(lh.h[a], lh.pw[b-a])) % hashMod
}

// same reports whether letters i and j are equal.
func (lh *letterHash) same(i, j int) bool {
	return lh.gap[i] == lh.gap[j] && lh.typ[i] == lh.typ[j]
}

// eq reports whether the letters a … a+l−1 equal b … b+l−1 (up to
// collisions).
func (lh *letterHash) eq(a, b, l int) bool {
	return l <= 0 || lh.sub(a, a+l) == lh.sub(b, b+l)
}
