package ddtbench

import (
	"bytes"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/ddtlab/ddt"
)

// TestDDTBench checks every small and medium DDTBench layout built from its
// constructor list against the recorded size, bounds, packed bytes and CRC32,
// with every engine, and that unpacking restores the typemap's bytes.
func TestDDTBench(t *testing.T) {
	ops, err := Load("small", "medium")
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 64 {
		t.Fatalf("%d operations, want 64", len(ops))
	}
	for _, o := range ops {
		name := o.Case + "/" + o.Config + "/" + o.Op
		for tn, p := range o.TypeProps {
			ty := o.Types[tn]
			got := Props{ty.Size(), ty.LB(), ty.Extent(), ty.TrueLB(), ty.TrueExtent()}
			if got != p {
				t.Errorf("%s: type %s: got %+v, want %+v", name, tn, got, p)
			}
		}
		arena := make([]byte, o.ArenaBytes)
		o.Fill(arena)
		for _, e := range []ddt.Engine{ddt.Reference, ddt.Interpreter, ddt.Compiled} {
			c, err := ddt.CommitWith(o.Type, ddt.Options{Engine: e})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, o.Packed)
			n, err := c.Pack(out, arena, o.Base, o.Count)
			if err != nil || n != o.Packed {
				t.Fatalf("%s %v: pack = %d, %v; want %d bytes", name, e, n, err, o.Packed)
			}
			if crc := crc32.ChecksumIEEE(out); crc != o.CRC32 {
				t.Errorf("%s %v: crc32 %#08x, want %#08x", name, e, crc, o.CRC32)
			}
			img := make([]byte, len(arena))
			if _, err := c.Unpack(img, out, o.Base, o.Count); err != nil {
				t.Fatal(err)
			}
			again := make([]byte, o.Packed)
			c.Pack(again, img, o.Base, o.Count)
			if crc32.ChecksumIEEE(again) != o.CRC32 {
				t.Errorf("%s %v: unpack then pack differs", name, e)
			}
		}
	}
}

// TestDDTManualLoops checks the hand-written DDTBench loops of every case
// (small and medium configs): all but LAMMPS pack the same bytes as ddt;
// LAMMPS packs the same number of bytes in atom order; unpacking restores
// the packed elements.
func TestDDTManualLoops(t *testing.T) {
	ops, err := Load("small", "medium")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range ops {
		mp, mu := ddtManual(o)
		if o.Op != "send" || mp == nil {
			continue
		}
		n++
		src := make([]byte, o.ArenaBytes)
		o.Fill(src)
		c, err := ddt.Commit(o.Type)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, o.Packed)
		if _, err := c.Pack(want, src, o.Base, o.Count); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, o.Packed)
		mp(src, got)
		if !strings.HasPrefix(o.Case, "LAMMPS") && !bytes.Equal(got, want) {
			t.Errorf("%s: manual pack differs from ddt", o.Case)
		}
		dst := make([]byte, o.ArenaBytes)
		mu(got, dst)
		back := make([]byte, o.Packed)
		c.Pack(back, dst, o.Base, o.Count)
		if !bytes.Equal(back, want) {
			t.Errorf("%s: manual unpack does not restore the packed elements", o.Case)
		}
	}
	if n != 2*16 {
		t.Errorf("%d cases with manual loops, want %d", n, 2*16)
	}
}
