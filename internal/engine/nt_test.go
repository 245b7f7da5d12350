package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCopyNT copies every length from 0 to 1100 and a few long ones
// between every alignment of source and destination modulo 64, and checks
// the copy and that no byte around the destination changed.
func TestCopyNT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 70000)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	dst := make([]byte, len(src)+256)
	lens := []int{65536, 65537, 40000 + 63}
	for n := 0; n <= 1100; n++ {
		lens = append(lens, n)
	}
	for _, n := range lens {
		for _, so := range []int{0, 1, 7, 8, 31, 33, 63} {
			for _, do := range []int{0, 1, 8, 16, 32, 48, 63} {
				if n != 300 && n > 1100 && do != 1 && so != 1 {
					continue
				}
				w := dst[do : 64+do+n+64] // the copy and 64 bytes either side
				for i := range w {
					w[i] = 0xa5
				}
				if got := CopyNT(dst[64+do:64+do+n], src[so:so+n]); got != n {
					t.Fatalf("n %d: copied %d", n, got)
				}
				if !bytes.Equal(dst[64+do:64+do+n], src[so:so+n]) {
					t.Fatalf("n %d src+%d dst+%d: copy differs", n, so, do)
				}
				for i, b := range w {
					if (i < 64 || i >= 64+n) && b != 0xa5 {
						t.Fatalf("n %d src+%d dst+%d: byte %d outside written", n, so, do, i)
					}
				}
			}
		}
	}
	if CopyNT(dst[:10], src[:5]) != 5 {
		t.Fatal("CopyNT copies the shorter length")
	}
	t.Logf("non-temporal stores: %v", HasNT())
}
