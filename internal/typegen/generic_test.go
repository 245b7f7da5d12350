package typegen

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestGenericCoversTheTable: Random draws from every constructor of the
// table, and the generic generator (for a constructor without a case of
// its own) builds valid types of each constructor whose arguments do not
// constrain each other, so a new constructor is tested from its table row.
func TestGenericCoversTheTable(t *testing.T) {
	for _, k := range datatype.Constructors() {
		found := false
		for _, c := range AllConstructors {
			found = found || c == k.Combiner
		}
		if !found {
			t.Errorf("%s: not in AllConstructors", k.Name)
		}
		g := &gen{r: rand.New(rand.NewPCG(1, uint64(k.Combiner))), o: Options{Constructors: AllConstructors}.withDefaults()}
		built := 0
		for range 200 {
			ty, err := g.generic(k, g.sub(2), 3)
			if err == nil {
				if ty.Combiner() != k.Combiner {
					t.Fatalf("%s: built a %s", k.Name, ty.Combiner())
				}
				built++
			}
		}
		constrained := k.Combiner == datatype.CombinerSubarray || k.Combiner == datatype.CombinerDarray
		if built == 0 && !constrained {
			t.Errorf("%s: the generic generator built no valid type in 200 tries", k.Name)
		}
		t.Logf("%s: %d of 200 built", k.Name, built)
	}
}
