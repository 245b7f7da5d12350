package engine

import (
	"fmt"

	"github.com/ddtlab/ddt/dame"
)

// Interp is the DAME interpreter: a stack machine over the program (seed
// 003 §3.4). A partial pack is described by its State: the stack of
// primitives being processed with their loop counters and the offset inside
// the innermost CONTIGFINAL. Start builds that state for any byte of the
// packed stream in O(depth · log n) from the cached packed sizes (Start); Step runs
// the machine from it. Interp is immutable and safe for concurrent use.
type Interp struct {
	p  *dame.Program
	lv Level
}

// NewInterp returns the interpreter of p; its strided runs use kernel set l.
func NewInterp(p *dame.Program, l Level) *Interp { return &Interp{p: p, lv: l.kernels()} }

// String is the interpreter's plan: the program it runs.
func (e *Interp) String() string { return fmt.Sprintf("interpreter %v\n%v", e.lv, e.p) }

// frame is one stack entry: instance of n at memory offset mem, at block i,
// child instance j of that block.
type frame struct {
	n    *dame.Node
	mem  int64
	i, j int64
}

// State is the resumable state of a partial pack or unpack: where the
// machine stands in the program.
type State struct {
	stack   []frame
	inst    int64 // top-level instance
	leafOff int64 // bytes of the innermost CONTIGFINAL already moved
	base    int64 // memory offset of instance 0's program origin
	done    bool
}

// Start returns the state at packed byte from of count instances whose
// instance 0 has its origin at memory offset origin.
func (e *Interp) Start(origin, count, from int64) *State {
	p := e.p
	s := &State{base: origin + p.Off}
	if p.Root == nil || from >= count*p.Size {
		s.done = true
		return s
	}
	s.inst = from / p.Size
	s.descend(p.Root, s.base+s.inst*p.Extent, from-s.inst*p.Size)
	return s
}

// descend pushes frames from n down to the leaf holding packed byte rem of
// the instance of n at mem.
func (s *State) descend(n *dame.Node, mem, rem int64) {
	for n.Op != dame.ContigFinal {
		i, bo := n.FindBlockOffset(rem)
		rem -= bo
		ch := n.ChildOf(int(i))
		j := rem / ch.Size
		rem -= j * ch.Size
		s.stack = append(s.stack, frame{n: n, mem: mem, i: i, j: j})
		mem += n.BlockDisp(i) + j*ch.Extent
		n = ch
	}
	s.stack = append(s.stack, frame{n: n, mem: mem})
	s.leafOff = rem
}

// advance moves the state to the first byte after the current leaf.
func (s *State) advance(p *dame.Program, count int64) {
	s.stack = s.stack[:len(s.stack)-1]
	for len(s.stack) > 0 {
		f := &s.stack[len(s.stack)-1]
		n := f.n
		f.j++
		if f.j >= n.BlockLen(int(f.i)) {
			f.i++
			f.j = 0
			if f.i >= n.NumBlocks() {
				s.stack = s.stack[:len(s.stack)-1]
				continue
			}
		}
		ch := n.ChildOf(int(f.i))
		s.descend(ch, f.mem+n.BlockDisp(f.i)+f.j*ch.Extent, 0)
		return
	}
	s.inst++
	if s.inst >= count {
		s.done = true
		return
	}
	s.descend(p.Root, s.base+s.inst*p.Extent, 0)
}

// Step moves packed bytes between mem and buf, starting at state s, until
// buf is exhausted or the message ends, and returns the number of bytes
// moved. With pack set it copies mem to buf, otherwise buf to mem.
func (e *Interp) Step(s *State, pack bool, mem, buf []byte, count int64) int {
	q := 0
	for !s.done && q < len(buf) {
		top := len(s.stack) - 1
		lf := s.stack[top]
		L := lf.n.Size
		// a Final primitive packs all its remaining whole blocks at once
		if s.leafOff == 0 && top > 0 {
			f := &s.stack[top-1]
			if f.n.IsFinal() {
				ext := lf.n.Extent
				if fn := f.n; fn.Op == dame.Vector && fn.Blocklen == 1 {
					// VECTORFINAL with one leaf per block: a strided run of
					// whole leaves, no per-block decoding
					// (the compiled engine's line kernel; the caller checked
					// that every leaf lies inside mem)
					k := min(fn.Count-f.i, int64(len(buf)-q)/L)
					if k > 0 {
						at, l, st := int(f.mem+f.i*fn.Stride), int(L), int(fn.Stride)
						if pack {
							line(e.lv, ptr(buf), q, l, ptr(mem), at, st, int(k), l)
						} else {
							line(e.lv, ptr(mem), at, st, ptr(buf), q, l, int(k), l)
						}
						q += int(k) * l
					}
					f.i += k
				}
				for f.i < f.n.NumBlocks() && int64(len(buf)-q) >= L {
					at := f.mem + f.n.BlockDisp(f.i) + f.j*ext
					if pack {
						copy(buf[q:q+int(L)], mem[at:at+L])
					} else {
						copy(mem[at:at+L], buf[q:q+int(L)])
					}
					q += int(L)
					f.j++
					if f.j >= f.n.BlockLen(int(f.i)) {
						f.i++
						f.j = 0
					}
				}
				if f.i < f.n.NumBlocks() {
					s.stack[top].mem = f.mem + f.n.BlockDisp(f.i) + f.j*ext
					if q == len(buf) {
						return q
					}
					lf = s.stack[top]
				} else {
					// the final primitive is done: continue after it
					f.i = f.n.NumBlocks() - 1
					f.j = f.n.BlockLen(int(f.i)) - 1
					s.advance(e.p, count)
					continue
				}
			}
		}
		n := min(L-s.leafOff, int64(len(buf)-q))
		at := lf.mem + s.leafOff
		if pack {
			copy(buf[q:q+int(n)], mem[at:at+n])
		} else {
			copy(mem[at:at+n], buf[q:q+int(n)])
		}
		q += int(n)
		s.leafOff += n
		if s.leafOff == L {
			s.advance(e.p, count)
		}
	}
	return q
}

// Pack writes the packed bytes [from, from+len(dst)) of count instances.
func (e *Interp) Pack(dst, src []byte, origin, count, from int64) {
	e.Step(e.Start(origin, count, from), true, src, dst, count)
}

// Unpack reads the packed bytes [from, from+len(src)) of count instances.
func (e *Interp) Unpack(dst, src []byte, origin, count, from int64) {
	e.Step(e.Start(origin, count, from), false, dst, src, count)
}

// Segments calls yield with each contiguous memory segment (offset from
// instance 0's origin, length) of the packed bytes [from, end) of count
// instances, in packed order, adjacent segments merged, until yield returns
// false. It walks the program without materializing the list.
func (e *Interp) Segments(count, from int64, yield func(off, n int64) bool) {
	segments(e.p, count, from, yield)
}

// segments is Segments for any engine of p.
func segments(p *dame.Program, count, from int64, yield func(off, n int64) bool) {
	if count <= 0 || from < 0 {
		return
	}
	e := Interp{p: p}
	s := e.Start(0, count, from)
	var cur, curLen int64
	for !s.done {
		lf := s.stack[len(s.stack)-1]
		off, n := lf.mem+s.leafOff, lf.n.Size-s.leafOff
		if curLen > 0 && cur+curLen == off {
			curLen += n
		} else {
			if curLen > 0 && !yield(cur, curLen) {
				return
			}
			cur, curLen = off, n
		}
		s.advance(e.p, count)
	}
	if curLen > 0 {
		yield(cur, curLen)
	}
}
