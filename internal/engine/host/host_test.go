package host

import "testing"

// TestReadings checks the two readings of the one detection: the kernel
// level wants BMI2 with AVX-512, the vector width does not.
func TestReadings(t *testing.T) {
	for _, c := range []struct {
		f          Features
		level, vec int
	}{
		{Features{}, 0, 16},
		{Features{AVX2: true}, 1, 32},
		{Features{AVX2: true, BMI2: true}, 1, 32},
		{Features{AVX2: true, AVX512: true}, 1, 64},
		{Features{AVX2: true, AVX512: true, BMI2: true, VBMI: true}, 2, 64},
		{Features{NEON: true}, 3, 16},
	} {
		if l, v := c.f.Level(), c.f.Vec(); l != c.level || v != c.vec {
			t.Errorf("%+v: level %d vec %d, want %d %d", c.f, l, v, c.level, c.vec)
		}
	}
	if CPU.AVX512 && !CPU.AVX2 {
		t.Errorf("detected %+v: AVX-512 without AVX2", CPU)
	}
}
