package main

import "testing"

func TestTranspose(t *testing.T) {
	for _, c := range []struct {
		ranks int
		n     int64
	}{{1, 4}, {2, 64}, {4, 128}, {5, 35}} {
		if err := run(c.ranks, c.n); err != nil {
			t.Fatalf("%d ranks, n %d: %v", c.ranks, c.n, err)
		}
	}
	if err := run(3, 10); err == nil {
		t.Fatal("n not a multiple of ranks must fail")
	}
}
