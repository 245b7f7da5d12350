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
// larger than its description when shared subtypes are expanded commits
// in O(description) (on the reference engine) and packs by the bytes
// moved: the first 4 KiB of a 4 TiB message, checked against the type map.
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
	if Compilable(ty) {
		t.Fatal("a chain of 40 shared structs is compilable")
	}
	if !Compilable(chain(t)) {
		t.Fatal("a MaxDepth chain is not compilable")
	}
	start := time.Now()
	c, err := CommitWith(ty, Options{Engine: Compiled})
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine() != Reference {
		t.Errorf("engine %v, want the reference engine", c.Engine())
	}
	src, origin := image(ty, 1, 5)
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
	var want []byte
	ty.Walk(1, func(b datatype.Basic, d int64) bool {
		want = append(want, src[origin+d:origin+d+b.Size()]...)
		return len(want) < len(got)
	})
	if !bytes.Equal(got, want) {
		t.Error("the first 4 KiB differ from the type map")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("commit and 4 KiB of pack took %v", d)
	}
}
