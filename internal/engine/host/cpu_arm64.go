//go:build arm64

package host

// detect reports Advanced SIMD (NEON), which every arm64 CPU Go runs on
// has (the Go toolchain assumes it for arm64): the generated code uses
// its 16-byte Q registers.
func detect() Features { return Features{NEON: true} }
