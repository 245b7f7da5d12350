// Package smallmap is the memo of walks over type graphs and DAME
// programs that share subtrees: a map whose first entries live in arrays
// searched linearly, so that a small type, the common case, allocates
// nothing; the rest go to a Go map made on demand.
package smallmap

// inline is how many entries live in the arrays.
const inline = 16

// Map maps keys to values. The zero value is an empty map ready to use.
// A key is put once (Put does not look for it).
type Map[K comparable, V any] struct {
	n    int
	keys [inline]K
	vals [inline]V
	more map[K]V
}

// Get returns the value of k and whether k is in the map.
func (m *Map[K, V]) Get(k K) (V, bool) {
	for i := range m.n {
		if m.keys[i] == k {
			return m.vals[i], true
		}
	}
	v, ok := m.more[k]
	return v, ok
}

// Put adds k with value v; k must not be in the map yet.
func (m *Map[K, V]) Put(k K, v V) {
	if m.n < inline {
		m.keys[m.n], m.vals[m.n] = k, v
		m.n++
		return
	}
	if m.more == nil {
		m.more = map[K]V{}
	}
	m.more[k] = v
}

// Len is the number of keys in the map.
func (m *Map[K, V]) Len() int { return m.n + len(m.more) }
