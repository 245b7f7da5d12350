package host

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// LLCFallback is the last-level cache size LLC assumes where the system
// does not tell it: 32 MiB, a common server L3 slice.
const LLCFallback = 32 << 20

// LLC is the size in bytes of the largest data or unified cache of CPU 0
// (the last-level cache), read once from
// /sys/devices/system/cpu/cpu0/cache/index*/size (Linux), LLCFallback
// where that is missing or unreadable.
func LLC() int64 {
	llcOnce.Do(func() { llc = readLLC("/sys/devices/system/cpu/cpu0/cache") })
	return llc
}

var (
	llcOnce sync.Once
	llc     int64
)

// readLLC returns the largest data or unified cache listed under dir
// (index0, index1, ... with files type and size such as "48K", "2048K",
// "300M"), LLCFallback if none is.
func readLLC(dir string) int64 {
	var best int64
	for i := 0; i < 16; i++ {
		d := dir + "/index" + strconv.Itoa(i)
		typ, err := os.ReadFile(d + "/type")
		if err != nil {
			break
		}
		if strings.TrimSpace(string(typ)) == "Instruction" {
			continue
		}
		sz, err := os.ReadFile(d + "/size")
		if err != nil {
			continue
		}
		if n, ok := ParseSize(strings.TrimSpace(string(sz))); ok && n > best {
			best = n
		}
	}
	if best <= 0 {
		return LLCFallback
	}
	return best
}

// ParseSize reads a size as sysfs writes cache sizes and as ddt's
// environment variables take them (DDT_NTMIN): a positive decimal number
// of bytes with an optional K, M or G suffix (binary units), at most 1 TiB.
func ParseSize(s string) (int64, bool) {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<40/mul {
		return 0, false
	}
	return n * mul, true
}
