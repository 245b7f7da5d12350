package gotype

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

type inner struct {
	A int8
	B [3]uint16
	C float64
}

type outer struct {
	Flag  bool
	In    inner
	Ins   [2]inner
	Z     complex64
	_     [0]int64 // size 0: left out
	Count uint32
	Tail  int8 // trailing padding follows
}

// flatten lists (size, offset) of every basic field of t by reflection,
// independently of derive.
func flatten(t reflect.Type, base uintptr, out *[][2]int64) {
	switch t.Kind() {
	case reflect.Array:
		for i := range t.Len() {
			flatten(t.Elem(), base+uintptr(i)*t.Elem().Size(), out)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			flatten(f.Type, base+f.Offset, out)
		}
	case reflect.Complex64, reflect.Complex128:
		*out = append(*out, [2]int64{int64(t.Size()), int64(base)})
	default:
		*out = append(*out, [2]int64{int64(t.Size()), int64(base)})
	}
}

func TestLayout(t *testing.T) {
	for _, rt := range []reflect.Type{
		reflect.TypeFor[outer](), reflect.TypeFor[inner](), reflect.TypeFor[[4][3]float32](),
		reflect.TypeFor[struct {
			X byte
			Y int
		}](), reflect.TypeFor[int](), reflect.TypeFor[struct{}](),
	} {
		dt, err := TypeOf(rt)
		if err != nil {
			t.Fatalf("%v: %v", rt, err)
		}
		if dt.Extent() != int64(rt.Size()) || dt.LB() != 0 {
			t.Errorf("%v: lb %d extent %d, Go size %d", rt, dt.LB(), dt.Extent(), rt.Size())
		}
		var want [][2]int64
		flatten(rt, 0, &want)
		var got [][2]int64
		for b, d := range dt.All(1) {
			got = append(got, [2]int64{b.Size(), d})
		}
		if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%v: type map %v, Go fields %v", rt, got, want)
		}
	}
}

// TestPackStructs packs every other element of a []outer and compares with
// the fields encoded one by one.
func TestPackStructs(t *testing.T) {
	s := make([]outer, 5)
	for i := range s {
		s[i] = outer{Flag: i%2 == 0, In: inner{A: int8(-i), B: [3]uint16{1, uint16(i), 3}, C: float64(i) / 3},
			Z: complex(float32(i), -1), Count: uint32(1000 + i), Tail: int8(i * 3)}
		s[i].Ins[1].C = math.Pi * float64(i)
	}
	dt, err := Type[outer]()
	if err != nil {
		t.Fatal(err)
	}
	every2, _ := datatype.Vector(3, 1, 2, dt)
	c, err := ddt.Commit(every2)
	if err != nil {
		t.Fatal(err)
	}
	img, err := AnyBytes(s)
	if err != nil {
		t.Fatal(err)
	}
	packed := make([]byte, every2.Size())
	if _, err := c.Pack(packed, img, 0, 1); err != nil {
		t.Fatal(err)
	}
	var want []byte
	le := binary.LittleEndian
	putInner := func(in inner) {
		want = append(want, byte(in.A))
		for _, b := range in.B {
			want = le.AppendUint16(want, b)
		}
		want = le.AppendUint64(want, math.Float64bits(in.C))
	}
	for i := 0; i < 5; i += 2 {
		o := s[i]
		b := byte(0)
		if o.Flag {
			b = 1
		}
		want = append(want, b)
		putInner(o.In)
		putInner(o.Ins[0])
		putInner(o.Ins[1])
		want = le.AppendUint32(want, math.Float32bits(real(o.Z)))
		want = le.AppendUint32(want, math.Float32bits(imag(o.Z)))
		want = le.AppendUint32(want, o.Count)
		want = append(want, byte(o.Tail))
	}
	if !bytes.Equal(packed, want) {
		t.Fatalf("packed %x\nwant   %x", packed, want)
	}
	// unpack into a fresh slice: the packed elements come back
	back := make([]outer, 5)
	bimg, _ := AnyBytes(back)
	if _, err := c.Unpack(bimg, packed, 0, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		w := outer{}
		if i%2 == 0 {
			w = s[i]
		}
		if back[i] != w {
			t.Errorf("element %d: %+v, want %+v", i, back[i], w)
		}
	}
}

type bad1 struct {
	X    float64
	Name string
}

type bad2 struct {
	Pos [3]struct {
		V []float64
	}
}

type bad3 struct {
	M map[int]int
}

type bad4 struct {
	P *int
}

type bad5 struct {
	I any
}

func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[bad1](), "gotype.bad1.Name is a string"},
		{reflect.TypeFor[bad2](), "gotype.bad2.Pos[].V is a slice"},
		{reflect.TypeFor[bad3](), "gotype.bad3.M is a map"},
		{reflect.TypeFor[bad4](), "gotype.bad4.P is a pointer"},
		{reflect.TypeFor[bad5](), "gotype.bad5.I is an interface"},
		{reflect.TypeFor[chan int](), "chan int is a channel"},
		{reflect.TypeFor[unsafe.Pointer](), "unsafe.Pointer is an unsafe.Pointer"},
	} {
		_, err := TypeOf(tc.t)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error containing %q", tc.t, err, tc.want)
		}
	}
	if _, err := AnyBytes([]bad4{{}}); err == nil || !strings.Contains(err.Error(), "bad4.P is a pointer") {
		t.Errorf("AnyBytes of pointers: %v", err)
	}
	if _, err := TypeOf(nil); err == nil {
		t.Error("nil type accepted")
	}
}

func TestBytesAndSlice(t *testing.T) {
	f := []float64{1.5, -2, 3}
	b := Bytes(f)
	if len(b) != 24 || math.Float64frombits(binary.LittleEndian.Uint64(b[8:])) != -2 {
		t.Fatalf("Bytes: %x", b)
	}
	b[0] = 0 // shared memory
	back, err := Slice[float64](b)
	if err != nil || len(back) != 3 || &back[0] != &f[0] {
		t.Fatalf("Slice: %v %v", back, err)
	}
	if _, err := Slice[float64](b[:20]); err == nil {
		t.Error("20 bytes as float64s accepted")
	}
	if _, err := Slice[float64](b[1:9]); err == nil {
		t.Error("misaligned bytes accepted")
	}
	if Bytes([]int32(nil)) != nil {
		t.Error("Bytes(nil) not nil")
	}
	if s, err := Slice[int16](nil); s != nil || err != nil {
		t.Error("Slice(nil)")
	}
}
