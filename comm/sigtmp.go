package comm

import "github.com/ddtlab/ddt/datatype"

// prefix returns the signature hash and packed size of the first k basic
// elements of count instances of t.
func prefix(t *datatype.Type, count, k int64) (hash uint64, bytes int64) {
	const p = 1<<61 - 1
	var i int64
	t.Walk(count, func(b datatype.Basic, _ int64) bool {
		if i == k {
			return false
		}
		hash = (hash*1000003 + uint64(b) + 1) % p
		bytes += b.Size()
		i++
		return true
	})
	return hash, bytes
}
