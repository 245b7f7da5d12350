package bench

import (
	"bufio"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// Machine describes where a benchmark ran.
type Machine struct {
	CPU        string `json:"cpu"`
	CPUs       int    `json:"logical_cpus"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Go         string `json:"go"`
	Kernels    string `json:"kernels"`     // the kernel set the engines use (DDT_NOASM, DDT_ASM)
	CPUKernels string `json:"cpu_kernels"` // the best kernel set the CPU supports
	JIT        bool   `json:"jit"`         // Auto runs generated native code (DDT_NOJIT)
	// NTMin is ddt.NonTemporalMin: packs of at least this many bytes use
	// non-temporal stores (DDT_NTMIN, DDT_NONT; 0 when off)
	NTMin int64 `json:"nt_min"`
}

// ThisMachine describes the machine the program runs on.
func ThisMachine() Machine {
	return Machine{CPU: cpuName(), CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		Go: runtime.Version(), Kernels: engine.DefaultLevel().String(), CPUKernels: engine.MaxLevel().String(),
		JIT: jit.Available(), NTMin: ntMin()}
}

// ntMin is ddt.NonTemporalMin, 0 when non-temporal packing is off.
func ntMin() int64 {
	if m := ddt.NonTemporalMin(); m < math.MaxInt64 {
		return m
	}
	return 0
}

// cpuName is the CPU's model name where the system tells it (Linux), the
// architecture otherwise.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return runtime.GOARCH
}
