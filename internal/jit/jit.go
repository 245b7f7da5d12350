// Package jit compiles DAME programs to native amd64 code at run time
// (seed 003's DAME-X): loop nests with the counts and strides of the type
// as constants, struct members as straight-line moves of their exact
// widths, 16-, 32- or 64-byte vector moves as the CPU allows, loops
// unrolled by the size of their bodies.
//
// The code lives in pages mapped read+write, filled, then made
// read+execute (never both writable and executable), and is entered
// through one small assembly trampoline. Generated functions are leaves:
// they call nothing, use no stack, store no pointers, and move one bounded
// chunk of whole units (instances, or blocks of a strided root) per call,
// so goroutine preemption and the garbage collector are never held up for
// long. Partial units at the edges of a packed range go to the caller's
// fallback engine, so every byte offset stays resumable. The pages are
// unmapped when no Engine uses them any more; identical programs share
// them.
//
// Only amd64 Linux runs generated code; elsewhere, with DDT_NOJIT=1 in the
// environment, or for programs the generator does not cover (index lists
// of varying block lengths longer than it unrolls, loops nested too deeply,
// displacements beyond 32 bits), the fallback engine does everything.
package jit

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
	"weak"

	"github.com/ddtlab/ddt/dame"
)

// Code is the native code of one program: pack and unpack entries for
// whole instances and, when the root is a strided loop, for whole blocks
// of the root. It is immutable and shared by the engines of identical
// programs.
type Code struct {
	mem     []byte // the mapped pages
	packI   uintptr
	unpackI uintptr
	packB   uintptr // 0 without block entries
	unpackB uintptr

	size, ext, off int64 // of the program
	blocks         int64 // root blocks per instance (block entries)
	bstride, bsize int64 // memory stride and packed bytes of a root block

	vec      int
	codeLen  int
	compiled time.Duration
}

// Vec is the widest vector move the code uses (16, 32 or 64 bytes).
func (c *Code) Vec() int { return c.vec }

// Len is the number of bytes of code and tables.
func (c *Code) Len() int { return c.codeLen }

// CompileTime is how long generating and mapping the code took.
func (c *Code) CompileTime() time.Duration { return c.compiled }

// disabled is set by DDT_NOJIT=1.
var disabled = os.Getenv("DDT_NOJIT") == "1"

// Available reports whether this process runs generated code: amd64
// Linux, and DDT_NOJIT=1 not set.
func Available() bool { return supported && !disabled }

// defaultVec is the vector width used: the host's, lowered by
// DDT_JIT_VEC=16 or 32 (for tests and measurements).
var defaultVec = func() int {
	v := hostVec()
	if s, err := strconv.Atoi(os.Getenv("DDT_JIT_VEC")); err == nil && (s == 16 || s == 32 || s == 64) {
		v = min(v, s)
	}
	return v
}()

// maxEntries bounds the list entries of a program the generator takes.
const maxEntries = 1 << 16

// entries counts the list entries of the program's nodes (shared nodes
// once), stopping past maxEntries.
func entries(n *dame.Node, seen map[*dame.Node]bool, total *int) {
	if n == nil || seen[n] || *total > maxEntries {
		return
	}
	seen[n] = true
	*total += len(n.Disps)
	if n.Child != nil {
		entries(n.Child, seen, total)
	}
	for _, c := range n.Children {
		entries(c, seen, total)
	}
}

// program is the generated code of p before it is mapped.
type program struct {
	g                  *gen
	pi, ui, pb, ub     int
	blocks, bst, bsize int64
}

// generate emits the four entries of p at vector width vec.
func generate(p *dame.Program, vec int, log bool) (*program, error) {
	root := p.Root
	if root == nil {
		return nil, fmt.Errorf("%w: type has no data", ErrUnsupported)
	}
	if root.Op == dame.ContigFinal && root.Extent == root.Size {
		return nil, fmt.Errorf("%w: contiguous type (a plain copy)", ErrUnsupported)
	}
	total := 0
	entries(root, map[*dame.Node]bool{}, &total)
	if total > maxEntries {
		return nil, fmt.Errorf("%w: more than %d list entries", ErrUnsupported, maxEntries)
	}
	g := &gen{vec: vec, vex: vec >= 32}
	g.a.log = log
	pr := &program{g: g, pb: -1, ub: -1}
	g.pack = true
	pr.pi = g.entry(root, p.Extent)
	g.pack = false
	pr.ui = g.entry(root, p.Extent)
	var child *dame.Node
	switch {
	case root.Op == dame.Vector && root.Blocklen == 1:
		child, pr.bst = root.Child, root.Stride
	case root.Op == dame.Contig:
		child, pr.bst = root.Child, root.Child.Extent
	}
	if child != nil {
		pr.blocks, pr.bsize = root.Count, child.Size
		g.pack = true
		pr.pb = g.entry(child, pr.bst)
		g.pack = false
		pr.ub = g.entry(child, pr.bst)
	}
	if g.err != nil {
		return nil, g.err
	}
	// tables after the code, 8-byte aligned
	for len(g.a.b)%8 != 0 {
		g.a.b = append(g.a.b, 0xcc)
	}
	for _, t := range g.tables {
		g.a.patch(t.lea, len(g.a.b))
		for _, d := range t.data {
			g.a.b = binary.LittleEndian.AppendUint64(g.a.b, uint64(d))
		}
	}
	if len(g.a.b) > maxCode {
		return nil, fmt.Errorf("%w: %d bytes of code", ErrUnsupported, len(g.a.b))
	}
	return pr, nil
}

// cache shares the code of identical programs: the program text and
// vector width name it.
var cache struct {
	sync.Mutex
	m map[string]weak.Pointer[Code]
}

// Compile returns the native code of p (shared with identical programs
// compiled before and still in use). It fails with an error wrapping
// ErrUnsupported when the generator does not cover p, and always when
// Available is false.
func Compile(p *dame.Program) (*Code, error) {
	if !Available() {
		return nil, fmt.Errorf("%w: code generation unavailable", ErrUnsupported)
	}
	return compileVec(p, defaultVec)
}

func compileVec(p *dame.Program, vec int) (*Code, error) {
	t0 := time.Now()
	if p.Root == nil {
		return nil, fmt.Errorf("%w: type has no data", ErrUnsupported)
	}
	total := 0
	entries(p.Root, map[*dame.Node]bool{}, &total)
	if total > maxEntries {
		return nil, fmt.Errorf("%w: more than %d list entries", ErrUnsupported, maxEntries)
	}
	key := strconv.Itoa(vec) + "\n" + p.String()
	cache.Lock()
	defer cache.Unlock()
	if w, ok := cache.m[key]; ok {
		if c := w.Value(); c != nil {
			return c, nil
		}
	}
	pr, err := generate(p, vec, false)
	if err != nil {
		return nil, err
	}
	m, err := mapCode(pr.g.a.b)
	if err != nil {
		return nil, err
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	c := &Code{mem: m, size: p.Size, ext: p.Extent, off: p.Off, vec: vec, codeLen: len(pr.g.a.b),
		packI: base + uintptr(pr.pi), unpackI: base + uintptr(pr.ui)}
	if pr.pb >= 0 {
		c.packB, c.unpackB = base+uintptr(pr.pb), base+uintptr(pr.ub)
		c.blocks, c.bstride, c.bsize = pr.blocks, pr.bst, pr.bsize
	}
	if cache.m == nil {
		cache.m = map[string]weak.Pointer[Code]{}
	}
	w := weak.Make(c)
	cache.m[key] = w
	runtime.AddCleanup(c, func(m []byte) {
		unmapCode(m)
		cache.Lock()
		if cw, ok := cache.m[key]; ok && cw == w {
			delete(cache.m, key)
		}
		cache.Unlock()
	}, m)
	c.compiled = time.Since(t0)
	return c, nil
}

// Listing returns the generated code of p as text (offsets, bytes and
// instructions in Intel syntax) at the host's vector width, whether or
// not this machine could run it.
func Listing(p *dame.Program) (string, error) { return listingVec(p, defaultVec) }

func listingVec(p *dame.Program, vec int) (string, error) {
	pr, err := generate(p, vec, true)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "; %d bytes of code and tables, %d-byte vector moves\n", len(pr.g.a.b), vec)
	names := map[int]string{pr.pi: "pack instances", pr.ui: "unpack instances"}
	if pr.pb >= 0 {
		names[pr.pb] = fmt.Sprintf("pack blocks of the root (stride %d, %d packed bytes)", pr.bst, pr.bsize)
		names[pr.ub] = "unpack blocks of the root"
	}
	a := &pr.g.a
	for _, l := range a.txt {
		if n, ok := names[l.off]; ok {
			fmt.Fprintf(&b, "%s:\n", n)
			delete(names, l.off)
		}
		fmt.Fprintf(&b, "%6x  %-30x  %s\n", l.off, a.b[l.off:l.off+l.n], l.text)
	}
	for _, t := range pr.g.tables {
		fmt.Fprintf(&b, "table: %d displacements\n", len(t.data))
	}
	return b.String(), nil
}

// Fallback is the engine that moves what the generated code does not:
// partial units at the edges of a range, and everything before the
// program is compiled.
type Fallback interface {
	Pack(dst, src []byte, origin, count, from int64)
	Unpack(dst, src []byte, origin, count, from int64)
}

// chunkBytes bounds the packed bytes one call of generated code moves
// (at least one unit): tens of microseconds at memory speed.
const chunkBytes = 64 << 10

// run moves the packed bytes [from, from+len(buf)) of count instances
// between buf and the memory image mem (instance 0's origin at byte
// origin): memory to buf when pack is set.
func (c *Code) run(pack bool, fb Fallback, buf, mem []byte, origin, count, from int64) {
	S := c.size
	lo, hi := from, from+int64(len(buf))
	i := lo / S
	if r := lo - i*S; r != 0 || hi-lo < S {
		end := min(hi, (i+1)*S)
		c.partial(pack, fb, buf, mem, origin, count, from, i, r, end-i*S)
		lo, i = end, i+1
	}
	if n := (hi - lo) / S; n > 0 {
		switch {
		case S <= 4*chunkBytes:
			per := max(1, chunkBytes/S)
			fn := c.packI
			if !pack {
				fn = c.unpackI
			}
			for k := int64(0); k < n; k += per {
				m := min(per, n-k)
				c.call(fn, mem, origin+c.off+(i+k)*c.ext, buf[lo+k*S-from:], m)
			}
		case c.packB != 0:
			for k := int64(0); k < n; k++ {
				c.partial(pack, fb, buf, mem, origin, count, from, i+k, 0, S)
			}
		default:
			c.fallback(pack, fb, buf, mem, origin, count, from, lo, lo+n*S)
		}
		lo, i = lo+n*S, i+n
	}
	if lo < hi {
		c.partial(pack, fb, buf, mem, origin, count, from, i, 0, hi-i*S)
	}
}

// partial moves the packed bytes [r0, r1) of instance i (offsets inside
// the instance): whole root blocks with the block entry, the rest with
// the fallback.
func (c *Code) partial(pack bool, fb Fallback, buf, mem []byte, origin, count, from, i, r0, r1 int64) {
	at := i * c.size
	if c.packB != 0 {
		B := c.bsize
		b0, b1 := (r0+B-1)/B, r1/B
		if b0 < b1 {
			if r0 < b0*B {
				c.fallback(pack, fb, buf, mem, origin, count, from, at+r0, at+b0*B)
			}
			fn := c.packB
			if !pack {
				fn = c.unpackB
			}
			per := max(1, chunkBytes/B)
			mo := origin + c.off + i*c.ext
			for b := b0; b < b1; b += per {
				m := min(per, b1-b)
				c.call(fn, mem, mo+b*c.bstride, buf[at+b*B-from:], m)
			}
			if b1*B < r1 {
				c.fallback(pack, fb, buf, mem, origin, count, from, at+b1*B, at+r1)
			}
			return
		}
	}
	c.fallback(pack, fb, buf, mem, origin, count, from, at+r0, at+r1)
}

// fallback moves the packed bytes [lo, hi) of the message with fb.
func (c *Code) fallback(pack bool, fb Fallback, buf, mem []byte, origin, count, from, lo, hi int64) {
	if lo >= hi {
		return
	}
	if pack {
		fb.Pack(buf[lo-from:hi-from], mem, origin, count, lo)
	} else {
		fb.Unpack(mem, buf[lo-from:hi-from], origin, count, lo)
	}
}

// call runs fn on n units, the first one's origin at byte off of mem
// (which may lie outside mem; the code touches only bytes inside it) and
// its packed bytes at the start of pk.
func (c *Code) call(fn uintptr, mem []byte, off int64, pk []byte, n int64) {
	a := args{base: unsafe.Pointer(unsafe.SliceData(mem)), off: int(off), pk: unsafe.Pointer(unsafe.SliceData(pk)), n: int(n)}
	call(fn, &a)
	runtime.KeepAlive(c)
}
