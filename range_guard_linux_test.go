//go:build linux

package ddt

import (
	"bytes"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestRangeGuardPages packs and unpacks byte ranges (rangePairs) of random
// and long-list types with every engine configuration (rangeConfigs), the
// memory image's span and the packed piece each placed against a
// PROT_NONE page at either end: a read or write outside the caller's
// buffers faults, and the fault fails the test.
func TestRangeGuardPages(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	const pages = 80
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	r := rand.New(rand.NewPCG(61, 62))
	n := 60
	if testing.Short() {
		n = 15
	}
	leaves := []*datatype.Type{datatype.Of(datatype.Double), datatype.Of(datatype.Float), datatype.Of(datatype.Char)}
	tested := 0
	for i := 0; tested < n && i < 20*n; i++ {
		var ty *datatype.Type
		if i%2 == 0 {
			ty = typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		} else {
			ty = longListType(r, leaves[i%len(leaves)], i/2)
		}
		if guardRanges(t, r, ty, int64(1+r.IntN(3)), img, packed) {
			tested++
		}
	}
	if tested < n/2 {
		t.Fatalf("only %d types fit the guarded pages", tested)
	}
}

// guardRanges runs the ranges of count instances of ty in the guarded
// buffers and reports whether the type fit them.
func guardRanges(t *testing.T, r *rand.Rand, ty *datatype.Type, count int64, img, packed *guarded) bool {
	t.Helper()
	lo, hi, err := ty.Span(count)
	if err != nil || hi-lo > int64(len(img.data)) || hi <= lo {
		return false
	}
	ref, err := CommitWith(ty, Options{Engine: Reference})
	if err != nil {
		t.Fatal(err)
	}
	size, err := ref.PackSize(count)
	if err != nil || size > int64(len(packed.data)) || size == 0 {
		return false
	}
	src, origin := image(ty, count, 1)
	want := make([]byte, size)
	if _, err := ref.Pack(want, src, origin, count); err != nil {
		t.Fatal(err)
	}
	before, bo := image(ty, count, 9)
	pairs := rangePairs(r, rangeCuts(r, ref, count, size), size)
	if len(pairs) > 60 {
		pairs = pairs[:60]
	}
	for _, opts := range rangeConfigs() {
		c, err := CommitWith(ty, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, atEnd := range []bool{true, false} {
			for _, ab := range pairs {
				a, b := ab[0], ab[1]
				func() {
					step := "pack"
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%+v: %d instances of %v, %s of range [%d, %d) of %d (buffers at the guard's end %v): %v", opts, count, ty, step, a, b, size, atEnd, p)
						}
					}()
					m := img.buf(int(hi-lo), atEnd, 1)
					copyImage(m, -lo, src, origin, lo, hi)
					piece := packed.buf(int(b-a), atEnd, 0)
					p, err := c.NewPacker(m, -lo, count)
					if err != nil || p.SetPos(a) != nil {
						t.Fatalf("packer: %v", err)
					}
					if _, err := p.Pack(piece); err != nil && b > a {
						t.Fatal(err)
					}
					if !bytes.Equal(piece, want[a:b]) {
						t.Fatalf("%+v: %d instances of %v: range [%d, %d) packs differently from the reference", opts, count, ty, a, b)
					}
					step = "unpack"
					copyImage(m, -lo, before, bo, lo, hi)
					piece = packed.buf(int(b-a), atEnd, 0)
					copy(piece, want[a:b])
					u, err := c.NewUnpacker(m, -lo, count)
					if err != nil || u.SetPos(a) != nil {
						t.Fatalf("unpacker: %v", err)
					}
					if _, err := u.Unpack(piece); err != nil {
						t.Fatal(err)
					}
				}()
			}
		}
	}
	return true
}
