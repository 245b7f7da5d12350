package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
)

func TestRunOneType(t *testing.T) {
	ty, _ := datatype.Vector(64, 2, 5, datatype.Of(datatype.Double))
	var b bytes.Buffer
	if err := Run(&b, Options{Type: ty, Count: 3, Sample: 50 * time.Microsecond}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "compiled pack") || !strings.Contains(b.String(), "type") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	if err := Run(&b, Options{Type: ty, Count: 3, JSON: true, Sample: 50 * time.Microsecond}); err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 1 || rows[0].Packed != 3*64*2*8 || rows[0].Pack["compiled"] <= 0 {
		t.Errorf("json rows %+v, %v", rows, err)
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
