package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// runtimeReserve is the address space the Go runtime reserves at start on
// 64-bit Linux beyond the heap (about 750 MiB measured with ulimit -v).
const runtimeReserve = 800 << 20

// setMemoryLimit makes the garbage collector keep the heap within the
// memory ddt may use, when that is limited (ulimit -v, a cgroup) and
// GOMEMLIMIT does not say otherwise: an input within ddt's limits then
// runs where its live data fits, instead of failing on garbage the
// collector had not yet reclaimed.
func setMemoryLimit() {
	limit := int64(-1)
	if as := addressSpaceLimit(); as > 0 {
		limit = max(as-runtimeReserve, 32<<20)
	}
	if cg := cgroupMemoryLimit(); cg > 0 && (limit < 0 || cg < limit) {
		limit = cg
	}
	if limit > 0 {
		memBudget = limit
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(limit / 10 * 9)
		}
	}
}

// memBudget is the memory ddt may use for data when it is limited, or -1.
var memBudget int64 = -1

// cgroupMemoryLimit reads the memory limit of the process's cgroup (v2),
// or returns -1.
func cgroupMemoryLimit() int64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 {
		return -1 // "max": no limit
	}
	return v
}
