package engine

import (
	"fmt"
	"runtime"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/jit"
)

// Kind names an engine: the values of ddt.Engine, in its order.
type Kind uint8

// Engine kinds. Auto lets Select choose; the others ask for one engine.
const (
	Auto Kind = iota
	KindReference
	KindInterpreter
	KindCompiled
	KindNative
)

// KindNames are the kinds' names, indexed by Kind.
var KindNames = [...]string{"auto", "reference", "interpreter", "compiled", "native"}

func (k Kind) String() string {
	if int(k) < len(KindNames) {
		return KindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Caps is what Select may use: the engine asked for, the kernel set, and
// whether native code is generated at once (else after enough use).
type Caps struct {
	Want  Kind
	Level Level
	Now   bool
	// Type is the type tree the reference engine walks (the program is
	// nil for a type committed for the reference engine, or one that is
	// not compiled).
	Type *datatype.Type
}

// Reason is what Select chose and why, as the plan dump shows it.
type Reason struct {
	Kind Kind   // the engine chosen (never Auto)
	Why  string // why, for the plan dump
}

func (r Reason) String() string { return fmt.Sprintf("engine %v: %s", r.Kind, r.Why) }

// backend is a native-code generator for one GOARCH: the widest vector
// move it may use at each kernel level.
type backend struct {
	goarch string
	vec    func(Level) int
}

// backends are the native-code generators Select tries, in order, for
// Auto and Native (those of this GOARCH only): internal/engine/jit's, with
// AVX2 or AVX-512 moves on amd64, NEON moves of 16 bytes and pairs of them
// (LDP/STP of Q registers) for 32 on arm64.
var backends = []backend{
	{"amd64", func(l Level) int {
		if l >= LevelAVX512 {
			return 64
		}
		return 32
	}},
	{"arm64", func(Level) int { return 32 }},
}

// Select returns the engine of p for c and the reason for the choice.
// Auto and Native run native code when a backend takes p (the compiled
// engine is its base), the compiled engine otherwise; a nil p (a type
// without a program; every committed type has one since programs share
// sub-programs) runs on the reference engine whatever was asked. Engines
// build their plans, and native code its code, on first use (Prepare
// builds them now).
func Select(p *dame.Program, c Caps) (Engine, Reason) {
	switch {
	case c.Want == KindReference:
		return NewReference(c.Type), Reason{KindReference, "asked"}
	case p == nil:
		return NewReference(c.Type), Reason{KindReference, "the type has no program"}
	case c.Want == KindInterpreter:
		return NewInterp(p, c.Level), Reason{KindInterpreter, "asked"}
	case c.Want == KindCompiled:
		return NewCompiled(p, c.Level), Reason{KindCompiled, "asked"}
	}
	base := NewCompiled(p, c.Level)
	why := "no generator for " + runtime.GOARCH
	for _, b := range backends {
		if b.goarch != runtime.GOARCH {
			continue
		}
		e, no := jitBackend(b, p, c, base)
		if e != nil {
			if c.Now {
				e.Prepare()
			}
			return e, Reason{KindNative, fmt.Sprintf("%v (%s)", c.Want, no)}
		}
		why = no
	}
	return base, Reason{KindCompiled, fmt.Sprintf("%v, no native code: %s", c.Want, why)}
}

// NativeAvailable reports whether this process can run native code: a
// platform with a generator, and DDT_NOJIT=1 not set.
func NativeAvailable() bool { return jit.Available() }

// jitBackend is the generator of internal/engine/jit with the vector
// moves of backend b: none at the Go level (portable code only, on every
// platform), nor for programs the compiled engine's transpose kernel runs
// (its tiled Go code is cache-friendlier than element moves).
func jitBackend(b backend, p *dame.Program, c Caps, base *Compiled) (Engine, string) {
	switch {
	case c.Level == LevelGo:
		return nil, "kernel set go"
	case !jit.Available():
		return nil, "no code generation here (platform or DDT_NOJIT=1)"
	case !jit.Eligible(p):
		return nil, "no data, or one contiguous run"
	case Transposes(p):
		return nil, "a transpose: the compiled engine's kernel is faster"
	case sortRule.Fires(p.Root):
		return nil, "a displacement-sorted unpack (dame.SortRule): the compiled engine's plan is faster"
	}
	how := "tiered: generated after enough use"
	if c.Now {
		how = "generated at commit"
	}
	return jit.New(p, base, jit.Options{Vec: b.vec(c.Level)}), how
}

var _ Engine = (*jit.Engine)(nil)
