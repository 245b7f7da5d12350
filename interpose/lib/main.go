//go:build ddtinterpose

// Command lib is the ddt MPI interposition library: interpose/build.sh
// builds it with -buildmode=c-shared. The C layer (shim.c, zconstruct.c)
// defines the MPI functions, calls the MPI library through PMPI and calls
// the functions exported here to mirror types and to pack and unpack. This
// side never calls MPI.
package main

/*
#include <stdlib.h>
#include "ddtgo.h"
*/
import "C"

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/external32"
)

func main() {}

// threads is Options.Threads of every committed type: 1 unless
// DDT_MPI_THREADS says otherwise (0: ddt's own choice, which splits
// messages of 4 MiB and more between goroutines). An MPI job usually runs
// a rank on every core, where a second goroutine per message would only
// take a core from another rank.
var threads = func() int {
	if n, err := strconv.Atoi(os.Getenv("DDT_MPI_THREADS")); err == nil && n >= 0 && n <= 1024 {
		return n
	}
	return 1
}()

func init() {
	// A fatal error must not print goroutine stacks into the application's
	// output.
	debug.SetTraceback("none")
}

// entry is the mirror of one MPI datatype handle.
type entry struct {
	t         *datatype.Type // nil: ddt cannot mirror it
	c         *ddt.Committed // set at commit when ddt serves the type
	x         atomic.Pointer[external32.Codec]
	refs      int32 // user references to the handle (constructor, get_contents)
	derived   bool  // created through an intercepted constructor
	committed bool
	pin       int32 // slot of a served type, -1 otherwise
	// marked: MPI_Type_create_resized is somewhere in the type's tree, so
	// its type map carries explicit lower- and upper-bound markers
	// (stickyBounds)
	marked bool
	// steps is the C copy of the type's native steps (nativeSteps), made
	// once the code exists, freed with the entry
	steps atomic.Pointer[cSteps]
}

// cSteps are the steps of ddt.Committed.NativeSteps in C memory, pack's
// (np of them) then unpack's (nu).
type cSteps struct {
	p      *C.ddt_step
	np, nu int
}

// The handle table: every predefined type registered by the C layer and
// every derived type created through an intercepted constructor.
var (
	mu      sync.Mutex
	handles = map[uintptr]*entry{}
)

// slots maps small integers (pins) to served entries: the C layer keeps the
// pin of every served type and of every pending operation, and the hot path
// finds the entry with one atomic load and an index.
var slots slotTable

type slotTable struct {
	mu   sync.Mutex
	tab  atomic.Pointer[[]atomic.Pointer[entry]]
	free []int32
	n    int32
}

func (s *slotTable) get(i int32) *entry {
	t := s.tab.Load()
	if t == nil || uint32(i) >= uint32(len(*t)) {
		return nil
	}
	return (*t)[i].Load()
}

func (s *slotTable) put(e *entry) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var i int32
	if k := len(s.free); k > 0 {
		i = s.free[k-1]
		s.free = s.free[:k-1]
	} else {
		i = s.n
		s.n++
	}
	t := s.tab.Load()
	if t == nil || int(i) >= len(*t) {
		n := 64
		if t != nil {
			n = 2 * len(*t)
		}
		nt := make([]atomic.Pointer[entry], n)
		if t != nil {
			for j := range *t {
				nt[j].Store((*t)[j].Load())
			}
		}
		s.tab.Store(&nt)
		t = &nt
	}
	(*t)[i].Store(e)
	return i
}

func (s *slotTable) release(i int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tab.Load()
	if t == nil || i < 0 || int(i) >= len(*t) || (*t)[i].Load() == nil {
		return
	}
	(*t)[i].Store(nil)
	s.free = append(s.free, i)
}

//export ddtgoPredef
func ddtgoPredef(h C.uintptr_t, name *C.char) {
	t := datatype.Predefined(C.GoString(name))
	if t == nil {
		return
	}
	mu.Lock()
	handles[uintptr(h)] = &entry{t: t, refs: 1 << 30, pin: -1}
	mu.Unlock()
}

func int64s(p *C.int64_t, n C.int64_t) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n))...)
}

// ddtgoConstruct mirrors a derived type that the MPI library created with
// handle h, from its arguments laid out as MPI_Type_get_contents returns
// them (64-bit integers; orders and distributions in package datatype's
// numbering). A type ddt cannot build, or built from a type it does not
// know, is recorded as not mirrorable.
//
//export ddtgoConstruct
func ddtgoConstruct(comb C.int, h C.uintptr_t, ints *C.int64_t, ni C.int64_t, addrs *C.int64_t, na C.int64_t, types *C.uintptr_t, nt C.int64_t, b *C.ddt_bounds) {
	defer func() { _ = recover() }()
	c := datatype.Contents{Combiner: datatype.Combiner(comb), Ints: int64s(ints, ni), Addrs: int64s(addrs, na)}
	var hs []uintptr
	if nt > 0 && types != nil {
		hs = unsafe.Slice((*uintptr)(unsafe.Pointer(types)), int(nt))
	}
	e := &entry{refs: 1, derived: true, pin: -1, marked: c.Combiner == datatype.CombinerResized}
	marked := make([]bool, 0, len(hs))
	mu.Lock()
	ok := true
	for _, th := range hs {
		old := handles[th]
		if old == nil || old.t == nil {
			ok = false
			break
		}
		c.Types = append(c.Types, old.t)
		marked = append(marked, old.marked)
		e.marked = e.marked || old.marked
	}
	mu.Unlock()
	if ok {
		if t, err := datatype.Rebuild(c); err == nil {
			e.t = t
			if b != nil {
				size, lb, ext, tlb, text := int64(b.size), int64(b.lb), int64(b.extent), int64(b.true_lb), int64(b.true_extent)
				e.t = mirrorBounds(t, size, lb, ext, tlb, text)
				if e.t == t {
					e.t = stickyBounds(t, c, marked, size, lb, ext, tlb, text)
				}
			}
		}
	}
	mu.Lock()
	if old := handles[uintptr(h)]; old != nil && old.pin >= 0 {
		slots.release(old.pin) // a stale entry under a reused handle
	}
	handles[uintptr(h)] = e
	mu.Unlock()
}

// mirrorBounds returns the mirror of a type that MPI reports with size,
// lb, extent, trueLB and trueExtent: t itself, or t with MPI's bounds where
// the two differ only in what MPI decides alone for the same type map.
// Open MPI pads the extent of any type to its elements' alignment (an
// hvector of complex floats at a 9-byte stride: true extent 26, extent 28),
// where MPICH and ddt pad structs only; and Open MPI gives every empty type
// bounds 0, where MPICH and ddt keep those of the type's blocks (a vector
// of zero-length blocks). ddt then takes MPI's extent (a resized t: the same
// type map, instances where MPI puts them), so that the type, and every type
// built from it, moves data as MPI does. Any other difference is left for
// the commit-time comparison, which hands the type to MPI.
func mirrorBounds(t *datatype.Type, size, lb, extent, trueLB, trueExtent int64) *datatype.Type {
	if size < 0 || size != t.Size() || (t.LB() == lb && t.Extent() == extent && t.TrueLB() == trueLB && t.TrueExtent() == trueExtent) {
		return t
	}
	var r *datatype.Type
	var err error
	switch {
	case size == 0:
		var empty *datatype.Type
		if empty, err = datatype.Contiguous(0, datatype.Predefined("byte")); err == nil {
			r, err = datatype.Resized(empty, lb, extent)
		}
	case t.LB() == lb && t.TrueLB() == trueLB && t.TrueExtent() == trueExtent && extent > t.Extent() && extent-t.Extent() < maxPad:
		r, err = datatype.Resized(t, lb, extent)
	default:
		return t
	}
	if err != nil || r.TrueLB() != trueLB || r.TrueExtent() != trueExtent {
		return t
	}
	return r
}

// stickyBounds returns the mirror of a struct c whose MPI bounds (size, lb,
// extent, trueLB, trueExtent) are those of MPI's explicit markers: t with
// those bounds, or t. MPI-4.1 ("Lower-Bound and Upper-Bound Markers") gives
// a resized type explicit lower- and upper-bound markers and defines a
// type's lb as the least lb marker when its type map has any, its ub as the
// greatest ub marker, with no alignment padding. Open MPI follows that
// rule: a struct of an int at 0 and resized(int, lb 0, extent 16) at 8 has
// lb 8 and extent 16. MPICH and ddt take every block's bounds (lb 0, extent
// 24), which the commit-time comparison would hand to MPI. Only a struct
// mixes marked and unmarked children (every other constructor repeats one
// child), so only a struct is checked: when MPI's lb and extent are exactly
// the span of its marked blocks (marked[i]: child i is marked) and the type
// map is ddt's (size and true bounds equal), ddt takes them.
func stickyBounds(t *datatype.Type, c datatype.Contents, marked []bool, size, lb, extent, trueLB, trueExtent int64) *datatype.Type {
	n := len(c.Types)
	if c.Combiner != datatype.CombinerStruct || len(c.Ints) != n+1 || len(c.Addrs) != n || len(marked) != n ||
		size != t.Size() || t.TrueLB() != trueLB || t.TrueExtent() != trueExtent || (t.LB() == lb && t.Extent() == extent) {
		return t
	}
	var slb, sub int64
	found := false
	for i, ct := range c.Types {
		bl := c.Ints[i+1]
		if bl <= 0 || !marked[i] {
			continue
		}
		// bl instances at Addrs[i], ct.Extent() apart (t exists, so its
		// bounds, these among them, fit an int64)
		ext := ct.Extent()
		if ext != 0 && bl-1 > math.MaxInt64/max(ext, -ext) {
			return t
		}
		span := (bl - 1) * ext
		lo := c.Addrs[i] + ct.LB() + min(0, span)
		hi := c.Addrs[i] + ct.LB() + ext + max(0, span)
		if !found || lo < slb {
			slb = lo
		}
		if !found || hi > sub {
			sub = hi
		}
		found = true
	}
	if !found || slb != lb || sub-slb != extent {
		return t
	}
	r, err := datatype.Resized(t, lb, extent)
	if err != nil || r.TrueLB() != trueLB || r.TrueExtent() != trueExtent {
		return t
	}
	return r
}

// maxPad bounds the padding mirrorBounds accepts: less than the widest
// alignment of a basic type (16 bytes: long double).
const maxPad = 16

// ddtgoCommit commits the mirror of h and compares it with the bounds the
// MPI library reports. It returns the pin of a served type, -1 for a type
// left to the MPI library, and -2 for a handle that no intercepted
// constructor created. *first is set when this is the type's first commit.
//
//export ddtgoCommit
func ddtgoCommit(h C.uintptr_t, b *C.ddt_bounds, first *C.int) (pin C.int32_t) {
	defer func() {
		if recover() != nil {
			pin = -1
		}
	}()
	mu.Lock()
	e := handles[uintptr(h)]
	if e == nil || !e.derived {
		mu.Unlock()
		return -2
	}
	if e.committed {
		mu.Unlock()
		*first = 0
		return C.int32_t(e.pin)
	}
	e.committed = true
	mu.Unlock()
	*first = 1
	t := e.t
	if t == nil || t.Size() != int64(b.size) || t.LB() != int64(b.lb) || t.Extent() != int64(b.extent) ||
		t.TrueLB() != int64(b.true_lb) || t.TrueExtent() != int64(b.true_extent) {
		return -1
	}
	c, err := ddt.CommitWith(t, ddt.Options{Threads: threads})
	if err != nil {
		return -1
	}
	if lo, hi := t.DataBounds(); t.IsContiguous() && hi-lo == t.Size() && t.Size() > 0 {
		b.data_lb, b.contig = C.int64_t(lo), 1
	} else {
		runs(t, b)
	}
	e.c = c
	mu.Lock()
	e.pin = slots.put(e)
	mu.Unlock()
	return C.int32_t(e.pin)
}

// runMin is the shortest run of bytes that the C layer moves with a
// memcpy of its own (ddt_bounds.nruns): from about this length on, glibc's
// memcpy is at least as fast as the generated code, and the call costs
// little beside the copy (docs/interpose-bench.md, "Few long runs").
// DDT_MPI_RUNMIN sets it (an extension, for measurements and tests; 0
// switches the path off).
var runMin = func() int64 {
	if n, err := strconv.ParseInt(os.Getenv("DDT_MPI_RUNMIN"), 10, 64); err == nil && n >= 0 {
		return n
	}
	return 256
}()

// runs fills b's runs when one instance of t is 2 to DDT_RUNS runs of bytes,
// each at least runMin long. NumBlocks counts them without visiting them.
func runs(t *datatype.Type, b *C.ddt_bounds) {
	if runMin == 0 {
		return
	}
	n := t.NumBlocks(1)
	if n < 2 || n > C.DDT_RUNS || t.Size() < 2*runMin {
		return
	}
	var k int
	ok := t.Blocks(1, func(off, l int64) bool {
		if k >= C.DDT_RUNS || l < runMin {
			return false
		}
		b.run_off[k], b.run_len[k] = C.int64_t(off), C.int64_t(l)
		k++
		return true
	})
	if ok && int64(k) == n {
		b.nruns = C.int32_t(k)
	}
}

// ddtgoFree drops one user reference to h and reports whether the handle
// left the table.
//
//export ddtgoFree
func ddtgoFree(h C.uintptr_t) C.int {
	mu.Lock()
	defer mu.Unlock()
	e := handles[uintptr(h)]
	if e == nil || !e.derived {
		return 0
	}
	if e.refs--; e.refs > 0 {
		return 0
	}
	delete(handles, uintptr(h))
	if e.pin >= 0 {
		slots.release(e.pin)
	}
	return 1
}

// ddtgoRef adds a user reference to h (MPI_Type_get_contents hands out the
// handles of the old types).
//
//export ddtgoRef
func ddtgoRef(h C.uintptr_t) {
	mu.Lock()
	if e := handles[uintptr(h)]; e != nil && e.derived {
		e.refs++
	}
	mu.Unlock()
}

// ddtgoPin returns a new pin of the entry of pin, which keeps it while an
// operation is pending even if the type is freed.
//
//export ddtgoPin
func ddtgoPin(pin C.int32_t) C.int32_t {
	e := slots.get(int32(pin))
	if e == nil {
		return -1
	}
	return C.int32_t(slots.put(e))
}

//export ddtgoUnpin
func ddtgoUnpin(pin C.int32_t) { slots.release(int32(pin)) }

// image is the memory of count instances at base as a slice and the
// origin of instance 0 in it.
func image(t *datatype.Type, base unsafe.Pointer, count int64) ([]byte, int64, bool) {
	lo, hi, err := t.Span(count)
	if err != nil {
		return nil, 0, false
	}
	if hi == lo {
		return nil, 0, true
	}
	return unsafe.Slice((*byte)(unsafe.Add(base, lo)), hi-lo), -lo, true
}

// native fills nat with the native code of e once it exists: its
// whole-message entries, or else the steps of one instance.
func native(e *entry, nat *C.ddt_native) {
	if nat == nil || nat.pack != 0 || nat.nsteps[0] != 0 {
		return
	}
	if p, u, m, ok := e.c.NativeCode(); ok && p != 0 && u != 0 && m > 0 {
		nat.pack, nat.unpack, nat.max = C.uintptr_t(p), C.uintptr_t(u), C.int64_t(m)
		return
	}
	if s := nativeSteps(e); s != nil {
		nat.steps[0] = s.p
		nat.steps[1] = (*C.ddt_step)(unsafe.Add(unsafe.Pointer(s.p), uintptr(s.np)*unsafe.Sizeof(*s.p)))
		nat.nsteps[0], nat.nsteps[1] = C.int32_t(s.np), C.int32_t(s.nu)
	}
}

// nativeSteps returns e's steps in C memory, copying them there the first
// time they exist (nil before, and for types without them). The memory
// is freed when e is collected: the C layer uses it only while the type
// is in its table or an operation pins e.
func nativeSteps(e *entry) *cSteps {
	if s := e.steps.Load(); s != nil {
		return s
	}
	p, u, ok := e.c.NativeSteps()
	if !ok || len(p) == 0 || len(u) == 0 || len(p)+len(u) > math.MaxInt32 {
		return nil
	}
	n := len(p) + len(u)
	mem := (*C.ddt_step)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.ddt_step{}))))
	if mem == nil {
		return nil
	}
	out := unsafe.Slice(mem, n)
	for i, x := range append(p, u...) {
		out[i] = C.ddt_step{fn: C.uintptr_t(x.Code), mem: C.int64_t(x.Mem), packed: C.int64_t(x.Packed),
			n: C.int64_t(x.N), b0: C.int64_t(x.B0)}
	}
	s := &cSteps{p: mem, np: len(p), nu: len(u)}
	if !e.steps.CompareAndSwap(nil, s) {
		C.free(unsafe.Pointer(mem))
		return e.steps.Load()
	}
	runtime.AddCleanup(e, func(m unsafe.Pointer) { C.free(m) }, unsafe.Pointer(mem))
	return s
}

// ddtgoPack packs count instances at src into dst, which holds room bytes,
// and returns the number of bytes written, or -1 if it did nothing (the
// C layer then leaves the call to the MPI library). When nat is not nil
// it receives the type's native code once that exists.
//
//export ddtgoPack
func ddtgoPack(pin C.int32_t, src unsafe.Pointer, count C.int64_t, dst unsafe.Pointer, room C.int64_t, nat *C.ddt_native) (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || room < 0 {
		return -1
	}
	img, origin, ok := image(e.t, src, int64(count))
	if !ok {
		return -1
	}
	k, err := e.c.Pack(unsafe.Slice((*byte)(dst), int64(room)), img, origin, int64(count))
	if err != nil {
		return -1
	}
	native(e, nat)
	return C.int64_t(k)
}

// ddtgoUnpack unpacks the first n bytes at src (at most the packed size of
// count instances) into count instances at dst and returns the number of
// bytes used, or -1 if it did nothing.
//
//export ddtgoUnpack
func ddtgoUnpack(pin C.int32_t, src unsafe.Pointer, n C.int64_t, dst unsafe.Pointer, count C.int64_t, nat *C.ddt_native) (used C.int64_t) {
	defer func() {
		if recover() != nil {
			used = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || n < 0 {
		return -1
	}
	img, origin, ok := image(e.t, dst, int64(count))
	if !ok {
		return -1
	}
	size, err := e.t.PackSize(int64(count))
	if err != nil {
		return -1
	}
	in := unsafe.Slice((*byte)(src), int64(n))
	if int64(n) >= size {
		k, err := e.c.Unpack(img, in, origin, int64(count))
		if err != nil {
			return -1
		}
		native(e, nat)
		return C.int64_t(k)
	}
	u, err := e.c.NewUnpacker(img, origin, int64(count))
	if err != nil {
		return -1
	}
	k, err := u.Unpack(in)
	if err != nil {
		return -1
	}
	return C.int64_t(k)
}

func codec(e *entry) *external32.Codec {
	if x := e.x.Load(); x != nil {
		return x
	}
	x := external32.New(e.c)
	e.x.Store(x)
	return x
}

// ddtgoExtSize is MPI_Pack_external_size, or -1.
//
//export ddtgoExtSize
func ddtgoExtSize(pin C.int32_t, count C.int64_t) (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil {
		return -1
	}
	k, err := codec(e).PackSize(int64(count))
	if err != nil {
		return -1
	}
	return C.int64_t(k)
}

// ddtgoExtPack is MPI_Pack_external of count instances into room bytes at
// dst; it returns the bytes written or -1.
//
//export ddtgoExtPack
func ddtgoExtPack(pin C.int32_t, src unsafe.Pointer, count C.int64_t, dst unsafe.Pointer, room C.int64_t) (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || room < 0 {
		return -1
	}
	img, origin, ok := image(e.t, src, int64(count))
	if !ok {
		return -1
	}
	k, err := codec(e).Pack(unsafe.Slice((*byte)(dst), int64(room)), img, origin, int64(count))
	if err != nil {
		return -1
	}
	return C.int64_t(k)
}

// ddtgoExtUnpack is MPI_Unpack_external of count instances from the n
// bytes at src; it returns the bytes read or -1.
//
//export ddtgoExtUnpack
func ddtgoExtUnpack(pin C.int32_t, src unsafe.Pointer, n C.int64_t, dst unsafe.Pointer, count C.int64_t) (used C.int64_t) {
	defer func() {
		if recover() != nil {
			used = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || n < 0 {
		return -1
	}
	img, origin, ok := image(e.t, dst, int64(count))
	if !ok {
		return -1
	}
	k, err := codec(e).Unpack(img, unsafe.Slice((*byte)(src), int64(n)), origin, int64(count))
	if err != nil {
		return -1
	}
	return C.int64_t(k)
}

// ddtgoPackRange packs bytes [from, from+n) of the packed stream of count
// instances at src into dst and returns n, or -1 (the pipeline's packets,
// pipe.c, start and end at any byte).
//
//export ddtgoPackRange
func ddtgoPackRange(pin C.int32_t, src unsafe.Pointer, count C.int64_t, from C.int64_t, dst unsafe.Pointer, n C.int64_t) (k C.int64_t) {
	defer func() {
		if recover() != nil {
			k = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || from < 0 || n < 0 {
		return -1
	}
	img, origin, ok := image(e.t, src, int64(count))
	if !ok {
		return -1
	}
	p, err := e.c.NewPacker(img, origin, int64(count))
	if err != nil || p.SetPos(int64(from)) != nil || int64(from)+int64(n) > p.Size() {
		return -1
	}
	w, err := p.Pack(unsafe.Slice((*byte)(dst), int64(n)))
	if err != nil || w != int(n) {
		return -1
	}
	return n
}

// ddtgoUnpackRange unpacks the n bytes at src as bytes [from, from+n) of
// the packed stream of count instances at dst and returns n, or -1.
//
//export ddtgoUnpackRange
func ddtgoUnpackRange(pin C.int32_t, src unsafe.Pointer, n C.int64_t, dst unsafe.Pointer, count C.int64_t, from C.int64_t) (k C.int64_t) {
	defer func() {
		if recover() != nil {
			k = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || count < 0 || from < 0 || n < 0 {
		return -1
	}
	img, origin, ok := image(e.t, dst, int64(count))
	if !ok {
		return -1
	}
	u, err := e.c.NewUnpacker(img, origin, int64(count))
	if err != nil || u.SetPos(int64(from)) != nil || int64(from)+int64(n) > u.Size() {
		return -1
	}
	r, err := u.Unpack(unsafe.Slice((*byte)(src), int64(n)))
	if err != nil || r != int(n) {
		return -1
	}
	return n
}
