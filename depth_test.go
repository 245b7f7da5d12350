package ddt

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/lang"
	"github.com/ddtlab/ddt/sig"
)

// chain builds a type of depth datatype.MaxDepth whose levels cycle
// through the constructors that take one old type, doubling the data a few
// times on the way (so the engines have loops and gaps at several depths).
func chain(t *testing.T) *datatype.Type {
	t.Helper()
	must := func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	ty := datatype.Of(datatype.Int)
	for lvl := 1; lvl <= datatype.MaxDepth; lvl++ {
		ext := ty.Extent()
		switch {
		case lvl%100 == 0:
			ty = must(datatype.HVector(2, 1, ext+4, ty))
		case lvl%100 == 50:
			ty = must(datatype.Struct([]int64{1, 2}, []int64{0, ext + 8}, []*datatype.Type{ty, datatype.Of(datatype.Short)}))
		case lvl%6 == 0:
			ty = must(datatype.Contiguous(1, ty))
		case lvl%6 == 1:
			ty = must(datatype.Resized(ty, 0, ext+2))
		case lvl%6 == 2:
			ty = must(datatype.HIndexedBlock(1, []int64{3}, ty))
		case lvl%6 == 3:
			ty = must(datatype.Dup(ty))
		case lvl%6 == 4:
			ty = must(datatype.Indexed([]int64{1}, []int64{0}, ty))
		default:
			ty = must(datatype.Vector(1, 1, 1, ty))
		}
	}
	if ty.Depth() != datatype.MaxDepth {
		t.Fatalf("chain depth %d, want %d", ty.Depth(), datatype.MaxDepth)
	}
	return ty
}

// TestDepthLimitEndToEnd runs a type at the depth limit through every
// recursive walk (signature, DAME compilation and text, printing and
// parsing, commit with every engine, pack and unpack whole and in pieces)
// and checks that one level more is refused with an error naming the
// constructor, through the library and through the type language.
func TestDepthLimitEndToEnd(t *testing.T) {
	ty := chain(t)
	if s := sig.Of(ty); s != sig.Of(ty) {
		t.Error("signature not deterministic")
	}
	if _, err := sig.OfCount(ty, 3); err != nil {
		t.Error(err)
	}
	if k := ty.Elements() / 2; k > 0 {
		if _, err := sig.Prefix(ty, 1, k); err != nil {
			t.Error(err)
		}
	}
	p := opt.Compile(ty)
	if q, err := dame.Parse(p.String()); err != nil || q.String() != p.String() {
		t.Errorf("DAME text of a MaxDepth type does not round-trip: %v", err)
	}
	src := lang.Format(ty)
	back, err := lang.Parse("deep.ddt", []byte(src))
	if err != nil || !datatype.Equal(back, ty) {
		t.Errorf("printing and parsing a MaxDepth type: %v", err)
	}
	checkEngines(t, rand.New(rand.NewPCG(1, 2)), ty, 3)
	checkEnginesWith(t, rand.New(rand.NewPCG(3, 4)), ty, 2, true)

	// one level more
	if _, err := datatype.Contiguous(1, ty); !errors.Is(err, datatype.ErrTooDeep) {
		t.Errorf("contiguous over a MaxDepth type: %v, want ErrTooDeep", err)
	}
	var b strings.Builder
	b.WriteString("t0 = int\n")
	for i := 1; i <= datatype.MaxDepth+1; i++ {
		fmt.Fprintf(&b, "t%d = contiguous(1, t%d)\n", i, i-1)
	}
	fmt.Fprintf(&b, "t%d\n", datatype.MaxDepth+1)
	_, err = lang.Parse("chain.ddt", []byte(b.String()))
	var ae *datatype.ArgError
	if !errors.As(err, &ae) || ae.Constructor != "contiguous" || !errors.Is(err, datatype.ErrTooDeep) {
		t.Errorf("a chain of MaxDepth+1 bindings: %v, want a depth error of contiguous", err)
	}
}

// TestCommitSharedSubtypes checks that a type whose tree is exponentially
// larger than its description when shared subtypes are expanded compiles
// into a program that shares them (a DAG) in O(description), runs on the
// engine asked for, and packs by the bytes moved: pieces of a 4 TiB
// message (its start and a piece in the middle), checked against the type
// map.
func TestCommitSharedSubtypes(t *testing.T) {
	ty := datatype.Of(datatype.Int)
	for range 40 {
		r, err := datatype.Resized(ty, 0, 4)
		if err != nil {
			t.Fatal(err)
		}
		if ty, err = datatype.Struct([]int64{1, 1}, []int64{0, 4}, []*datatype.Type{ty, r}); err != nil {
			t.Fatal(err)
		}
	}
	if !Compilable(ty) || !Compilable(chain(t)) {
		t.Fatal("a type is not compilable")
	}
	src, origin := image(ty, 1, 5)
	var want []byte // the first 4 KiB of the type map
	ty.Walk(1, func(b datatype.Basic, d int64) bool {
		want = append(want, src[origin+d:origin+d+b.Size()]...)
		return len(want) < 4096
	})
	want = want[:4096]
	// a piece in the middle of the 4 TiB, as the reference engine packs
	// it (no engine walks the type map before it: they seek to it)
	const mid = 1<<41 + 12345
	ref, err := CommitWith(ty, Options{Engine: Reference})
	if err != nil {
		t.Fatal(err)
	}
	rp, err := ref.NewPacker(src, origin, 1)
	if err != nil {
		t.Fatal(err)
	}
	wantMid := make([]byte, 100)
	rp.SetPos(mid)
	if n, err := rp.Pack(wantMid); err != nil || n != 100 {
		t.Fatalf("reference pack = %d, %v", n, err)
	}
	for _, e := range []Engine{Interpreter, Compiled, Auto, Native} {
		start := time.Now()
		c, err := CommitWith(ty, Options{Engine: e})
		if err != nil {
			t.Fatal(err)
		}
		if c.Engine() == Reference {
			t.Errorf("%v: engine %v", e, c.Engine())
		}
		if n := programNodes(c.Program().Root, map[*dame.Node]bool{}); n > 200 {
			t.Errorf("%v: program of %d distinct nodes", e, n)
		}
		if _, err := c.Pack(make([]byte, 16), src, origin, 0); err != nil {
			t.Fatal(err)
		}
		p, err := c.NewPacker(src, origin, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 4096)
		if n, err := p.Pack(got); err != nil || n != len(got) {
			t.Fatalf("pack = %d, %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: the first 4 KiB differ from the type map", e)
		}
		p.SetPos(mid)
		if n, err := p.Pack(got[:100]); err != nil || n != 100 {
			t.Fatalf("pack = %d, %v", n, err)
		}
		if !bytes.Equal(got[:100], wantMid) {
			t.Errorf("%v: 100 bytes at %d differ from the reference engine's", e, int64(mid))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: commit and 4 KiB of pack took %v", e, d)
		}
	}
}

// programNodes counts the distinct nodes under n.
func programNodes(n *dame.Node, seen map[*dame.Node]bool) int {
	if n == nil || seen[n] {
		return 0
	}
	seen[n] = true
	k := 1 + programNodes(n.Child, seen)
	for _, c := range n.Children {
		k += programNodes(c, seen)
	}
	return k
}
