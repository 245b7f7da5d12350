//go:build !(amd64 && linux) && !(arm64 && linux)

package jit

import "errors"

// supported reports whether this build can run generated code: only
// amd64 and arm64 Linux can; elsewhere the engines keep their Go kernels.
const supported = false

func hostVec() int { return 16 }

func hostVBMI() bool { return false }

// hostPrefW is false: PREFETCHW is amd64's.
func hostPrefW() bool { return false }

// hostERMS is false: REP MOVSB is amd64's.
func hostERMS() bool { return false }

func mapCode(code []byte) ([]byte, error) {
	return nil, errors.New("jit: no code generation on this platform")
}

func unmapCode(m []byte) {}

var abiProbe []byte

const probeLen = 4

// hostAMD reports whether the CPU is AMD's (unpackThrottleOf).
func hostAMD() bool { return false }
