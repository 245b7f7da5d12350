package ddt

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/internal/typegen"
)

// checkAgainstOracle packs and unpacks count instances of a random type,
// whole and in chunks of random sizes, and compares with the naive oracle.
func checkAgainstOracle(t *testing.T, seed uint64, count int64, chunkSeed uint64) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
	c, err := Commit(ty)
	if err != nil {
		t.Fatal(err)
	}
	src, origin := image(ty, count, 1)
	want := naivePack(ty, count, src, origin)
	got := make([]byte, len(want))
	if _, err := c.Pack(got, src, origin, count); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("seed %d count %d: pack differs from the oracle (err %v)", seed, count, err)
	}
	cr := rand.New(rand.NewPCG(chunkSeed, 1))
	p, err := c.NewPacker(src, origin, count)
	if err != nil {
		t.Fatal(err)
	}
	var chunked []byte
	for {
		buf := make([]byte, 1+cr.IntN(64))
		n, err := p.Pack(buf)
		if err != nil {
			break
		}
		chunked = append(chunked, buf[:n]...)
	}
	if !bytes.Equal(chunked, want) {
		t.Fatalf("seed %d count %d: chunked pack differs from the whole pack", seed, count)
	}
	// unpack: whole and chunked, starting from the same patterned image
	img, o := image(ty, count, 77)
	exp := bytes.Clone(img)
	naiveUnpack(ty, count, exp, o, want)
	whole := bytes.Clone(img)
	if _, err := c.Unpack(whole, want, o, count); err != nil || !bytes.Equal(whole, exp) {
		t.Fatalf("seed %d count %d: unpack differs from the oracle (err %v)", seed, count, err)
	}
	u, err := c.NewUnpacker(img, o, count)
	if err != nil {
		t.Fatal(err)
	}
	for rest := want; len(rest) > 0; {
		k := min(len(rest), 1+cr.IntN(64))
		if _, err := u.Unpack(rest[:k]); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	if !bytes.Equal(img, exp) {
		t.Fatalf("seed %d count %d: chunked unpack differs from the oracle", seed, count)
	}
}

func TestRandomTypesAgainstOracle(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	for seed := range uint64(n) {
		checkAgainstOracle(t, seed, int64(seed%4), seed*31)
	}
}

func FuzzPackUnpack(f *testing.F) {
	for s := range uint64(8) {
		f.Add(s, uint8(s%4), s)
	}
	f.Fuzz(func(t *testing.T, seed uint64, count uint8, chunkSeed uint64) {
		checkAgainstOracle(t, seed, int64(count%5), chunkSeed)
	})
}
