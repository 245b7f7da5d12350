package main

import "testing"

func TestHalo(t *testing.T) {
	for _, ranks := range []int{1, 2, 8, 12} {
		if err := run(ranks, 5, 2); err != nil {
			t.Fatalf("%d ranks: %v", ranks, err)
		}
	}
}
