package commtest

import (
	"fmt"
	"testing"

	"github.com/ddtlab/ddt/comm"
)

// TestInProcess runs the suite on in-process ranks with small packets.
func TestInProcess(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		for _, tc := range Suite {
			if n < tc.MinRanks {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", tc.Name, n), func(t *testing.T) {
				w, err := comm.NewWorld(n, comm.Options{EagerLimit: 64, PacketSize: 100})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.RunAll(tc.Run); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestSplitInProcess(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5} {
		w, _ := comm.NewWorld(n, comm.Options{EagerLimit: 2})
		if err := w.Run(func(c *comm.Comm) error { return SplitTest[*comm.Comm](c) }); err != nil {
			t.Fatalf("%d ranks: %v", n, err)
		}
	}
}
