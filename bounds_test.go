package ddt

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestFastCheck compares the fast check of Pack and Unpack (bounds.fits)
// with checkImage, the full check: wherever fits accepts, checkImage must
// accept with the same pack size, and wherever checkImage accepts a count
// and origin of modest size, fits must too (else the fast path is dead).
func TestFastCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	dbl := datatype.Of(datatype.Double)
	types := []*datatype.Type{dbl}
	for _, mk := range []func() (*datatype.Type, error){
		func() (*datatype.Type, error) { return datatype.Vector(256, 1, 24, dbl) },
		func() (*datatype.Type, error) { return datatype.Vector(3, 1, -24, dbl) },
		func() (*datatype.Type, error) { return datatype.Resized(dbl, -64, 192) },
		func() (*datatype.Type, error) { return datatype.Resized(dbl, 16, -40) },
		func() (*datatype.Type, error) { return datatype.Contiguous(0, dbl) },
		func() (*datatype.Type, error) { return datatype.HVector(2, 1, math.MaxInt64/2, dbl) },
		func() (*datatype.Type, error) { return datatype.Resized(dbl, 0, math.MaxInt64/4) },
	} {
		ty, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ty)
	}
	for range 300 {
		types = append(types, typegen.Random(r, typegen.Options{MaxElements: 64, MaxExtent: 1 << 12}))
	}
	edge := []int64{math.MinInt64, math.MinInt64 + 1, -limit - 1, -limit, -limit + 1, -1 << 40, -4096, -1, 0, 1, 2, 3, 4096, 1 << 40, limit - 1, limit, math.MaxInt64 - 1, math.MaxInt64}
	for _, ty := range types {
		c, err := CommitWith(ty, Options{Engine: Compiled})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := ty.DataBounds()
		b := c.bounds
		fp := fastPath{size: b.size, lo: b.lo, hi: b.hi, eLo: min(b.ext, 0), eHi: max(b.ext, 0), max: b.maxCount}
		origins := append([]int64{-lo, -lo + 1, -lo - 1, -hi, r.Int64N(1 << 16)}, edge...)
		for _, n := range []int{0, 1, int(max(hi-lo, 0)), int(max(hi-lo, 0)) + 100, 1 << 20, math.MaxInt32} {
			for _, origin := range origins {
				for _, count := range append([]int64{r.Int64N(1000), c.bounds.maxCount, c.bounds.maxCount + 1}, edge...) {
					fs, fok := c.bounds.fits(n, origin, count)
					cs, err := c.checkImage("pack", n, origin, count)
					// the native code's check (fastPath.fits) agrees, for
					// the counts it takes
					if uint64(count-1) < uint64(fp.max) {
						ps, pok := fp.fits(n, math.MaxInt, origin, count)
						if pok != fok || (pok && ps != fs) {
							t.Fatalf("%v: fastPath.fits(%d, %d, %d) = %d, %v; bounds.fits = %d, %v", ty, n, origin, count, ps, pok, fs, fok)
						}
						if _, pok := fp.fits(n, int(fs)-1, origin, count); pok && fs > 0 {
							t.Fatalf("%v: fastPath.fits(%d, %d, %d) accepts a packed buffer of %d bytes for %d", ty, n, origin, count, fs-1, fs)
						}
					}
					if fok && (err != nil || cs != fs) {
						t.Fatalf("%v: fits(%d, %d, %d) = %d, true; checkImage = %d, %v", ty, n, origin, count, fs, cs, err)
					}
					if !fok && err == nil && cs > 0 && count <= 1<<20 && origin > -1<<40 && origin < 1<<40 && c.bounds.maxCount >= 1<<20 {
						t.Fatalf("%v: fits(%d, %d, %d) refuses what checkImage accepts (%d bytes)", ty, n, origin, count, cs)
					}
				}
			}
		}
	}
}
