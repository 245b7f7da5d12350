package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

func TestRunOneType(t *testing.T) {
	ty, _ := datatype.Vector(64, 2, 5, datatype.Of(datatype.Double))
	var b bytes.Buffer
	if err := Run(&b, Options{Type: ty, Count: 3, Sample: 50 * time.Microsecond, Rounds: 3}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if len(lines) != 8 || !strings.HasPrefix(lines[5], "type ") || !strings.Contains(lines[4], "comp") ||
		!strings.HasPrefix(lines[0], "# ddt bench: ") || !strings.Contains(lines[1], "kernels: ") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	if err := Run(&b, Options{Type: ty, Count: 3, JSON: true, Sample: 50 * time.Microsecond}); err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil || len(rep.Rows) != 1 || rep.Rows[0].Packed != 3*64*2*8 ||
		rep.Rows[0].Pack["compiled"] <= 0 || rep.Rows[0].PackBest["compiled"] < rep.Rows[0].Pack["compiled"] || rep.Rounds != 5 {
		t.Errorf("json report %+v, %v", rep, err)
	}
}

func TestRunRefusesHugeTypes(t *testing.T) {
	dbl := datatype.Of(datatype.Double)
	big, _ := datatype.Vector(1<<20, 1, 1<<20, dbl) // an 8 TB image
	over, _ := datatype.Vector(1<<30, 1, 0, dbl)    // 8 GB packed from 8 bytes
	neg, _ := datatype.Resized(dbl, 0, -(1 << 40))  // instances spread backwards
	for _, c := range []struct {
		t     *datatype.Type
		count int64
	}{{big, 1}, {over, 1}, {neg, 1 << 20}} {
		err := Run(&bytes.Buffer{}, Options{Type: c.t, Count: c.count, MaxMem: 1 << 20})
		if err == nil || !strings.Contains(err.Error(), "over the limit of 1 MiB (--mem)") {
			t.Errorf("%v x %d: %v", c.t, c.count, err)
		}
	}
}

func TestFilterMatchingNothing(t *testing.T) {
	err := Run(&bytes.Buffer{}, Options{Filter: "nosuch"})
	if err == nil || !strings.Contains(err.Error(), "no layout matches") {
		t.Errorf("Run: %v", err)
	}
	var b bytes.Buffer
	if err := List(&b, "ddtbench/FFT2D"); err != nil || strings.Count(b.String(), "\n") != 4 {
		t.Errorf("List: %v\n%s", err, b.String())
	}
}

func TestSkipsLayoutsOverMemoryBound(t *testing.T) {
	var b, log bytes.Buffer
	err := Run(&b, Options{Filter: "mpipack/L1", Engines: []ddt.Engine{ddt.Compiled}, Sample: 50 * time.Microsecond,
		Rounds: 1, MaxMem: 30 << 20, JSON: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// S (49 KB) and M (25 MB + 2 MB) fit in 30 MiB, L (403 MB) does not
	if len(rep.Rows) != 2 || len(rep.Skipped) != 1 || rep.Skipped[0].Size != "L" ||
		!strings.Contains(log.String(), "skipped mpipack/L1 L: needs 416 MiB of memory, over --mem 30") {
		t.Errorf("rows %d, skipped %+v, log %q", len(rep.Rows), rep.Skipped, log.String())
	}
}

func TestMPIPackHashes(t *testing.T) {
	// the small cases: every check ok; the hashes are the C harness's
	// (mpipack.c run on this machine: all builds agree).
	want := map[string]string{"L1": "690d1c01ced4f142", "L2": "690d1c01ced4f142", "L3": "ffb512a40f0b23d1"}
	for _, d := range mpCases {
		if d.size != "S" {
			continue
		}
		c := resolve(d)
		src := make([]byte, c.alloc)
		fillDense(src)
		ref := make([]byte, c.packed)
		c.manualPack(src, ref)
		if h, ok := want[d.id]; ok {
			if got := strings.TrimLeft(strings.ToLower(hex64(Hash64(ref))), ""); got != h {
				t.Errorf("%s: hash %s, want %s", d.id, got, h)
			}
		}
	}
}

func hex64(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// TestFilter checks that --filter keeps the layouts whose name, or name
// without its family, starts with a prefix, and only those.
func TestFilter(t *testing.T) {
	for filter, want := range map[string]func(name string) bool{
		"ddtbench":    func(n string) bool { return strings.HasPrefix(n, "ddtbench/") },
		"WRF,L7":      func(n string) bool { return strings.HasPrefix(n, "ddtbench/WRF") || n == "mpipack/L7" },
		"mpipack/L1":  func(n string) bool { return n == "mpipack/L1" },
		"seed003/tra": func(n string) bool { return n == "seed003/transpose" },
	} {
		ls, err := selected(filter)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := suite()
		kept := map[string]bool{}
		for _, l := range ls {
			kept[l.name] = true
		}
		for _, l := range all {
			if kept[l.name] != want(l.name) {
				t.Errorf("--filter %s: %s kept = %v", filter, l.name, kept[l.name])
			}
		}
	}
}
