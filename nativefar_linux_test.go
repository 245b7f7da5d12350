//go:build linux && amd64

package ddt

import (
	"bytes"
	"syscall"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestNativeFarDisplacements checks types whose displacements lie beyond
// 32 bits of each other (a memory image of over 4 GiB, of which only the
// pages holding data are touched) on native code against the reference
// engine, whole and in pieces, and that code is generated for them:
// unrolled structs, index lists (64-bit displacements in the table),
// strides beyond 32 bits and a lower bound 5 GiB below the origin.
func TestNativeFarDisplacements(t *testing.T) {
	if testing.Short() {
		t.Skip("maps images of up to 12 GiB (touching a few pages)")
	}
	const G = 1 << 30
	dbl, in := datatype.Of(datatype.Double), datatype.Of(datatype.Int)
	small := mustT(datatype.Struct([]int64{1, 2}, []int64{0, 8}, []*datatype.Type{in, dbl}))
	bls, ds := make([]int64, 300), make([]int64, 300)
	for i := range ds {
		bls[i], ds[i] = 1+int64(i%7), int64(i)*(20*1024*1024+8) // 300 blocks over 6 GiB
	}
	types := map[string]*datatype.Type{
		"struct":   mustT(datatype.Struct([]int64{1, 1, 3}, []int64{0, 5 * G, 5*G + 40}, []*datatype.Type{dbl, in, dbl})),
		"hindexed": mustT(datatype.HIndexed(bls, ds, dbl)),
		"hvector":  mustT(datatype.HVector(3, 1, 3*G+16, small)),
		"negative": mustT(datatype.Struct([]int64{2, 1, 1}, []int64{-5 * G, 0, G + 8}, []*datatype.Type{small, dbl, in})),
		"nested": mustT(datatype.Struct([]int64{1, 1}, []int64{0, 4*G + 64},
			[]*datatype.Type{mustT(datatype.HVector(2, 1, 2*G, small)), mustT(datatype.HIndexed(bls[:100], ds[:100], in))})),
	}
	for name, ty := range types {
		lo, hi, err := ty.Span(1)
		if err != nil {
			t.Fatal(err)
		}
		if hi-lo > 12*G {
			t.Fatalf("%s: span %d", name, hi-lo)
		}
		// an anonymous mapping: only the pages written are backed (a Go
		// allocation of reused heap memory would be cleared whole)
		img, err := syscall.Mmap(-1, 0, int(hi-lo), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			t.Skipf("cannot map %d bytes: %v", hi-lo, err)
		}
		defer syscall.Munmap(img)
		origin := -lo
		k := byte(1)
		ty.Walk(1, func(b datatype.Basic, d int64) bool {
			for i := range b.Size() {
				img[origin+d+i] = k
				k = k*7 + 3
			}
			return true
		})
		want := naivePack(ty, 1, img, origin)
		c, err := CommitWith(ty, Options{Engine: Native})
		if err != nil {
			t.Fatal(err)
		}
		if !nativeCode(t, ty) {
			t.Errorf("%s: no native code:\n%.400s", name, c.Plan())
		}
		got := make([]byte, len(want))
		if _, err := c.Pack(got, img, origin, 1); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: pack differs from the type map (%v)", name, err)
		}
		clear(got)
		p, _ := c.NewPacker(img, origin, 1)
		for q := 0; q < len(got); q += 7 {
			if _, err := p.Pack(got[q:min(q+7, len(got))]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: pack in pieces differs from the type map", name)
		}
		// unpack into the image cleared where the data lies
		ty.Walk(1, func(b datatype.Basic, d int64) bool {
			clear(img[origin+d : origin+d+b.Size()])
			return true
		})
		if _, err := c.Unpack(img, want, origin, 1); err != nil {
			t.Fatal(err)
		}
		if back := naivePack(ty, 1, img, origin); !bytes.Equal(back, want) {
			t.Fatalf("%s: unpack differs from the type map", name)
		}
	}
}
