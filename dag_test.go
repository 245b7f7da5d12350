package ddt

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// sharedTypes returns types that use subtypes several times (their
// programs share sub-programs): the benchmark's shapes made small, and
// random layers of structs over typegen's types (with DAG sharing of its
// own) that reuse the layers below, resized or not.
func sharedTypes(r *rand.Rand, n int) []*datatype.Type {
	ts := []*datatype.Type{
		structOfStructs(7, 13), structOfStructs(40, 3),
		sharedChain(1, 0), sharedChain(6, 4), sharedChain(9, 0),
	}
	for len(ts) < n {
		pool := []*datatype.Type{}
		for range 1 + r.IntN(3) {
			pool = append(pool, typegen.Random(r, typegen.Options{MaxElements: 64, MaxExtent: 1 << 10, Share: 0.5}))
		}
		for range 1 + r.IntN(3) { // layers
			k := 2 + r.IntN(5)
			bls, ds, tys := make([]int64, k), make([]int64, k), make([]*datatype.Type, k)
			var d int64
			for i := range k {
				c := pool[r.IntN(len(pool))]
				if r.IntN(3) == 0 {
					c = mustT(datatype.Resized(c, c.LB(), c.Extent()+int64(r.IntN(3))*8))
				}
				bls[i], ds[i], tys[i] = 1+r.Int64N(2), d-c.LB(), c
				if r.IntN(4) == 0 && i > 0 {
					ds[i] = ds[i-1] // overlapping blocks: pack must still match
				}
				d += bls[i]*max(c.Extent(), 1) + int64(r.IntN(2))*4
			}
			t, err := datatype.Struct(bls, ds, tys)
			if err != nil || t.Size() > 1<<16 {
				break
			}
			pool = append(pool, t)
		}
		if t := pool[len(pool)-1]; t.Size() > 0 && t.Size() <= 1<<16 {
			ts = append(ts, t)
		}
	}
	return ts
}

// dagEngines are the engines the shared-program tests run besides the
// reference engine.
var dagEngines = []Options{{Engine: Interpreter}, {Engine: Compiled}, {Engine: Auto, JITNow: true}, {Engine: Native}}

// TestSharedProgramsMatchReference checks types whose programs share
// sub-programs against the reference engine on every engine: whole, in
// random chunks and pieces (checkEngines), and packed and unpacked in two
// pieces split at every byte of the packed stream.
func TestSharedProgramsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(211, 212))
	n := 60
	if testing.Short() {
		n = 15
	}
	shared := 0
	for _, ty := range sharedTypes(r, n) {
		count := int64(1 + r.IntN(2))
		checkEngines(t, r, ty, count)
		src, origin, want, wantImg, o := referenceRun(t, ty, count)
		step := max(1, len(want)/300) // every split point of small messages
		for _, opts := range dagEngines {
			c, err := CommitWith(ty, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.Engine() == Reference {
				t.Fatalf("%+v: %v runs on the reference engine", opts, ty)
			}
			if sharesNodes(c.Program().Root, map[*dame.Node]bool{}) {
				shared++
			}
			got := make([]byte, len(want))
			for s := 0; s <= len(want); s += step {
				clear(got)
				p, _ := c.NewPacker(src, origin, count)
				if s > 0 {
					if k, err := p.Pack(got[:s]); err != nil || k != s {
						t.Fatalf("%+v: pack of [0, %d) = %d, %v", opts, s, k, err)
					}
				}
				if k, err := p.Pack(got[s:]); (err != nil && err != io.EOF) || k != len(want)-s {
					t.Fatalf("%+v: pack of [%d, %d) = %d, %v", opts, s, len(want), k, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%+v: %v, %d instances: pack split at %d differs from the reference\n%v", opts, ty, count, s, c.Program())
				}
				img, _ := image(ty, count, 9)
				u, _ := c.NewUnpacker(img, o, count)
				u.SetPos(int64(s))
				if _, err := u.Unpack(want[s:]); err != nil {
					t.Fatal(err)
				}
				u.SetPos(0)
				if _, err := u.Unpack(want[:s]); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(img, wantImg) {
					t.Fatalf("%+v: %v, %d instances: unpack split at %d (second half first) differs from the reference", opts, ty, count, s)
				}
			}
		}
	}
	if shared == 0 {
		t.Fatal("no program shares a node")
	}
}

// sharesNodes reports whether some node is reached twice under n (the
// program is a DAG, not a tree); leaves do not count.
func sharesNodes(n *dame.Node, seen map[*dame.Node]bool) bool {
	if n == nil || n.Op == dame.ContigFinal {
		return false
	}
	if seen[n] {
		return true
	}
	seen[n] = true
	if sharesNodes(n.Child, seen) {
		return true
	}
	for i, c := range n.Children {
		if i > 0 && c == n.Children[i-1] {
			continue // one block list naming one child, not a second use
		}
		if sharesNodes(c, seen) {
			return true
		}
	}
	return false
}

// TestSharedProgramsBounded checks that commit, the plan of every engine,
// the program's text and a piece of pack cost the description, not the
// expanded tree, for chains of shared structs whose expansion has 2^k
// nodes.
func TestSharedProgramsBounded(t *testing.T) {
	for _, k := range []int{20, 40} {
		ty := sharedChain(k, 0)
		start := time.Now()
		for _, opts := range append(dagEngines, Options{Engine: Compiled, Normalize: NormalizeAlways}, Options{Engine: Auto, Normalize: NormalizeAuto}) {
			c, err := CommitWith(ty, opts)
			if err != nil {
				t.Fatal(err)
			}
			if n := programNodes(c.Program().Root, map[*dame.Node]bool{}); n > 8*k {
				t.Errorf("%+v: %d program nodes for a chain of %d", opts, n, k)
			}
			if s := c.Program().String(); len(s) > 400*k {
				t.Errorf("%+v: program text of %d bytes for a chain of %d", opts, len(s), k)
			}
			if q, err := dame.Parse(c.Program().String()); err != nil || q.String() != c.Program().String() {
				t.Errorf("%+v: the program text does not parse back: %v", opts, err)
			}
			if pl := c.Plan(); len(pl) > 2000*k {
				t.Errorf("%+v: plan of %d bytes for a chain of %d", opts, len(pl), k)
			}
			if k > 20 {
				continue // 2^40 doubles: no image
			}
			src, origin := image(ty, 1, 1)
			p, _ := c.NewPacker(src, origin, 1)
			p.SetPos(ty.Size() / 3)
			if _, err := p.Pack(make([]byte, 1000)); err != nil {
				t.Fatal(err)
			}
			var segs int
			for range c.Segments(1, ty.Size()/2) {
				if segs++; segs == 100 {
					break
				}
			}
		}
		// two programs of one type compiled apart: equal, compared in
		// O(program) (the native code cache compares them)
		a, b := opt.Compile(ty), opt.Compile(ty)
		if a.Root == b.Root || !dame.Equal(a.Root, b.Root) || !dame.SameMoves(a.Root, b.Root) {
			t.Errorf("a chain of %d: two compilations are not equal", k)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("a chain of %d: %v", k, d)
		}
	}
}
