//go:build ignore

// Arm64icount counts the instructions executed by the generated arm64
// pack code and by hand loops compiled by Go for arm64, on the layouts of
// internal/engine/jit's TestA64Trace, under qemu-user: one instruction
// per translation block (-singlestep), every execution logged (-d
// exec,nochain), only at the addresses of the generated code and of the
// hand loops (-dfilter). Emulation gives instruction counts, not time.
// Usage, from the repository's root (needs qemu-aarch64, Debian's
// qemu-user):
//
//	go run bench/scripts/arm64icount.go
package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type span struct {
	name   string
	lo, hi uint64
	bytes  int
}

func main() {
	tmp, err := os.MkdirTemp("", "arm64icount")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "jit.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./internal/engine/jit")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		log.Fatal(err)
	}
	// the hand loops' address ranges from the symbol table
	out, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		log.Fatal(err)
	}
	var hand []span
	var filter []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 4 && strings.Contains(f[3], "jit.hand") {
			lo, _ := strconv.ParseUint(f[0], 16, 64)
			n, _ := strconv.ParseUint(f[1], 10, 64)
			name := strings.ToLower(f[3][strings.Index(f[3], "jit.hand")+8:])
			hand = append(hand, span{name: name, lo: lo, hi: lo + n})
			filter = append(filter, fmt.Sprintf("%#x+%d", lo, n))
		}
	}
	// the generated code is mapped far above the binary's text
	trace := filepath.Join(tmp, "trace")
	run := exec.Command("qemu-aarch64", "-singlestep", "-d", "exec,nochain",
		"-dfilter", strings.Join(append(filter, "0x1000000..0xffffffffffff"), ","),
		"-D", trace, bin, "-test.run", "^TestA64Trace$", "-test.v")
	run.Env = append(os.Environ(), "DDT_A64_TRACE=1")
	out, err = run.CombinedOutput()
	if err != nil {
		log.Fatalf("%v\n%s", err, out)
	}
	var jit []span
	for _, l := range strings.Split(string(out), "\n") {
		var s span
		if _, err := fmt.Sscanf(l, "a64trace jit %s %v %v %d", &s.name, &s.lo, &s.hi, &s.bytes); err == nil {
			jit = append(jit, s)
		}
	}
	count := map[string]int{}
	f, err := os.Open(trace)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Trace 0: 0xHOST [FLAGS/PC/...]
		parts := strings.Split(sc.Text(), "/")
		if len(parts) < 2 {
			continue
		}
		pc, err := strconv.ParseUint(parts[1], 16, 64)
		if err != nil {
			continue
		}
		for _, s := range jit {
			if pc >= s.lo && pc < s.hi {
				count["jit "+s.name]++
			}
		}
		for _, s := range hand {
			if pc >= s.lo && pc < s.hi {
				count["hand "+s.name]++
			}
		}
	}
	fmt.Printf("%-10s %7s %10s %10s %9s %14s\n", "layout", "bytes", "generated", "hand loop", "gen/hand", "gen per 8 B")
	for _, s := range jit {
		g, h := count["jit "+s.name], count["hand "+strings.ToLower(s.name)]
		fmt.Printf("%-10s %7d %10d %10d %9.2f %14.2f\n", s.name, s.bytes, g, h, float64(g)/float64(h), float64(g)/float64(s.bytes/8))
	}
}
