package engine

import (
	"math"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine/ref"
)

// Reference is the reference engine (package internal/engine/ref) behind the
// Engine interface: it walks the type tree itself, not a program, and is
// the oracle every other engine is tested against.
type Reference struct{ t *datatype.Type }

// NewReference returns the reference engine of t.
func NewReference(t *datatype.Type) *Reference { return &Reference{t} }

// Pack implements Engine.
func (e *Reference) Pack(dst, src []byte, origin, count, from int64) {
	ref.Pack(e.t, count, src, origin, from, dst)
}

// Unpack implements Engine.
func (e *Reference) Unpack(dst, src []byte, origin, count, from int64) {
	ref.Unpack(e.t, count, dst, origin, from, src)
}

// Segments implements Engine from the type map, merging adjacent pieces.
func (e *Reference) Segments(count, from int64, yield func(off, n int64) bool) {
	if count <= 0 || from < 0 {
		return
	}
	total := int64(math.MaxInt64)
	if sz := e.t.Size(); sz > 0 && count <= math.MaxInt64/sz {
		total = count * sz
	}
	var cur, curLen int64
	stop := false
	ref.Visit(e.t, count, from, total, func(mem, _, n int64) {
		if stop {
			return
		}
		if curLen > 0 && cur+curLen == mem {
			curLen += n
			return
		}
		if curLen > 0 && !yield(cur, curLen) {
			stop = true
			return
		}
		cur, curLen = mem, n
	})
	if !stop && curLen > 0 {
		yield(cur, curLen)
	}
}

// String implements Engine: the reference engine has no plan beyond the
// type tree.
func (e *Reference) String() string { return "reference (type-tree walk)\n" }
