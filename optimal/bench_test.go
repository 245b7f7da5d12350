package optimal

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchMaps returns named type maps of exactly n elements.
func benchMaps(n int) []struct {
	name string
	m    TypeMap
} {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	var unstructured, vector, rowcol, nested TypeMap
	for k := range n {
		unstructured = append(unstructured, Elem{genTypes[rng.IntN(2)*3], int64(rng.IntN(8 * n))})
		vector = append(vector, Elem{"int", int64(12 * k)})
	}
	// Seed 000, section II: the first row then the first column of a
	// matrix, continued over as many matrices as needed.
	side := 32
	for base := int64(0); len(rowcol) < n; base += int64(4 * side * side) {
		for k := 0; k < side && len(rowcol) < n; k++ {
			rowcol = append(rowcol, Elem{"int", base + int64(4*k)})
		}
		for k := 1; k < side && len(rowcol) < n; k++ {
			rowcol = append(rowcol, Elem{"int", base + int64(4*side*k)})
		}
	}
	// Random structured trees, concatenated until n elements.
	var off int64
	for len(nested) < n {
		t := randTree(rng, 200, 5, false)
		m, _ := Flatten(t)
		for _, e := range m {
			if len(nested) < n {
				nested = append(nested, Elem{e.Type, e.Disp + off})
			}
		}
		off += 10000
	}
	return []struct {
		name string
		m    TypeMap
	}{{"unstructured", unstructured}, {"vector", vector}, {"rowcol", rowcol}, {"nested", nested}}
}

func BenchmarkReconstruct(b *testing.B) {
	for _, n := range []int{64, 256, 1024, 4096} {
		for _, bm := range benchMaps(n) {
			b.Run(fmt.Sprintf("%s/n=%d", bm.name, n), func(b *testing.B) {
				var cost int64
				for b.Loop() {
					var err error
					_, cost, err = Reconstruct(bm.m, DefaultOptions())
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cost), "cost")
			})
		}
	}
}
