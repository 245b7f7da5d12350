package jit_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/internal/ddtbench"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// TestTierAB times the DDTBench layouts on the compiled engine and with
// native code in one process, samples of both interleaved (run with
// DDT_JIT_AB=1 -v, DDT_JIT_AB_CASES=prefix,... to choose; a measurement,
// not a check): per operation the median times, compiled/native, the
// gain per call, the list entries the program moves per call and the
// call at which the tiered engine compiles. It is what the tiering
// model's gain per list entry (engine.go) was set from.
func TestTierAB(t *testing.T) {
	if os.Getenv("DDT_JIT_AB") != "1" {
		t.Skip("DDT_JIT_AB=1 runs it")
	}
	if !jit.Available() {
		t.Skip("no native code here")
	}
	ops, err := ddtbench.Load("small", "medium", "large")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if s := os.Getenv("DDT_JIT_AB_CASES"); s != "" {
		want = strings.Split(s, ",")
	}
	for _, o := range ops {
		name := o.Case + "." + o.Op + " " + o.Config[:1]
		if want != nil && !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(name, w) }) {
			continue
		}
		comp, err := ddt.CommitWith(o.Type, ddt.Options{Engine: ddt.Compiled})
		if err != nil {
			t.Fatal(err)
		}
		nat, err := ddt.CommitWith(o.Type, ddt.Options{Engine: ddt.Native})
		if err != nil {
			t.Fatal(err)
		}
		arena := make([]byte, o.ArenaBytes)
		o.Fill(arena)
		pk := make([]byte, o.Packed)
		cs := []*ddt.Committed{comp, nat}
		run := func(c *ddt.Committed, d, k int) {
			for range k {
				if d == 0 {
					_, err = c.Pack(pk, arena, o.Base, o.Count)
				} else {
					_, err = c.Unpack(arena, pk, o.Base, o.Count)
				}
			}
		}
		// calls per sample: about 200 µs
		t0 := time.Now()
		run(nat, 0, 1)
		run(comp, 0, 1)
		k := max(1, int(200*time.Microsecond/max(time.Since(t0)/2, 1)))
		const rounds = 41
		var ts [2][2][]float64
		for r := range rounds {
			for j := range 4 {
				i, d := (j+r)%2, ((j+r)/2)%2
				t0 := time.Now()
				run(cs[i], d, k)
				ts[i][d] = append(ts[i][d], float64(time.Since(t0).Nanoseconds())/float64(k))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		var m [2][2]float64
		for i := range 2 {
			for d := range 2 {
				slices.Sort(ts[i][d])
				m[i][d] = ts[i][d][rounds/2]
			}
		}
		p := nat.Program()
		t.Logf("%-22s %9d B  entries %6d  compiled pack %9.0f unpack %9.0f ns  native pack %9.0f unpack %9.0f ns  comp/nat %.2f %.2f  gain/call %7.0f %7.0f ns  tiered %d",
			name, o.Packed, jit.ProgramSize(p), m[0][0], m[0][1], m[1][0], m[1][1], m[0][0]/m[1][0], m[0][1]/m[1][1],
			m[0][0]-m[1][0], m[0][1]-m[1][1], jit.TieredCalls(p, o.Packed))
	}
}
