package ddt

import (
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestCheckBuffer compares CheckBuffer with the checks of NewPacker and
// NewUnpacker over buffer lengths, origins and counts, including types
// with negative displacements and counts that do not fit.
func TestCheckBuffer(t *testing.T) {
	v, _ := datatype.Vector(3, 2, 5, datatype.Of(datatype.Int32))
	neg, _ := datatype.Resized(v, -8, 64)
	for _, ty := range []*datatype.Type{datatype.Of(datatype.Byte), v, neg} {
		c, err := Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n <= 200; n += 7 {
			for origin := int64(-16); origin <= 40; origin += 4 {
				for _, count := range []int64{-1, 0, 1, 2, 3, 1 << 62} {
					size, err := c.CheckBuffer("pack", n, origin, count)
					p, perr := c.NewPacker(make([]byte, n), origin, count)
					if (err == nil) != (perr == nil) {
						t.Fatalf("%v n=%d origin=%d count=%d: CheckBuffer %v, NewPacker %v", ty, n, origin, count, err, perr)
					}
					if err == nil && size != p.Size() {
						t.Fatalf("%v n=%d origin=%d count=%d: size %d, Packer %d", ty, n, origin, count, size, p.Size())
					}
					_, err = c.CheckBuffer("unpack", n, origin, count)
					_, uerr := c.NewUnpacker(make([]byte, n), origin, count)
					if (err == nil) != (uerr == nil) {
						t.Fatalf("%v n=%d origin=%d count=%d: CheckBuffer %v, NewUnpacker %v", ty, n, origin, count, err, uerr)
					}
				}
			}
		}
	}
}
