package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadLLC reads a made-up sysfs cache directory: the largest data or
// unified cache wins, instruction caches and bad sizes are skipped, and
// a missing directory gives the fallback.
func TestReadLLC(t *testing.T) {
	dir := t.TempDir()
	for i, c := range [][2]string{{"Data", "48K"}, {"Instruction", "64M"}, {"Unified", "2048K"}, {"Unified", "300M"}, {"Unified", "junk"}} {
		d := filepath.Join(dir, "index"+string(rune('0'+i)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "type"), []byte(c[0]+"\n"), 0o644)
		os.WriteFile(filepath.Join(d, "size"), []byte(c[1]+"\n"), 0o644)
	}
	if got := readLLC(dir); got != 300<<20 {
		t.Errorf("readLLC = %d, want %d", got, 300<<20)
	}
	if got := readLLC(filepath.Join(dir, "none")); got != LLCFallback {
		t.Errorf("readLLC of nothing = %d, want the fallback", got)
	}
	for s, want := range map[string]int64{"32768K": 32 << 20, "1G": 1 << 30, "512": 512, "": 0, "K": 0, "-1K": 0} {
		if n, _ := ParseSize(s); n != want {
			t.Errorf("ParseSize(%q) = %d, want %d", s, n, want)
		}
	}
	if LLC() <= 0 {
		t.Errorf("LLC() = %d", LLC())
	}
	t.Logf("LLC %d bytes", LLC())
}
