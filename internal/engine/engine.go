package engine

import (
	"fmt"
	"strings"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// Engine moves the bytes of a committed type between a memory image and
// the packed stream. Every engine executes one dame.Program (the reference
// engine, the oracle, walks the type tree instead) and is immutable and
// safe for concurrent use once built.
//
// All methods take their arguments in one order: destination, source, the
// origin of the memory image (the byte of the image slice where
// displacement 0 of instance 0 lies), the number of instances, and from,
// the byte of the packed stream where the call starts. A call moves the
// packed bytes [from, from+len(packed slice)) of count instances, so a
// partial pack or unpack resumes at any byte with no other state: the
// resumable state of a Packer is its byte position. The caller (package
// ddt) has checked that every byte the call touches lies inside the
// slices; engines do no per-move checks.
type Engine interface {
	// Pack writes the packed bytes [from, from+len(dst)) of count instances
	// of the image src into dst.
	Pack(dst, src []byte, origin, count, from int64)
	// Unpack writes src, the packed bytes [from, from+len(src)) of count
	// instances, into the image dst.
	Unpack(dst, src []byte, origin, count, from int64)
	// Segments calls yield with each contiguous memory run (offset from
	// instance 0's origin, length) of the packed bytes [from, end) of count
	// instances, in packed order, adjacent runs merged, until yield returns
	// false.
	Segments(count, from int64, yield func(off, n int64) bool)
	// String describes the engine's plan: which kernel runs on which
	// primitive, one line per primitive, indented like Program.String.
	String() string
	// Whole is the engine's whole-message entry, once it has one (native
	// code, when generated), or nil: count instances, from byte 0 of the
	// packed stream, in one call of an entry through Call, with no
	// resumable state. The caller checks the message against the buffers
	// once, for count at most Whole().Max.
	Whole() *Whole
	// Prepare builds now what the engine would build on first use or
	// after enough use (native code), if it defers anything.
	Prepare()
}

// Whole is an engine's whole-message entry (host.Whole): Entry[0] packs,
// Entry[1] unpacks at most Max instances of Size packed bytes each.
type Whole = host.Whole

// Entry is a whole-message entry (host.Entry).
type Entry = host.Entry

// Call runs a whole-message entry on count instances (host.Call): mem is
// the memory image, the first instance's origin lies origin bytes into
// it, pk is the packed bytes. The caller has checked both buffers. It is
// inlined.
func Call(fn Entry, mem []byte, origin int64, pk []byte, count int64) {
	host.Call(fn, mem, origin, pk, count)
}

// Level is a set of block kernels: the portable Go loops, or assembly using
// AVX2 or AVX-512 (amd64), or NEON (arm64: the compiled engine keeps its
// Go loops, and native code is generated; see select.go). An engine fixes
// its level when it is built. LevelGo means portable code only, native
// code included, on every platform.
type Level uint8

// Kernel levels.
const (
	LevelGo Level = iota
	LevelAVX2
	LevelAVX512
	LevelNEON
)

var levelNames = [...]string{"go", "avx2", "avx512", "neon"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", l)
}

// ParseLevel returns the level with the given name (go, avx2, avx512,
// neon).
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown kernel set %q (want go, avx2, avx512 or neon)", s)
}

// MaxLevel is the best kernel set this CPU and build support.
func MaxLevel() Level { return Level(cpuLevel()) }

// DefaultLevel is the kernel set engines use unless told otherwise: the
// best the CPU supports, lowered by the environment variables DDT_NOASM=1
// (Go loops) or DDT_ASM=go|avx2|avx512|neon, read once when the program
// starts.
func DefaultLevel() Level { return defaultLevel }

// kernels is the level whose block kernels the compiled engine runs at
// level l: NEON has none of its own (the Go loops).
func (l Level) kernels() Level {
	if l == LevelNEON {
		return LevelGo
	}
	return l
}

// indent writes the plan line of a node at depth d.
func indent(b *strings.Builder, d int, format string, a ...any) {
	b.WriteString(strings.Repeat("  ", d))
	fmt.Fprintf(b, format, a...)
	b.WriteByte('\n')
}

// Whole and Prepare of the engines without native code: no whole-message
// entry, nothing deferred worth building early.
func (e *Compiled) Whole() *Whole  { return nil }
func (e *Interp) Whole() *Whole    { return nil }
func (e *Reference) Whole() *Whole { return nil }
func (e *Compiled) Prepare()       {}
func (e *Interp) Prepare()         {}
func (e *Reference) Prepare()      {}

var (
	_ Engine = (*Compiled)(nil)
	_ Engine = (*Interp)(nil)
	_ Engine = (*Reference)(nil)
)
