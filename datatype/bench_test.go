package datatype

import "testing"

// BenchmarkIndexedBlockCreate measures building an indexed type of 2^18
// blocks (a row and a column of a large matrix, listed element by element).
func BenchmarkIndexedBlockCreate(b *testing.B) {
	const n = 1 << 18
	displs := make([]int64, n)
	for i := range displs {
		displs[i] = int64(i) * 1001
	}
	bls := make([]int64, n)
	for i := range bls {
		bls[i] = 1
	}
	i := Of(Int)
	b.Run("indexed_block", func(b *testing.B) {
		for b.Loop() {
			if _, err := IndexedBlock(1, displs, i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hindexed", func(b *testing.B) {
		for b.Loop() {
			if _, err := HIndexed(bls, displs, i); err != nil {
				b.Fatal(err)
			}
		}
	})
}
