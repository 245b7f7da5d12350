package sigexp

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

var small = SignatureSet{Name: "small", Basics: []datatype.Basic{datatype.Int, datatype.Double, datatype.Char},
	MaxCount: 40, MaxMembers: 5, MaxRepeat: 6}

func exprSeq(e sigExpr) []datatype.Basic {
	var s []datatype.Basic
	e.runs(func(b datatype.Basic, n int64) {
		for range n {
			s = append(s, b)
		}
	})
	return s
}

func exprType(t *testing.T, e sigExpr) *datatype.Type {
	m := mk(t)
	i, j := datatype.Of(e.i), datatype.Of(e.j)
	if e.kind == 4 {
		return m(datatype.Contiguous(e.n, i))
	}
	st := m(datatype.Struct([]int64{1, e.n - 1}, []int64{0, 16}, []*datatype.Type{i, j}))
	f5 := m(datatype.Contiguous(e.m, st))
	if e.kind == 5 {
		return f5
	}
	return m(datatype.Struct([]int64{1, 1}, []int64{0, 64}, []*datatype.Type{i, f5}))
}

// TestSetEnumeration checks that each yields every signature of the three
// families exactly once.
func TestSetEnumeration(t *testing.T) {
	got := map[string]bool{}
	small.each(func(e sigExpr) {
		k := fmt.Sprint(exprSeq(e))
		if got[k] {
			t.Fatalf("%v yielded twice", e)
		}
		got[k] = true
	})
	want := map[string]bool{}
	for _, i := range small.Basics {
		for n := int64(1); n <= small.MaxCount; n++ {
			want[fmt.Sprint(exprSeq(sigExpr{4, i, i, n, 1}))] = true
		}
		for _, j := range small.Basics {
			for n := int64(1); n <= small.MaxMembers; n++ {
				for m := int64(1); m <= small.MaxRepeat; m++ {
					want[fmt.Sprint(exprSeq(sigExpr{5, i, j, n, m}))] = true
					want[fmt.Sprint(exprSeq(sigExpr{6, i, j, n, m}))] = true
				}
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d signatures, want %d", len(got), len(want))
	}
	for k := range want {
		if !got[k] {
			t.Fatalf("%s missing", k)
		}
	}
}

// TestOperators checks every operator's run-at-a-time fold against a plain
// element-by-element fold, and ours also against Of on the family's type.
func TestOperators(t *testing.T) {
	ops := Operators()
	small.each(func(e sigExpr) {
		seq := exprSeq(e)
		for k := range ops {
			o := &ops[k]
			acc := hv{x: 1}
			for _, b := range seq {
				if acc.n == 0 {
					acc = o.leaf(b)
				} else {
					acc = o.combine(acc, o.leaf(b))
				}
			}
			if f := o.flat(e); f != acc.h {
				t.Fatalf("%s %s %s on %v: flat %x, element by element %x", o.Operator1, o.Operator2, o.Operand, e, f, acc.h)
			}
		}
		o := ops[len(ops)-1]
		h := refHash(seq)
		if f, tr, of := o.flat(e), o.tree(e), sig.Of(exprType(t, e)).Hash; f != h || tr != h || of != h {
			t.Fatalf("ours on %v: flat %x tree %x Of %x, want %x", e, f, tr, of, h)
		}
	})
}

// TestPaperAdditionNotAssociative exhibits the flaw the Inconsistent
// column measures: with + modulo 2^32, rotation does not distribute over
// +, so ⊕ is not associative.
func TestPaperAdditionNotAssociative(t *testing.T) {
	var o Operator
	for _, op := range Operators() {
		if op.Operator1 == "+" && op.Operator2 == "rotate 1" && op.Operand == "medium" {
			o = op
		}
	}
	a := hv{h: 1, n: 1}
	b := hv{h: 0xffffffff, n: 1} // b + (b ≪ 1) carries out of bit 31
	l := o.combine(o.combine(a, b), b)
	r := o.combine(a, o.combine(b, b))
	if l.h == r.h {
		t.Fatalf("(a⊕b)⊕b = a⊕(b⊕b) = %x", l.h)
	}
	h := uint32(1 << 31)
	if bits.RotateLeft32(h+h, 1) == bits.RotateLeft32(h, 1)+bits.RotateLeft32(h, 1) {
		t.Fatal("rotation distributes")
	}
}

func TestExperiment(t *testing.T) {
	tb, err := Experiment(small, SignatureSet{Name: "pairs", Basics: allBasics(), MaxCount: 8, MaxMembers: 3, MaxRepeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != len(Operators()) || len(tb.Signatures) != 2 || tb.Signatures[0] == 0 {
		t.Fatalf("%+v", tb)
	}
	last := tb.Rows[len(tb.Rows)-1]
	for _, c := range last.Cells {
		if c != (Cell{}) {
			t.Errorf("ours: %+v", c)
		}
	}
	if c := tb.Rows[0].Cells[0]; c.Collisions == 0 || c.Inconsistent != 0 {
		t.Errorf("xor rotate 1 small: %+v", c)
	}
	out := tb.String()
	for _, want := range []string{"xor", "rotate 3", "medium", "+ mod 2^61-1", "small (", "57.4"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	for _, bad := range []SignatureSet{
		{Name: "empty"},
		{Name: "dup", Basics: []datatype.Basic{datatype.Int, datatype.Int}, MaxCount: 1, MaxMembers: 1, MaxRepeat: 1},
		{Name: "zero", Basics: []datatype.Basic{datatype.Int}},
		{Name: "huge", Basics: allBasics(), MaxCount: 1, MaxMembers: 1 << 20, MaxRepeat: 1 << 20},
		{Name: "bad", Basics: []datatype.Basic{200}, MaxCount: 1, MaxMembers: 1, MaxRepeat: 1},
	} {
		if _, err := Experiment(bad); err == nil {
			t.Errorf("set %s accepted", bad.Name)
		}
	}
	if !slices.Equal(small.Basics, []datatype.Basic{datatype.Int, datatype.Double, datatype.Char}) {
		t.Fatal("set modified")
	}
}

func mk(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
}

// refHash is the signature hash of seq by its definition, element by
// element: the sum of code(seq[k])·x^k modulo 2^61 − 1.
func refHash(seq []datatype.Basic) uint64 {
	h, xp := uint64(0), uint64(1)
	for _, b := range seq {
		h = addmod(h, mulmod(sig.Code(b), xp))
		xp = mulmod(xp, base)
	}
	return h
}
