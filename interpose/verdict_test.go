package interpose

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVerdict runs bench/verdict.awk, the per-cell rank-sum test of the
// measurements, on fixtures whose p-values were computed by enumerating
// every split by hand (testdata/verdict-*.tsv): 4 against 4 samples
// apart (p = 1/70), 3 against 3 (never below 0.05: the smallest p is
// 1/20), midranks of tied samples (p 0.9762), 26 samples by the normal
// approximation (0.0504; exact 0.0507), and a layout below 64 KiB that
// the ping-pong's target leaves out. The outputs must equal the golden
// files.
func TestVerdict(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk")
	}
	for _, c := range []struct{ name, mode, builds string }{
		{"verdict-pp", "pp", "m new"},
		{"verdict-ab", "ab", ""},
	} {
		t.Run(c.mode, func(t *testing.T) {
			args := []string{"-v", "mode=" + c.mode}
			if c.builds != "" {
				args = append(args, "-v", "builds="+c.builds)
			}
			args = append(args, "-f", filepath.Join("bench", "verdict.awk"), filepath.Join("testdata", c.name+".tsv"))
			got, err := exec.Command(awk, args...).Output()
			if err != nil {
				t.Fatalf("awk: %v", err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("verdict.awk on %s.tsv:\n%s\nwant:\n%s", c.name, got, want)
			}
		})
	}
}
