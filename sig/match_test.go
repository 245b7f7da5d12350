package sig

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

func TestMatch(t *testing.T) {
	m := mk(t)
	in, db, by := datatype.Of(datatype.Int), datatype.Of(datatype.Double), datatype.Of(datatype.Byte)
	ch := datatype.Of(datatype.Char)
	// an int followed by 50 doubles (seed 004 §4)
	long := m(datatype.Struct([]int64{1, 50}, []int64{0, 8}, []*datatype.Type{in, db}))
	short := m(datatype.Struct([]int64{1, 10}, []int64{0, 8}, []*datatype.Type{in, db}))
	wrong := m(datatype.Struct([]int64{1, 10}, []int64{0, 8}, []*datatype.Type{db, db}))
	send := func(ty *datatype.Type, c int64) Sig {
		s, err := OfCount(ty, c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name  string
		sent  Sig
		recv  *datatype.Type
		count int64
		want  string // "" for a match, else a substring of the error
	}{
		{"ints into a vector", send(in, 10), m(datatype.Vector(5, 2, 3, in)), 1, ""},
		{"short message, prefix checked", send(short, 1), long, 1, ""},
		{"short message, bad prefix", send(wrong, 1), long, 1, "mismatch"},
		{"long message", send(long, 1), short, 1, "truncated: 51 elements sent, the receive holds 11"},
		{"partial instances", send(in, 7), in, 10, ""},
		{"int vs double", send(in, 4), db, 4, "element 0: sent int, the receive expects double"},
		{"ints vs struct", send(in, 3), long, 1, "element 1: sent int, the receive expects double"},
		{"double_int vs struct", send(datatype.DoubleInt, 2),
			m(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{db, in})), 2, ""},
		{"bytes match bytes", send(by, 16), m(datatype.Contiguous(4, by)), 4, ""},
		{"bytes do not match chars", send(by, 16), ch, 16, "sent byte, the receive expects char"},
		{"ints do not match bytes", send(in, 4), by, 16, "sent int, the receive expects byte"},
		{"empty message", Sig{}, db, 3, ""},
		{"into nothing", send(in, 1), in, 0, "truncated"},
	} {
		err := Match(c.sent, c.recv, c.count)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	var te *TruncationError
	if err := Match(send(long, 1), short, 1); !errors.As(err, &te) || te.Sent != 51 || te.Capacity != 11 {
		t.Errorf("truncation: %v", err)
	}
	var me *MismatchError
	if err := Match(send(in, 4), db, 4); !errors.As(err, &me) || !me.Exact || me.Index != 0 {
		t.Errorf("uniform mismatch: %#v", err)
	}
	if err := Match(Sig{Hash: 1, N: -1}, db, 1); err == nil {
		t.Error("invalid signature accepted")
	}
	if err := Match(Sig{Hash: 5, N: 2, Uniform: true, Basic: datatype.Int}, in, 2); err == nil {
		t.Error("forged uniform signature accepted")
	}
	if err := Match(send(in, 1), nil, 1); err == nil {
		t.Error("nil receive type accepted")
	}
	if err := Match(send(in, 1), in, -1); err == nil {
		t.Error("negative count accepted")
	}
	// a receive larger than int64 elements: no overflow
	if err := Match(send(in, 3), m(datatype.Contiguous(1<<40, in)), 1<<40); err != nil {
		t.Errorf("huge receive: %v", err)
	}
}

func TestMatchTypes(t *testing.T) {
	m := mk(t)
	in, db, fl := datatype.Of(datatype.Int), datatype.Of(datatype.Double), datatype.Of(datatype.Float)
	a := m(datatype.Struct([]int64{1, 3, 2}, []int64{0, 8, 40}, []*datatype.Type{in, db, fl}))
	b := m(datatype.Struct([]int64{1, 3, 2}, []int64{0, 8, 40}, []*datatype.Type{in, db, in}))
	err := MatchTypes(a, 100, b, 100)
	var me *MismatchError
	if !errors.As(err, &me) || !me.Known || me.Index != 4 || me.SentBasic != datatype.Float || me.RecvBasic != datatype.Int {
		t.Fatalf("%v", err)
	}
	if err := MatchTypes(a, 3, a, 5); err != nil {
		t.Fatal(err)
	}
	// a difference in instance 70
	c := m(datatype.Contiguous(100, a))
	parts := []*datatype.Type{m(datatype.Contiguous(70, a)), b, m(datatype.Contiguous(29, a))}
	d := m(datatype.Struct([]int64{1, 1, 1}, []int64{0, 0, 0}, parts))
	if err := MatchTypes(c, 1, d, 1); !errors.As(err, &me) || me.Index != 70*6+4 {
		t.Fatalf("%v", err)
	}
}

func TestPacked(t *testing.T) {
	m := mk(t)
	in, db := datatype.Of(datatype.Int), datatype.Of(datatype.Double)
	pair := m(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{in, db}))

	var p Packed
	if err := p.Pack(in, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Pack(db, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Pack(pair, 2); err != nil {
		t.Fatal(err)
	}
	// sending the packed buffer matches a typed receive of the same signature
	if err := Match(p.Sig(), pair, 3); err != nil {
		t.Fatal(err)
	}
	if err := Match(p.Sig(), datatype.DoubleInt, 3); err == nil {
		t.Fatal("packed (int, double)×3 matched double_int")
	}
	// receive as packed, unpack piecewise
	q, err := Received(p.Sig())
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range []*datatype.Type{in, db, in, db} {
		if err := q.Unpack(ty, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Unpack(pair, 1); err != nil || q.Remaining() != 0 {
		t.Fatal(err, q.Remaining())
	}
	if err := q.Unpack(in, 1); err == nil {
		t.Fatal("unpacked past the end")
	}
	// a wrong unpack is found when the buffer is complete
	q, _ = Received(p.Sig())
	if err := q.Unpack(pair, 2); err != nil {
		t.Fatal(err)
	}
	if err := q.Unpack(datatype.DoubleInt, 1); err == nil {
		t.Fatal("wrong unpack accepted")
	}
	// a uniform buffer is checked exactly at every unpack
	var u Packed
	_ = u.Pack(db, 10)
	if err := u.Unpack(db, 4); err != nil {
		t.Fatal(err)
	}
	var me *MismatchError
	if err := u.Unpack(pair, 1); !errors.As(err, &me) || me.Index != 4 || me.RecvBasic != datatype.Int {
		t.Fatalf("%v", err)
	}
	if err := u.Unpack(db, 6); err != nil || u.Remaining() != 0 {
		t.Fatal(err)
	}
	// opaque bytes are not checked
	o := Opaque()
	if o.Known() || o.Unpack(pair, 5) != nil {
		t.Fatal("opaque buffer checked")
	}
}
