package optimal

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestFold(t *testing.T) {
	n, err := Parse("struc(3, [0, 100, 200], [vec(4, 8, leaf(int)), idx(2, [0, 40], vec(4, 8, leaf(int))), vec(4, 8, leaf(int))])", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Fold(n)
	// leaf(int) and vec(4, 8, .) stored once: struc, idx, vec, leaf.
	if len(d.Nodes) != 4 || d.Shared() != 1 {
		t.Fatalf("got %d nodes, %d shared:\n%v", len(d.Nodes), d.Shared(), d)
	}
	cm := DefaultCost()
	if got, want := d.Cost(cm), int64(2+3*2+3+2+4+2); got != want {
		t.Fatalf("DAG cost %d, want %d (tree cost %d)", got, want, cm.Of(n))
	}
	if !d.Tree().Equal(n) {
		t.Fatalf("unfold = %v", d.Tree())
	}
	want := "%0 = leaf(int)\n%1 = vec(4, 8, %0)\n%2 = idx(2, [0, 40], %1)\n%3 = struc(3, [0, 100, 200], [%1, %2, %1])\n"
	if d.String() != want {
		t.Fatalf("String:\n%s\nwant\n%s", d, want)
	}
}

func TestFoldProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cm := DefaultCost()
	for range 300 {
		n := randTree(rng, 200, 5, true)
		d := Fold(n)
		if !d.Tree().Equal(n) {
			t.Fatalf("unfold(fold(%v)) = %v", n, d.Tree())
		}
		if d.Cost(cm) > cm.Of(n) {
			t.Fatalf("DAG of %v costs %d > tree %d", n, d.Cost(cm), cm.Of(n))
		}
		if d.Root != len(d.Nodes)-1 {
			t.Fatalf("root %d of %d nodes", d.Root, len(d.Nodes))
		}
	}
	if Fold(nil) != nil {
		t.Fatal("Fold(nil) != nil")
	}
}
