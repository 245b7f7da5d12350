package jit

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestWXorX checks in /proc/self/maps that the pages of generated code
// are readable and executable, not writable.
func TestWXorX(t *testing.T) {
	if !Available() {
		t.Skip("no code generation here")
	}
	ty, _ := datatype.Vector(41, 3, 7, datatype.Of(datatype.Int))
	c, err := Compile(opt.Compile(ty))
	if err != nil {
		t.Fatal(err)
	}
	addr := uint64(uintptr(unsafe.Pointer(&c.mem[0])))
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		lo, hi, ok := strings.Cut(fs[0], "-")
		if !ok || len(fs) < 2 {
			continue
		}
		a, _ := strconv.ParseUint(lo, 16, 64)
		b, _ := strconv.ParseUint(hi, 16, 64)
		if a <= addr && addr < b {
			if !strings.HasPrefix(fs[1], "r-x") {
				t.Fatalf("code mapped %s: %s", fs[1], sc.Text())
			}
			return
		}
	}
	t.Fatalf("code at %#x not in /proc/self/maps", addr)
}
