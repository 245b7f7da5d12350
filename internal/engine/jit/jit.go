// Package jit compiles DAME programs to native amd64 or arm64 code at run
// time (seed 003's DAME-X): loop nests with the counts and strides of the
// type as constants, struct members as straight-line moves of their exact
// widths, 16-, 32- or 64-byte vector moves as the CPU allows (on arm64:
// NEON Q registers, 32 bytes as an LDP/STP pair; a64gen.go), loops
// unrolled by the size of their bodies. One plan (plan below) drives
// either generator (the emitter interface).
//
// The code lives in pages mapped read+write, filled, then made
// read+execute (never both writable and executable), and is called
// directly from Go as a func value (Entry) with Go's register ABI, whose
// argument registers are the ones the code reads (checked once by
// running six probe functions). Generated functions are leaves:
// they call nothing, use no stack, store no pointers, and move one bounded
// chunk of whole units (instances, or blocks of a strided root) per call,
// so goroutine preemption and the garbage collector are never held up for
// long. Partial units at the edges of a packed range go to the caller's
// fallback engine, so every byte offset stays resumable. The pages are
// unmapped when no Engine or Entry uses them any more; identical programs
// share them.
//
// The arm64 pages are made coherent with the instruction cache after
// the mprotect (exec_arm64.go). Only amd64 and arm64 Linux run generated
// code; elsewhere, with DDT_NOJIT=1 in the environment, or for programs
// the generator does not cover (loops nested too deeply, code over 1 MiB;
// on arm64 also index lists of varying block lengths longer than it
// unrolls and lists of more than 65,536 entries), the fallback engine does
// everything. amd64 code runs index lists of any length from tables
// (index.go) and reaches displacements beyond 32 bits through registers
// of their own (gen.rebase).
package jit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
	"weak"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/engine/host"
)

// Code is the native code of one program: for the nodes at the top of
// the program whose instances are small enough to move in one call, entries
// that move whole instances; for strided loops and displacement lists
// above them, entries that move whole blocks. The Go side walks the nodes
// above those (a large struct, say) and hands partial units to the
// fallback engine. Code is immutable and shared by the engines of
// identical programs.
type Code struct {
	mem    []byte // the mapped pages
	nodes  map[*dame.Node]*nodeCode
	root   *nodeCode
	order  []*dame.Node // the nodes with entries, in generation order
	shared *Code        // the Code owning mem when this one shares it

	size, ext, off int64 // of the program

	// whole holds the root's whole-message entries (pack, unpack: its
	// instance entries taking the instance's origin, not the program's)
	// and wholeMax the most instances one call of them moves (one piece;
	// 0 when the root has no such entry): the fast path of a whole
	// message.
	whole    [2]Entry
	wholeMax int64
	fast     host.Whole // the same for package ddt's fast path

	vec      int
	codeLen  int
	compiled time.Duration
	nt       bool // the pack code has non-temporal stores (generateNT)

	// steps (pack, unpack) are Steps' result, computed once
	stepsOnce sync.Once
	steps     [2][]host.Step
	stepsOK   bool
}

// nodeCode is what the code offers for one node: entries (pack, unpack)
// moving whole instances (inst) or whole blocks (blk), or nothing (walk:
// the Go side goes through its blocks).
type nodeCode struct {
	n      *dame.Node
	inst   [2]Entry // instances, n.Extent apart
	blk    [2]Entry // blocks: strided (table false) or listed (table true)
	table  bool
	index  bool  // blk moves blocks of an Index (see walker.index)
	sorted Entry // unpack of one whole instance in displacement order (nil: none)
	stride int64 // blocks, strided: memory stride
	bsize  int64 // blocks: packed bytes per block
	perI   int64 // instances per call
	perB   int64 // blocks per call
}

// Vec is the widest vector move the code uses (16, 32 or 64 bytes).
func (c *Code) Vec() int { return c.vec }

// Len is the number of bytes of code and tables.
func (c *Code) Len() int { return c.codeLen }

// CompileTime is how long generating and mapping the code took.
func (c *Code) CompileTime() time.Duration { return c.compiled }

// disabled is set by DDT_NOJIT=1.
var disabled = os.Getenv("DDT_NOJIT") == "1"

// Available reports whether this process runs generated code: amd64 or
// arm64 Linux, and DDT_NOJIT=1 not set.
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

// maxEntries bounds the list entries of a program the generator takes:
// their tables follow the code. amd64 code addresses them RIP-relative
// (2 GiB) and takes lists of up to 4 Mi entries (tables of up to 64 MiB,
// a copy of lists the program holds anyway); arm64 code reaches them with
// ADR (1 MiB, code included) and takes 65,536.
const (
	maxEntries      = 1 << 22
	maxEntriesARM64 = 1 << 16
)

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

// Units: a node whose instance packs at most unitMax bytes gets an
// instance entry; calls move chunkBytes of packed data (at least one unit),
// tens of microseconds at memory speed. Above the units the Go side walks
// at most maxWalkBlocks blocks per node.
const (
	chunkBytes    = 64 << 10
	unitMax       = 4 * chunkBytes
	maxWalkBlocks = 64
)

// program is the generated code of p before it is mapped: entry offsets
// per node.
type program struct {
	dry   bool    // only list the nodes (order), emit nothing
	e     emitter // the generator of the architecture
	g     *gen    // e, for amd64 (nil for arm64)
	nodes map[*dame.Node]*progNode
	order []*dame.Node // in the order of the listing
	// off is the program's offset (dame.Program.Off) and whole the
	// offsets of the root's whole-message entries (pack, unpack; -1 for
	// none): its instance entries behind a prologue adding off to RDI,
	// so that callers pass the instance's origin.
	off   int64
	whole [2]int
}

type progNode struct {
	inst, blk [2]int // offsets, -1 for none
	table     bool
	index     bool // blk moves blocks of an Index (indexEntry)
	sorted    int  // offset of the sorted unpack of one instance (sortedEntry), -1 for none
	stride    int64
	bsize     int64
}

// generate emits the entries of p at vector width vec for this machine's
// architecture (amd64 code on any but arm64).
func generate(p *dame.Program, vec int, log bool) (*program, error) {
	return generateArch(hostArch, p, vec, log)
}

// generateArch emits the entries of p at vector width vec for arch a.
func generateArch(a arch, p *dame.Program, vec int, log bool) (*program, error) {
	return generateArchNT(a, p, vec, log, false)
}

// generateArchNT is generateArch; with nt (amd64) the pack code stores
// the middle of long blocks with non-temporal stores (gen.blockNT).
func generateArchNT(a arch, p *dame.Program, vec int, log, nt bool) (*program, error) {
	root := p.Root
	if root == nil {
		return nil, fmt.Errorf("%w: type has no data", ErrUnsupported)
	}
	if root.Op == dame.ContigFinal && root.Extent == root.Size {
		return nil, fmt.Errorf("%w: contiguous type (a plain copy)", ErrUnsupported)
	}
	total, limit := 0, maxEntries
	if a == archARM64 {
		limit = maxEntriesARM64
	}
	entries(root, map[*dame.Node]bool{}, &total)
	if total > limit {
		return nil, fmt.Errorf("%w: more than %d list entries", ErrUnsupported, limit)
	}
	pr := &program{nodes: map[*dame.Node]*progNode{}, off: p.Off, whole: [2]int{-1, -1}}
	if a == archARM64 {
		pr.e = newA64gen(min(vec, 32), log)
	} else {
		g := &gen{vec: vec, pvec: vec, vex: vec >= 32, vbmi: vec == 64 && hostVBMI(), nt: nt, pfw: hostPrefW(), erms: hostERMS()}
		g.a.log = log
		pr.e, pr.g = g, g
	}
	pr.plan(root, true)
	if err := pr.e.failed(); err != nil {
		return nil, err
	}
	if err := pr.e.finish(); err != nil {
		return nil, err
	}
	return pr, nil
}

// arch is an instruction set the generator emits.
type arch uint8

const (
	archAMD64 arch = iota
	archARM64
)

var archNames = [...]string{"amd64", "arm64"}

func (a arch) String() string { return archNames[a] }

// hostArch is the architecture of this build's code: arm64 on arm64,
// amd64 elsewhere (whose code only amd64 runs).
var hostArch = func() arch {
	if runtime.GOARCH == "arm64" {
		return archARM64
	}
	return archAMD64
}()

// emitter is a generator of one architecture, as plan drives it: entries
// moving units of a node (instances or strided blocks) or listed blocks,
// the whole-message prologue, then finish (constant tables placed after
// the code, their references patched).
type emitter interface {
	pc() int
	failed() error
	fail(format string, a ...any)
	setPack(pack bool)
	// entry emits a function moving the count register's units of c,
	// stride bytes apart; tableEntry one moving whole blocks of the
	// BlockIndex n from a first block on. They return their offsets.
	entry(c *dame.Node, stride int64) int
	tableEntry(n *dame.Node) int
	// indexEntry emits one moving whole blocks of the Index n from a
	// first block on (the blocks' packed offsets vary: the caller finds
	// them).
	indexEntry(n *dame.Node) int
	// addOff adds off (32 bits) to the memory register: the prologue of
	// a whole-message entry, falling through into the instance entry.
	addOff(off int64)
	finish() error
	code() []byte
	lines() []line
	tableLens() []int
}

// plan emits the entries of n: instance entries if its instances are
// small units, block entries for strided loops and displacement lists of
// small blocks, and otherwise the entries of its children (the Go side
// then walks n's blocks).
func (pr *program) plan(n *dame.Node, top bool) {
	g := pr.e
	if pr.nodes[n] != nil || g.failed() != nil || (n.Op == dame.ContigFinal && !top) {
		return
	}
	if n.Op == dame.ContigFinal && n.Size > unitMax {
		g.fail("blocks of %d bytes (plain copies)", n.Size)
		return
	}
	pn := &progNode{inst: [2]int{-1, -1}, blk: [2]int{-1, -1}, sorted: -1}
	pr.nodes[n] = pn
	pr.order = append(pr.order, n)
	if n.Size <= unitMax {
		for d := range 2 {
			g.setPack(d == 0)
			if pr.dry {
				continue
			}
			// the whole-message entry of the root: the instance entry
			// itself, or a prologue moving RDI from the instance's
			// origin to the program's, falling through into it (none for
			// an offset beyond 32 bits)
			if top && pr.off == int64(int32(pr.off)) {
				pr.whole[d] = g.pc()
				if pr.off != 0 {
					g.addOff(pr.off)
				}
			}
			pn.inst[d] = g.entry(n, n.Extent)
		}
		return
	}
	switch {
	case (n.Op == dame.Vector && n.Blocklen == 1) || n.Op == dame.Contig:
		c, stride := n.Child, n.Stride
		if n.Op == dame.Contig {
			stride = c.Extent
		}
		if c.Size <= unitMax {
			pn.stride, pn.bsize = stride, c.Size
			for d := range 2 {
				g.setPack(d == 0)
				if !pr.dry {
					if h, ok := g.(interface{ blockUnits(int64) }); ok {
						h.blockUnits(n.Count) // amd64: prefetchDist
					}
					pn.blk[d] = g.entry(c, stride)
				}
			}
			return
		}
		pr.plan(c, false)
		return
	case n.Op == dame.Index && n.NumBlocks() > maxWalkBlocks && indexUnits(n):
		pn.index = true
		for d := range 2 {
			g.setPack(d == 0)
			if !pr.dry {
				pn.blk[d] = g.indexEntry(n)
			}
		}
		return
	case n.Op == dame.BlockIndex && n.Blocklen*n.Child.Size <= unitMax:
		pn.table, pn.bsize = true, n.Blocklen*n.Child.Size
		for d := range 2 {
			g.setPack(d == 0)
			if !pr.dry {
				pn.blk[d] = g.tableEntry(n)
			}
		}
		// whole instances unpack in displacement order where the sort
		// rule fires (amd64: gen.sortedList)
		if pr.g != nil && !pr.dry {
			if st := sortRule.UnpackOrder(n); st != nil {
				pr.g.setPack(false)
				pn.sorted = pr.g.sortedEntry(n, st)
			}
		}
		return
	}
	if n.NumBlocks() > maxWalkBlocks {
		g.fail("%s of %d blocks above %d-byte units", n.Op, n.NumBlocks(), unitMax)
		return
	}
	for i := range n.NumBlocks() {
		pr.plan(n.ChildOf(int(i)), false)
	}
}

// indexUnits reports whether every block of the Index n packs at most
// unitMax bytes (one call of its block entry moves whole blocks).
func indexUnits(n *dame.Node) bool {
	for _, b := range n.Blocklens {
		if b > unitMax/n.Child.Size {
			return false
		}
	}
	return true
}

// cache shares the code of identical programs: the generated bytes (code
// and tables) name it, by their hash, compared in full on a hit.
var cache struct {
	sync.Mutex
	m map[uint64][]weak.Pointer[Code]
}

var cacheSeed = maphash.MakeSeed()

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

// errABI is Compile's error when abiOK fails.
var errABI = fmt.Errorf("%w: this Go passes arguments in other registers than the generated code reads", ErrUnsupported)

func compileVec(p *dame.Program, vec int) (*Code, error) { return compileVecNT(p, vec, false) }

// compileVecNT is compileVec; with nt the pack code uses non-temporal
// stores for long blocks (Code.nt says whether it has any).
func compileVecNT(p *dame.Program, vec int, nt bool) (*Code, error) {
	if !abiOK() {
		return nil, errABI
	}
	t0 := time.Now()
	pr, err := generateArchNT(hostArch, p, vec, false, nt)
	if err != nil {
		return nil, err
	}
	code := pr.e.code()
	if len(code) == 0 {
		// no unit to generate: every block is longer than unitMax bytes
		// (a struct of a few long runs), which the fallback moves as well
		return nil, fmt.Errorf("%w: no code to generate (every block is a run of more than %d bytes)", ErrUnsupported, unitMax)
	}
	h := maphash.Bytes(cacheSeed, code)
	cache.Lock()
	defer cache.Unlock()
	for _, w := range cache.m[h] {
		c := w.Value()
		if c == nil || !bytes.Equal(c.mem[:c.codeLen], code) || c.size != p.Size || c.ext != p.Extent ||
			c.off != p.Off || !dame.Equal(c.root.n, p.Root) {
			continue
		}
		// the same program: the same entries at the same offsets
		if nc := c.rebind(p); nc != nil {
			return nc, nil
		}
	}
	m, err := mapCode(code)
	if err != nil {
		return nil, err
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	c := &Code{mem: m, size: p.Size, ext: p.Extent, off: p.Off, vec: vec, codeLen: len(code), nt: pr.g != nil && pr.g.ntUsed,
		nodes: make(map[*dame.Node]*nodeCode, len(pr.nodes))}
	for n, pn := range pr.nodes {
		nc := &nodeCode{n: n, table: pn.table, index: pn.index, stride: pn.stride, bsize: pn.bsize}
		for d := range 2 {
			if pn.inst[d] >= 0 {
				nc.inst[d] = makeEntry(base+uintptr(pn.inst[d]), c)
			}
			if pn.blk[d] >= 0 {
				nc.blk[d] = makeEntry(base+uintptr(pn.blk[d]), c)
			}
		}
		if pn.sorted >= 0 {
			nc.sorted = makeEntry(base+uintptr(pn.sorted), c)
		}
		if nc.inst[0] != nil {
			nc.perI = max(1, chunkBytes/n.Size)
			if farUnits && farElement(n, n.Extent) {
				// calls long enough for the far rule at run time
				nc.perI = max(nc.perI, farUnitsMin(n.Extent))
			}
		}
		if nc.blk[0] != nil && !nc.index {
			nc.perB = max(1, chunkBytes/nc.bsize)
		}
		c.nodes[n] = nc
	}
	for d := range 2 {
		if pr.whole[d] >= 0 {
			c.whole[d] = makeEntry(base+uintptr(pr.whole[d]), c)
		}
	}
	c.root = c.nodes[p.Root]
	c.order = pr.order
	c.setWhole()
	if cache.m == nil {
		cache.m = map[uint64][]weak.Pointer[Code]{}
	}
	w := weak.Make(c)
	live := cache.m[h][:0]
	for _, x := range cache.m[h] {
		if x.Value() != nil {
			live = append(live, x)
		}
	}
	cache.m[h] = append(live, w)
	runtime.AddCleanup(c, func(m []byte) {
		unmapCode(m)
		cache.Lock()
		ws := cache.m[h]
		for i, x := range ws {
			if x == w {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(ws) == 0 {
			delete(cache.m, h)
		} else {
			cache.m[h] = ws
		}
		cache.Unlock()
	}, m)
	c.compiled = time.Since(t0)
	return c, nil
}

// rebind returns a Code sharing c's pages for the program p, whose nodes
// are other pointers with the same layout: entries are matched by the
// order in which generation visited the nodes.
func (c *Code) rebind(p *dame.Program) *Code {
	pr := &program{e: &gen{}, nodes: map[*dame.Node]*progNode{}, dry: true}
	pr.plan(p.Root, true)
	order := pr.order
	if len(order) != len(c.order) {
		return nil
	}
	nc := &Code{mem: c.mem, size: c.size, ext: c.ext, off: c.off, vec: c.vec, codeLen: c.codeLen, nt: c.nt,
		compiled: c.compiled, order: order, nodes: make(map[*dame.Node]*nodeCode, len(order)), shared: c,
		whole: c.whole}
	for i, n := range order {
		x := *c.nodes[c.order[i]]
		x.n = n
		nc.nodes[n] = &x
	}
	nc.root = nc.nodes[p.Root]
	nc.setWhole()
	return nc
}

// setWhole fills wholeMax and fast from the root's entries.
func (c *Code) setWhole() {
	if r := c.root; r != nil && r.inst[0] != nil && c.whole[0] != nil {
		c.wholeMax = r.perI
		c.fast = host.Whole{Entry: c.whole, Max: r.perI, Size: c.size}
	}
}

// Measure generates and maps the code of p without the cache, unmaps it,
// and reports how long that took and the bytes of code and tables: the
// compile time of p.
func Measure(p *dame.Program) (time.Duration, int, error) {
	if !Available() {
		return 0, 0, fmt.Errorf("%w: code generation unavailable", ErrUnsupported)
	}
	if !abiOK() {
		return 0, 0, errABI
	}
	t0 := time.Now()
	pr, err := generate(p, defaultVec, false)
	if err != nil {
		return 0, 0, err
	}
	m, err := mapCode(pr.e.code())
	if err != nil {
		return 0, 0, err
	}
	d := time.Since(t0)
	unmapCode(m)
	return d, len(pr.e.code()), nil
}

// Listing returns the generated code of p as text (offsets, bytes and
// instructions: Intel syntax for amd64, GNU syntax for arm64) for this
// machine's architecture at its vector width, whether or not this
// machine could run it.
func Listing(p *dame.Program) (string, error) { return listingVec(p, defaultVec) }

// ListingFor is Listing for the architecture goarch ("amd64" or
// "arm64") at its widest vector moves (64 bytes for amd64, as with
// AVX-512; 32, LDP/STP of Q registers, for arm64).
func ListingFor(goarch string, p *dame.Program) (string, error) {
	switch goarch {
	case "amd64":
		return listingArch(archAMD64, p, 64)
	case "arm64":
		return listingArch(archARM64, p, 32)
	}
	return "", fmt.Errorf("jit: no generator for %q (want amd64 or arm64)", goarch)
}

func listingVec(p *dame.Program, vec int) (string, error) { return listingArch(hostArch, p, vec) }

func listingArch(a arch, p *dame.Program, vec int) (string, error) {
	pr, err := generateArch(a, p, vec, true)
	if err != nil {
		return "", err
	}
	code := pr.e.code()
	var b strings.Builder
	if a == archARM64 {
		vec = min(vec, 32)
		fmt.Fprintf(&b, "; arm64: %d bytes of code and tables, %d-byte vector moves\n", len(code), vec)
	} else {
		fmt.Fprintf(&b, "; %d bytes of code and tables, %d-byte vector moves\n", len(code), vec)
	}
	names := map[int]string{}
	for d, dir := range [...]string{"pack", "unpack"} {
		if pr.whole[d] >= 0 && pr.off != 0 {
			names[pr.whole[d]] = fmt.Sprintf("%s whole messages (instance origin + %d, then the instance entry)", dir, pr.off)
		}
	}
	for k, n := range pr.order {
		pn := pr.nodes[n]
		what := fmt.Sprintf("node %d (%s, %d packed bytes)", k, n.Name(), n.Size)
		for d, dir := range [...]string{"pack", "unpack"} {
			if pn.inst[d] >= 0 {
				names[pn.inst[d]] = fmt.Sprintf("%s instances of %s", dir, what)
			}
			if pn.blk[d] >= 0 {
				names[pn.blk[d]] = fmt.Sprintf("%s blocks of %s", dir, what)
			}
		}
		if pn.sorted >= 0 {
			names[pn.sorted] = fmt.Sprintf("unpack one instance of %s in displacement order", what)
		}
	}
	for _, l := range pr.e.lines() {
		if n, ok := names[l.off]; ok {
			fmt.Fprintf(&b, "%s:\n", n)
			delete(names, l.off)
		}
		if a == archARM64 {
			// the instruction word, as disassemblers show it
			fmt.Fprintf(&b, "%6x  %08x  %s\n", l.off, binary.LittleEndian.Uint32(code[l.off:]), l.text)
		} else {
			fmt.Fprintf(&b, "%6x  %-30x  %s\n", l.off, code[l.off:l.off+l.n], l.text)
		}
	}
	for i, n := range pr.e.tableLens() {
		fmt.Fprintf(&b, "table %d: %d bytes\n", i, n)
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

// run moves the packed bytes [from, from+len(buf)) of count instances
// between buf and the memory image mem (instance 0's origin at byte
// origin): memory to buf when pack is set.
func (c *Code) run(pack bool, fb Fallback, buf, mem []byte, origin, count, from int64) {
	d := 0
	if !pack {
		d = 1
	}
	r := c.root
	if from == 0 && int64(len(buf)) == count*c.size && r.inst[0] != nil && count <= r.perI {
		// the common call: a whole message of at most one chunk
		c.call(r.inst[d], mem, origin+c.off, buf, count, 0)
		return
	}
	c.walk(d, fb, buf, mem, origin, count, from)
}

// walk is run's general case.
//
//go:noinline
func (c *Code) walk(d int, fb Fallback, buf, mem []byte, origin, count, from int64) {
	w := walker{c: c, d: d, fb: fb, buf: buf, mem: mem, origin: origin, count: count, from: from}
	w.many(c.root.n, origin+c.off, 0, count, c.ext, from, from+int64(len(buf)))
}

// walker moves a range of the packed stream (absolute offsets lo, hi
// below) by units of generated code, walking the nodes above the units
// and leaving partial units to the fallback.
type walker struct {
	c                   *Code
	d                   int // 0 pack, 1 unpack
	fb                  Fallback
	buf, mem            []byte
	origin, count, from int64
	// rec, when set, receives the walk's steps instead of running them
	// (Code.Steps: buf and mem are nil, origin and from 0, count 1), in
	// calls not cut into chunks; bad records that some bytes would have
	// gone to the fallback.
	rec *[]host.Step
	bad bool
}

// record appends s to the recorded steps, or marks the walk bad beyond
// maxSteps (the walk then stops).
func (w *walker) record(s host.Step) {
	if len(*w.rec) >= maxSteps {
		w.bad = true
		return
	}
	*w.rec = append(*w.rec, s)
}

// maxSteps bounds the steps of Code.Steps: more, and the Go side walks.
const maxSteps = 1024

// Steps returns the steps that move one whole instance of the code's type
// without the Go side, for pack and unpack, when that instance is larger
// than a unit (the root has no instance entry, so each instance is at
// least unitMax bytes and the steps' per-instance cost is small beside
// its copy): calls of the entries in the
// order the walk makes them, with no chunking (the walk cuts calls into
// chunks so that Go can preempt between them; the interposition library's
// C layer, which runs these steps, has no such need), and plain copies
// where the walk copies. ok is false when part of the instance would move
// on the fallback engine or the steps are more than maxSteps. Computed
// once per Code.
func (c *Code) Steps() (pack, unpack []host.Step, ok bool) {
	c.stepsOnce.Do(func() {
		if c.root == nil || c.root.inst[0] != nil {
			// the root's instances are units: count of them move by
			// calls of its instance entry, not by steps repeated per
			// instance (L2: 2,097,152 doubles 192 bytes apart)
			return
		}
		for d := range 2 {
			var rec []host.Step
			w := walker{c: c, d: d, count: 1, rec: &rec}
			w.many(c.root.n, c.off, 0, 1, c.ext, 0, c.size)
			if w.bad || len(rec) == 0 {
				return
			}
			c.steps[d] = rec
		}
		c.stepsOK = true
	})
	if !c.stepsOK {
		return nil, nil, false
	}
	return c.steps[0], c.steps[1], true
}

// per is how many units one call moves: chunk, or all of them when
// recording (1<<62: more than any count, and a first unit plus it does
// not overflow).
func (w *walker) per(chunk int64) int64 {
	if w.rec != nil {
		return 1 << 62
	}
	return chunk
}

// call runs fn on n units (c.call), the memory at byte off of w.mem, the
// packed bytes at byte pk of w.buf, or records the step.
func (w *walker) call(fn Entry, off, pk, n, b0 int64) {
	if w.rec != nil {
		w.record(host.Step{Fn: fn, Mem: off, Packed: pk, N: n, B0: b0})
		return
	}
	w.c.call(fn, w.mem, off, w.buf[pk:], n, b0)
}

// moveAt copies the n bytes at byte off of w.mem and byte pk of w.buf
// (move), or records the step.
func (w *walker) moveAt(off, pk, n int64) {
	if w.rec != nil {
		w.record(host.Step{Mem: off, Packed: pk, N: n})
		return
	}
	w.move(w.mem[off:off+n], w.buf[pk:pk+n])
}

// many moves [lo, hi) of cnt instances of n, instance k's memory at byte
// mo+k*ext of mem and its packed bytes from pb+k*n.Size.
func (w *walker) many(n *dame.Node, mo, pb, cnt, ext, lo, hi int64) {
	S := n.Size
	if n.Op == dame.ContigFinal && (ext == S || cnt == 1) && lo < hi {
		// leaf instances end to end (the blocks of a list of elements):
		// one run of bytes, not a copy per element
		e := min(hi, pb+cnt*S)
		w.moveAt(mo+lo-pb, lo-w.from, e-lo)
		return
	}
	k := (lo - pb) / S
	nc := w.c.nodes[n]
	for lo < hi && k < cnt && !w.bad {
		ib := pb + k*S
		if nc != nil && nc.inst[0] != nil && lo == ib && hi >= ib+S {
			m := min((hi-ib)/S, cnt-k)
			per := w.per(nc.perI)
			for j := int64(0); j < m; j += per {
				q := min(per, m-j)
				w.call(nc.inst[w.d], mo+(k+j)*ext, ib+j*S-w.from, q, 0)
			}
			k += m
			lo = pb + k*S
			continue
		}
		e := min(hi, ib+S)
		w.one(n, nc, mo+k*ext, ib, lo, e)
		lo = e
		k++
	}
}

// move copies between the memory bytes m and the packed bytes b of one
// run, in the walker's direction (w.d 0: pack, m into b).
func (w *walker) move(m, b []byte) {
	if w.d == 0 {
		copy(b, m)
	} else {
		copy(m, b)
	}
}

// one moves [lo, hi) of the instance of n at memory mo, packed from pb.
func (w *walker) one(n *dame.Node, nc *nodeCode, mo, pb, lo, hi int64) {
	switch {
	case n.Op == dame.ContigFinal:
		w.moveAt(mo+lo-pb, lo-w.from, hi-lo)
		return
	case nc == nil || nc.inst[0] != nil:
		w.fallback(lo, hi)
		return
	}
	if nc.index {
		w.index(n, nc, mo, pb, lo, hi)
		return
	}
	if w.d == 1 && nc.sorted != nil && lo == pb && hi == pb+n.Size {
		// a whole list, unpacked in displacement order in one call
		w.call(nc.sorted, mo, pb-w.from, 1, 0)
		return
	}
	if nc.blk[0] != nil {
		B := nc.bsize
		b0, b1 := (lo-pb+B-1)/B, (hi-pb)/B
		if b0 < b1 {
			if lo < pb+b0*B {
				w.block(n, b0-1, mo, pb, lo, pb+b0*B)
			}
			per := w.per(nc.perB)
			for b := b0; b < b1; b += per {
				q := min(per, b1-b)
				if nc.table {
					w.call(nc.blk[w.d], mo, pb+b*B-w.from, q, b)
				} else {
					w.call(nc.blk[w.d], mo+b*nc.stride, pb+b*B-w.from, q, 0)
				}
			}
			if pb+b1*B < hi {
				w.block(n, b1, mo, pb, pb+b1*B, hi)
			}
			return
		}
	}
	i, off := n.FindBlockOffset(lo - pb)
	for nb := n.NumBlocks(); i < nb && lo < hi && !w.bad; i++ {
		e := min(hi, pb+off+n.BlockLen(int(i))*n.ChildOf(int(i)).Size)
		if e > lo {
			w.block(n, i, mo, pb, lo, e)
			lo = e
		}
		off += n.BlockLen(int(i)) * n.ChildOf(int(i)).Size
	}
}

// index moves [lo, hi) of the instance of the Index n at memory mo, packed
// from pb: whole blocks by calls of the block entry, about chunkBytes of
// packed data per call (the blocks found by the node's cached packed
// offsets, not one by one), partial blocks at the edges by block.
func (w *walker) index(n *dame.Node, nc *nodeCode, mo, pb, lo, hi int64) {
	S := n.Child.Size
	i, off := n.FindBlockOffset(lo - pb)
	nb := n.NumBlocks()
	if pb+off < lo { // lo inside block i
		e := min(hi, pb+off+n.Blocklens[i]*S)
		w.block(n, i, mo, pb, lo, e)
		lo, off, i = e, off+n.Blocklens[i]*S, i+1
	}
	for i < nb && lo < hi && !w.bad {
		// blocks [i, j) end by limit; block j holds byte limit
		limit := hi - pb // recording: every block in one call
		if w.rec == nil {
			limit = min(hi, lo+chunkBytes) - pb
		}
		j, end := nb, n.Size
		if limit < n.Size {
			j, end = n.FindBlockOffset(limit)
		}
		if j == i { // block i ends past limit
			if end = off + n.Blocklens[i]*S; pb+end > hi {
				w.block(n, i, mo, pb, lo, hi) // the last, partial
				return
			}
			j = i + 1 // one block longer than a chunk (at most unitMax)
		}
		w.call(nc.blk[w.d], mo, pb+off-w.from, j-i, i)
		lo, off, i = pb+end, end, j
	}
}

// block moves [lo, hi) of block i of the instance of n at memory mo,
// packed from pb.
func (w *walker) block(n *dame.Node, i, mo, pb, lo, hi int64) {
	c := n.ChildOf(int(i))
	w.many(c, mo+n.BlockDisp(i), pb+n.BlockOffset(i), n.BlockLen(int(i)), c.Extent, lo, hi)
}

// fallback moves the packed bytes [lo, hi) of the message with the
// fallback engine.
func (w *walker) fallback(lo, hi int64) {
	if lo >= hi {
		return
	}
	if w.rec != nil {
		w.bad = true
		return
	}
	if w.d == 0 {
		w.fb.Pack(w.buf[lo-w.from:hi-w.from], w.mem, w.origin, w.count, lo)
	} else {
		w.fb.Unpack(w.mem, w.buf[lo-w.from:hi-w.from], w.origin, w.count, lo)
	}
}

// call runs fn on n units, the first one's origin at byte off of mem
// (which may lie outside mem; the code touches only bytes inside it), its
// packed bytes at the start of pk; b0 is the first block of a listed
// block entry.
func (c *Code) call(fn Entry, mem []byte, off int64, pk []byte, n, b0 int64) {
	m, p := unsafe.SliceData(mem), unsafe.SliceData(pk)
	fn(0, 0, int(n), uintptr(unsafe.Pointer(m))+uintptr(off), uintptr(unsafe.Pointer(p)), int(b0))
	runtime.KeepAlive(m)
	runtime.KeepAlive(p)
	runtime.KeepAlive(c)
	runtime.KeepAlive(c.shared)
}
