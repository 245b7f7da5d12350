package smallmap

import "testing"

// TestMap puts keys past the arrays into the map and finds every one, and
// no key it did not put.
func TestMap(t *testing.T) {
	var m Map[*int, int]
	keys := make([]*int, 3*inline)
	for i := range keys {
		keys[i] = new(int)
		if _, ok := m.Get(keys[i]); ok {
			t.Fatalf("key %d found before it was put", i)
		}
		m.Put(keys[i], i)
		if m.Len() != i+1 {
			t.Fatalf("Len %d after %d puts", m.Len(), i+1)
		}
	}
	for i, k := range keys {
		if v, ok := m.Get(k); !ok || v != i {
			t.Fatalf("key %d: %d, %v", i, v, ok)
		}
	}
	if _, ok := m.Get(new(int)); ok {
		t.Fatal("a key never put was found")
	}
}

// TestSmallAllocates: a map of up to inline entries allocates nothing.
func TestSmallAllocates(t *testing.T) {
	keys := make([]*int, inline)
	for i := range keys {
		keys[i] = new(int)
	}
	if a := testing.AllocsPerRun(100, func() {
		var m Map[*int, int]
		for i, k := range keys {
			m.Put(k, i)
		}
		if _, ok := m.Get(keys[inline-1]); !ok {
			t.Fatal("lost a key")
		}
	}); a != 0 {
		t.Fatalf("%v allocations for %d entries", a, inline)
	}
}
