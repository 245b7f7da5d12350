package ddt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/typegen"
)

// rangeCuts returns the packed offsets where ranges of count instances of
// ty are worth starting or ending: 0 and the end, every instance
// boundary, both ends of every contiguous memory run (the blocks' edges,
// as far as runs are not merged) and the bytes next to them, and a few
// random offsets.
func rangeCuts(r *rand.Rand, c *Committed, count, size int64) []int64 {
	cuts := []int64{0, size}
	if s, err := c.PackSize(1); err == nil && s > 0 {
		for k := int64(1); k < count; k++ {
			cuts = append(cuts, k*s)
		}
	}
	var at int64
	for _, n := range c.Segments(count, 0) {
		at += n
		cuts = append(cuts, at, at-1, at+1)
		if len(cuts) > 200 {
			break
		}
	}
	for range 8 {
		cuts = append(cuts, r.Int64N(size+1))
	}
	cuts = slices.DeleteFunc(cuts, func(x int64) bool { return x < 0 || x > size })
	slices.Sort(cuts)
	return slices.Compact(cuts)
}

// rangePairs returns the ranges [a, b) to test from the cuts: empty ranges,
// single bytes, cut to cut (neighbours and random pairs), every cut to
// the end of the message and from the start.
func rangePairs(r *rand.Rand, cuts []int64, size int64) [][2]int64 {
	var ps [][2]int64
	for i, a := range cuts {
		ps = append(ps, [2]int64{a, a}, [2]int64{a, size}, [2]int64{0, a})
		if a < size {
			ps = append(ps, [2]int64{a, a + 1})
		}
		if i+1 < len(cuts) {
			ps = append(ps, [2]int64{a, cuts[i+1]})
		}
		if i+2 < len(cuts) {
			ps = append(ps, [2]int64{a, cuts[i+2]})
		}
	}
	for range 10 {
		a, b := cuts[r.IntN(len(cuts))], cuts[r.IntN(len(cuts))]
		ps = append(ps, [2]int64{min(a, b), max(a, b)})
	}
	if len(ps) > 400 {
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		ps = ps[:400]
	}
	return ps
}

// rangeConfigs are the engine configurations checked range by range:
// every engine with every kernel set (capped at what the CPU supports) and
// Auto with native code generated at commit (see guardConfigs).
func rangeConfigs() []Options {
	var cs []Options
	for e := Interpreter; int(e) < len(engineNames); e++ {
		for _, k := range []string{"go", "avx2", "avx512", "neon"} {
			cs = append(cs, Options{Engine: e, Kernels: k, Threads: 1})
		}
	}
	return append(cs, Options{Engine: Auto, JITNow: true, Threads: 1}, Options{Engine: Auto, JITNow: true, Kernels: "avx2", Threads: 1})
}

// checkRanges packs and unpacks byte ranges [a, b) of count instances of
// ty with every configuration (a Packer or Unpacker moved there by SetPos)
// and compares each with the reference engine's: the packed bytes, the
// whole memory image after the unpack, and the bytes around the piece,
// which must stay as they were.
func checkRanges(t *testing.T, r *rand.Rand, ty *datatype.Type, count int64) {
	t.Helper()
	ref, err := CommitWith(ty, Options{Engine: Reference})
	if err != nil {
		t.Fatal(err)
	}
	src, origin := image(ty, count, 1)
	size := mustSize(ref, count)
	want := make([]byte, size)
	if _, err := ref.Pack(want, src, origin, count); err != nil {
		t.Fatal(err)
	}
	before, o := image(ty, count, 9)
	pairs := rangePairs(r, rangeCuts(r, ref, count, size), size)
	// the reference unpack of each range into a fresh image
	exp := make([][]byte, len(pairs))
	for i, ab := range pairs {
		exp[i] = bytes.Clone(before)
		u, err := ref.NewUnpacker(exp[i], o, count)
		if err != nil || u.SetPos(ab[0]) != nil {
			t.Fatalf("reference unpacker at %d: %v", ab[0], err)
		}
		if _, err := u.Unpack(want[ab[0]:ab[1]]); err != nil {
			t.Fatal(err)
		}
	}
	const pad = 16
	for _, opts := range rangeConfigs() {
		c, err := CommitWith(ty, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, ab := range pairs {
			a, b := ab[0], ab[1]
			what := func() string {
				return fmt.Sprintf("%+v (engine %v): %d instances of %v, range [%d, %d) of %d\nprogram:\n%s", opts, c.Engine(), count, ty, a, b, size, c.Program())
			}
			// pack: the piece in the middle of a larger buffer
			buf := make([]byte, b-a+2*pad)
			for k := range buf {
				buf[k] = 0xa5
			}
			p, err := c.NewPacker(src, origin, count)
			if err != nil || p.SetPos(a) != nil {
				t.Fatalf("%s: packer: %v", what(), err)
			}
			n, err := p.Pack(buf[pad : pad+b-a])
			if b > a && (err != nil || int64(n) != b-a) {
				t.Fatalf("%s: pack = %d, %v", what(), n, err)
			}
			if !bytes.Equal(buf[pad:pad+b-a], want[a:b]) {
				t.Fatalf("%s: pack differs from the reference\ngot  %v\nwant %v", what(), buf[pad:pad+b-a], want[a:b])
			}
			for k := range pad {
				if buf[k] != 0xa5 || buf[len(buf)-1-k] != 0xa5 {
					t.Fatalf("%s: pack wrote outside its piece", what())
				}
			}
			if p.Pos() != b {
				t.Fatalf("%s: packer at %d after the piece", what(), p.Pos())
			}
			// unpack into a fresh image: the whole image must match
			img := bytes.Clone(before)
			u, err := c.NewUnpacker(img, o, count)
			if err != nil || u.SetPos(a) != nil {
				t.Fatalf("%s: unpacker: %v", what(), err)
			}
			if n, err := u.Unpack(want[a:b]); err != nil || int64(n) != b-a {
				t.Fatalf("%s: unpack = %d, %v", what(), n, err)
			}
			if !bytes.Equal(img, exp[i]) {
				t.Fatalf("%s: unpack differs from the reference", what())
			}
		}
	}
}

// TestRangesMatchReference checks byte ranges of random types (empty,
// single bytes, block and instance edges, the message's end) with every
// engine against the reference engine. Run it under DDT_NOJIT=1 and
// DDT_NOASM=1 too.
func TestRangesMatchReference(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(41, 42))
	for i := range n {
		ty := randType(r, 1+i%4)
		checkRanges(t, r, ty, r.Int64N(4))
	}
}

// TestRangesLongLists checks ranges of types whose lists are long enough
// for the engines' list paths (the packed offsets of every 64th block
// cached, binary search for a range's first and last block, kernels over
// the blocks between): indexed and struct types of hundreds of blocks
// of varying lengths, of contiguous and non-contiguous elements, alone
// and under vectors.
func TestRangesLongLists(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	leaves := []*datatype.Type{datatype.Of(datatype.Double), datatype.Of(datatype.Float), datatype.Of(datatype.Char)}
	n := 40
	if testing.Short() {
		n = 10
	}
	for i := range n {
		ty := longListType(r, leaves[i%len(leaves)], i)
		checkRanges(t, r, ty, 1+r.Int64N(3))
	}
}

// TestRangesSortedLists is TestRangesLongLists for the lists the
// compiled engine unpacks in displacement order (dame.SortRule, here with
// thresholds low enough for lists of a few hundred blocks) when whole: a
// range of one unpacks in list order, the whole message, in pieces or
// not, in displacement order, and every one must match the reference.
// (Ranges that skip the blocks outside them while walking the sorted list
// were tried: LAMMPS_full L, 256 KiB packets over lists of 512 KiB,
// unpacked 3-4x slower than in list order, the skipped half of each list
// costing a mispredicted branch per block.)
func TestRangesSortedLists(t *testing.T) {
	defer engine.SetSortRule(engine.SetSortRule(dame.SortRule{MinBlocks: 8, MinAvgBlock: 1, MaxPacked: 1 << 20, Fixed: true}))
	r := rand.New(rand.NewPCG(45, 46))
	leaves := []*datatype.Type{datatype.Of(datatype.Double), datatype.Of(datatype.Float), datatype.Of(datatype.Char)}
	for i := range 12 {
		// shuffled lists of non-overlapping blocks of 1-3 elements, some
		// apart, alone and in a struct
		leaf := leaves[i%len(leaves)]
		bl := 1 + r.Int64N(3)
		nb := 65 + r.IntN(300)
		disps := make([]int64, nb)
		for k, d := 1, int64(0); k < nb; k++ {
			d += (bl + r.Int64N(2)) * leaf.Extent()
			disps[k] = d
		}
		r.Shuffle(nb, func(a, b int) { disps[a], disps[b] = disps[b], disps[a] })
		ty, err := datatype.HIndexedBlock(bl, disps, leaf)
		if err == nil && i%2 == 1 {
			ty, err = datatype.Struct([]int64{1, 1}, []int64{0, 8 << 10}, []*datatype.Type{ty, ty})
		}
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, r, ty, 1+r.Int64N(3))
	}
}

// longListType is a type of a few hundred blocks (variant picks the
// shape): hindexed of varying lengths, possibly unsorted, of a leaf or a
// small vector; a struct of such lists; a vector of them.
func longListType(r *rand.Rand, leaf *datatype.Type, variant int) *datatype.Type {
	must := func(t *datatype.Type, err error) *datatype.Type {
		if err != nil {
			panic(err)
		}
		return t
	}
	elem := leaf
	if variant%5 == 1 {
		elem = must(datatype.Vector(2, 1, 3, leaf))
	}
	nb := 65 + r.IntN(400)
	lens, disps := make([]int64, nb), make([]int64, nb)
	d := int64(0)
	for i := range nb {
		lens[i] = r.Int64N(5) // zero-length blocks too
		disps[i] = d
		d += (lens[i] + r.Int64N(3)) * elem.Extent()
	}
	if variant%3 == 2 {
		r.Shuffle(nb, func(i, j int) { lens[i], lens[j] = lens[j], lens[i]; disps[i], disps[j] = disps[j], disps[i] })
	}
	list := must(datatype.HIndexed(lens, disps, elem))
	switch variant % 4 {
	case 1:
		return must(datatype.HIndexedBlock(1+int64(variant%3), disps, elem))
	case 2:
		return must(datatype.Struct([]int64{1, 2, 1}, []int64{0, d + 8, 3*d + 64}, []*datatype.Type{list, leaf, list}))
	case 3:
		return must(datatype.HVector(3, 1, d+24, list))
	}
	return list
}

// FuzzRanges packs and unpacks byte ranges of a random type against the
// reference engine (checkRanges).
func FuzzRanges(f *testing.F) {
	f.Add(uint64(1), uint8(2), uint8(1))
	f.Add(uint64(7), uint8(4), uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, depth, count uint8) {
		r := rand.New(rand.NewPCG(seed, 2))
		if depth%8 >= 5 {
			checkRanges(t, r, longListType(r, typegen.Leaf(r), int(depth)), int64(count%4))
			return
		}
		checkRanges(t, r, randType(r, int(depth%5)), int64(count%4))
	})
}
