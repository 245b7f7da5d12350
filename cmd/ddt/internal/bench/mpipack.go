package bench

import (
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// The eight layouts of ../shared/anchors/mpipack/mpipack.c, with the same
// sizes, fill pattern and hash, so that this engine joins that harness's
// table as one more build.

type mpKind int

const (
	kVec1 mpKind = iota
	kResized
	kFace3D
	kRCHIB
	kRCIdx
	kRCStruct
	kSub2D
	kSub3D
	kIrreg
	kStruct
	kVecBlk
)

type mpDef struct {
	id, desc, size string
	kind           mpKind
	a, b, c        int64
}

var mpCases = []mpDef{
	{"L1", "vector(n,1,24,dbl)", "S", kVec1, 256, 0, 0},
	{"L1", "vector(n,1,24,dbl)", "M", kVec1, 131072, 0, 0},
	{"L1", "vector(n,1,24,dbl)", "L", kVec1, 2097152, 0, 0},
	{"L2", "resized(dbl,0,192) x n", "S", kResized, 256, 0, 0},
	{"L2", "resized(dbl,0,192) x n", "M", kResized, 131072, 0, 0},
	{"L2", "resized(dbl,0,192) x n", "L", kResized, 2097152, 0, 0},
	{"L3", "3-D x-face hvector(vector)", "S", kFace3D, 32, 32, 32},
	{"L3", "3-D x-face hvector(vector)", "M", kFace3D, 362, 362, 362},
	{"L3", "3-D x-face hvector(vector)", "L", kFace3D, 32, 1448, 1448},
	{"L4a", "row+col hindexed_block", "S", kRCHIB, 256, 0, 0},
	{"L4a", "row+col hindexed_block", "M", kRCHIB, 131072, 0, 0},
	{"L4b", "row+col indexed", "S", kRCIdx, 256, 0, 0},
	{"L4b", "row+col indexed", "M", kRCIdx, 131072, 0, 0},
	{"L4c", "row+col struct(contig,vector)", "S", kRCStruct, 256, 0, 0},
	{"L4c", "row+col struct(contig,vector)", "M", kRCStruct, 131072, 0, 0},
	{"L5a", "subarray 2-D", "S", kSub2D, 64, 40, 12},
	{"L5a", "subarray 2-D", "M", kSub2D, 386, 362, 12},
	{"L5a", "subarray 2-D", "L", kSub2D, 1472, 1448, 12},
	{"L5a", "subarray 2-D", "X", kSub2D, 1024, 1000, 12},
	{"L5b", "subarray 3-D", "S", kSub3D, 32, 8, 4},
	{"L5b", "subarray 3-D", "M", kSub3D, 256, 51, 16},
	{"L5b", "subarray 3-D", "L", kSub3D, 256, 128, 64},
	{"L5b", "subarray 3-D", "X", kSub3D, 256, 64, 96},
	{"L6", "indexed 4096 rnd blocks x cnt", "S", kIrreg, 1, 0, 0},
	{"L6", "indexed 4096 rnd blocks x cnt", "M", kIrreg, 4, 0, 0},
	{"L6", "indexed 4096 rnd blocks x cnt", "L", kIrreg, 60, 0, 0},
	{"L7", "struct{i,d[3],c,f[2]} x n", "S", kStruct, 64, 0, 0},
	{"L7", "struct{i,d[3],c,f[2]} x n", "M", kStruct, 28340, 0, 0},
	{"L7", "struct{i,d[3],c,f[2]} x n", "L", kStruct, 453438, 0, 0},
	{"L8", "vector(n,16,32,dbl)", "S", kVecBlk, 16, 0, 0},
	{"L8", "vector(n,16,32,dbl)", "M", kVecBlk, 8192, 0, 0},
	{"L8", "vector(n,16,32,dbl)", "L", kVecBlk, 131072, 0, 0},
}

const (
	irrBlocks   = 4096
	irrSeed     = 0x5eed5eed12345
	sparseLimit = 1 << 30
	s7Size      = 48 // sizeof(struct{int; double[3]; char; float[2]})
	s7Packed    = 37
)

func splitmix64(s *uint64) uint64 {
	*s += 0x9E3779B97F4A7C15
	z := *s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// irregular layout L6: block lengths and displacements in doubles
var irrLen, irrDisp = func() ([]int64, []int64) {
	s := uint64(irrSeed)
	lens, disps := make([]int64, irrBlocks), make([]int64, irrBlocks)
	var pos int64
	for i := range irrBlocks {
		if i > 0 {
			pos += 1 + int64(splitmix64(&s)%16)
		}
		lens[i] = 1 + int64(splitmix64(&s)%16)
		disps[i] = pos
		pos += lens[i]
	}
	return lens, disps
}()

func irrExt() int64 { return irrDisp[irrBlocks-1] + irrLen[irrBlocks-1] }
func irrElems() (n int64) {
	for _, l := range irrLen {
		n += l
	}
	return n
}

// mpCase is a resolved layout.
type mpCase struct {
	mpDef
	alloc, packed int64
	count         int64
	sparse        bool
	param, ctor   string
	// rcBL and rcDisp are the argument lists of the L4 types, made once
	// (rcArgs) outside the timed create+commit cycles, as mpipack.c's
	// rc_args_init makes them.
	rcBL, rcDisp []int64
}

// rcArgs fills c.rcBL and c.rcDisp for the L4 layouts, once.
func (c *mpCase) rcArgs() {
	n := c.a
	switch {
	case c.rcDisp != nil:
	case c.kind == kRCHIB:
		c.rcDisp = make([]int64, 0, 2*n-1)
		for j := range n {
			c.rcDisp = append(c.rcDisp, j*4)
		}
		for k := int64(1); k < n; k++ {
			c.rcDisp = append(c.rcDisp, k*n*4)
		}
	case c.kind == kRCIdx:
		c.rcBL, c.rcDisp = make([]int64, n), make([]int64, n)
		c.rcBL[0] = n
		unit := int64(4) // create_hindexed: bytes
		if c.ctor == "indexed" {
			unit = 1
		}
		for k := range n {
			if k > 0 {
				c.rcBL[k] = 1
			}
			c.rcDisp[k] = k * n * unit
		}
	}
}

func resolve(d mpDef) mpCase {
	c := mpCase{mpDef: d, count: 1}
	n := d.a
	switch d.kind {
	case kVec1, kResized:
		c.alloc, c.packed = ((n-1)*24+1)*8, n*8
		if d.kind == kResized {
			c.count = n
		}
		c.param = fmt.Sprintf("n=%d", n)
	case kFace3D:
		c.alloc, c.packed = d.a*d.b*d.c*8, d.b*d.c*8
		c.param = fmt.Sprintf("%dx%dx%d", d.a, d.b, d.c)
	case kRCHIB, kRCIdx, kRCStruct:
		c.alloc, c.packed = n*n*4, (2*n-1)*4
		c.sparse = c.alloc > sparseLimit
		c.param = fmt.Sprintf("n=%d", n)
	case kSub2D:
		c.alloc, c.packed = d.a*d.a*8, d.b*d.b*8
		c.param = fmt.Sprintf("%d^2@%d in %d^2", d.b, d.c, d.a)
	case kSub3D:
		c.alloc, c.packed = d.a*d.a*d.a*8, d.b*d.b*d.b*8
		c.param = fmt.Sprintf("%d^3@%d in %d^3", d.b, d.c, d.a)
	case kIrreg:
		c.alloc, c.packed, c.count = n*irrExt()*8, n*irrElems()*8, n
		c.param = fmt.Sprintf("cnt=%d", n)
	case kStruct:
		c.alloc, c.packed, c.count = n*s7Size, n*s7Packed, n
		c.param = fmt.Sprintf("n=%d", n)
	case kVecBlk:
		c.alloc, c.packed = ((n-1)*32+16)*8, n*16*8
		c.param = fmt.Sprintf("n=%d", n)
	}
	c.ctor = map[mpKind]string{kVec1: "vector", kResized: "create_resized", kFace3D: "create_hvector of vector",
		kRCHIB: "create_hindexed_block", kRCIdx: "indexed", kRCStruct: "create_struct of contiguous,vector",
		kSub2D: "create_subarray", kSub3D: "create_subarray", kIrreg: "indexed",
		kStruct: "create_struct + create_resized", kVecBlk: "vector"}[d.kind]
	if d.kind == kRCIdx && (n-1)*n > 1<<31-1 {
		c.ctor = "create_hindexed"
	}
	return c
}

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err) // the layouts are fixed and valid
	}
	return t
}

// makeType builds the layout's datatype, as mpipack.c's make_type.
func (c *mpCase) makeType() *datatype.Type {
	dbl, in := datatype.Of(datatype.Double), datatype.Of(datatype.Int)
	n := c.a
	switch c.kind {
	case kVec1:
		return must(datatype.Vector(n, 1, 24, dbl))
	case kResized:
		return must(datatype.Resized(dbl, 0, 24*8))
	case kFace3D:
		return must(datatype.HVector(c.c, 1, c.a*c.b*8, must(datatype.Vector(c.b, 1, c.a, dbl))))
	case kRCHIB:
		c.rcArgs()
		return must(datatype.HIndexedBlock(1, c.rcDisp, in))
	case kRCIdx:
		c.rcArgs()
		if c.ctor == "indexed" {
			return must(datatype.Indexed(c.rcBL, c.rcDisp, in))
		}
		return must(datatype.HIndexed(c.rcBL, c.rcDisp, in))
	case kRCStruct:
		return must(datatype.Struct([]int64{1, 1}, []int64{0, n * 4},
			[]*datatype.Type{must(datatype.Contiguous(n, in)), must(datatype.Vector(n-1, 1, n, in))}))
	case kSub2D:
		return must(datatype.Subarray([]int64{c.a, c.a}, []int64{c.b, c.b}, []int64{c.c, c.c}, datatype.OrderC, dbl))
	case kSub3D:
		return must(datatype.Subarray([]int64{c.a, c.a, c.a}, []int64{c.b, c.b, c.b}, []int64{c.c, c.c, c.c}, datatype.OrderC, dbl))
	case kIrreg:
		return must(datatype.Indexed(irrLen, irrDisp, dbl))
	case kStruct:
		s := must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36},
			[]*datatype.Type{in, dbl, datatype.Of(datatype.Char), datatype.Of(datatype.Float)}))
		return must(datatype.Resized(s, 0, s7Size))
	case kVecBlk:
		return must(datatype.Vector(n, 16, 32, dbl))
	}
	panic("unknown layout")
}

var le = binary.LittleEndian

// manualPack is the hand-written Go loop of the layout (mpipack.c's man_pack).
func (c *mpCase) manualPack(s, d []byte) {
	n := c.a
	switch c.kind {
	case kVec1, kResized:
		for i := range n {
			le.PutUint64(d[8*i:], le.Uint64(s[192*i:]))
		}
	case kFace3D:
		nx, ny, nz := c.a, c.b, c.c
		q := d
		for z := range nz {
			sz := s[z*nx*ny*8:]
			for y := range ny {
				le.PutUint64(q, le.Uint64(sz[y*nx*8:]))
				q = q[8:]
			}
		}
	case kRCHIB, kRCIdx, kRCStruct:
		copy(d[:n*4], s)
		for k := int64(1); k < n; k++ {
			le.PutUint32(d[(n+k-1)*4:], le.Uint32(s[k*n*4:]))
		}
	case kSub2D:
		N, sub, st := c.a, c.b, c.c
		for r := range sub {
			copy(d[r*sub*8:(r+1)*sub*8], s[((st+r)*N+st)*8:])
		}
	case kSub3D:
		N, sub, st := c.a, c.b, c.c
		q := d
		for z := range sub {
			for y := range sub {
				copy(q[:sub*8], s[(((st+z)*N+st+y)*N+st)*8:])
				q = q[sub*8:]
			}
		}
	case kIrreg:
		q, ext := d, irrExt()*8
		for k := range n {
			b := s[k*ext:]
			for i, l := range irrLen {
				copy(q[:l*8], b[irrDisp[i]*8:])
				q = q[l*8:]
			}
		}
	case kStruct:
		for i := range n {
			p, q := s[i*s7Size:], d[i*s7Packed:]
			copy(q[0:4], p[0:4])
			copy(q[4:28], p[8:32])
			q[28] = p[32]
			copy(q[29:37], p[36:44])
		}
	case kVecBlk:
		for i := range n {
			copy(d[i*128:(i+1)*128], s[i*256:])
		}
	}
}

// manualUnpack is mpipack.c's man_unpack.
func (c *mpCase) manualUnpack(p, d []byte) {
	n := c.a
	switch c.kind {
	case kVec1, kResized:
		for i := range n {
			le.PutUint64(d[192*i:], le.Uint64(p[8*i:]))
		}
	case kFace3D:
		nx, ny, nz := c.a, c.b, c.c
		for z := range nz {
			dz := d[z*nx*ny*8:]
			for y := range ny {
				le.PutUint64(dz[y*nx*8:], le.Uint64(p))
				p = p[8:]
			}
		}
	case kRCHIB, kRCIdx, kRCStruct:
		copy(d[:n*4], p)
		for k := int64(1); k < n; k++ {
			le.PutUint32(d[k*n*4:], le.Uint32(p[(n+k-1)*4:]))
		}
	case kSub2D:
		N, sub, st := c.a, c.b, c.c
		for r := range sub {
			copy(d[((st+r)*N+st)*8:((st+r)*N+st+sub)*8], p[r*sub*8:])
		}
	case kSub3D:
		N, sub, st := c.a, c.b, c.c
		for z := range sub {
			for y := range sub {
				o := (((st+z)*N+st+y)*N + st) * 8
				copy(d[o:o+sub*8], p)
				p = p[sub*8:]
			}
		}
	case kIrreg:
		ext := irrExt() * 8
		for k := range n {
			b := d[k*ext:]
			for i, l := range irrLen {
				copy(b[irrDisp[i]*8:(irrDisp[i]+l)*8], p)
				p = p[l*8:]
			}
		}
	case kStruct:
		for i := range n {
			q, s := d[i*s7Size:], p[i*s7Packed:]
			copy(q[0:4], s[0:4])
			copy(q[8:32], s[4:28])
			q[32] = s[28]
			copy(q[36:44], s[29:37])
		}
	case kVecBlk:
		for i := range n {
			copy(d[i*256:i*256+128], p[i*128:])
		}
	}
}

// pat is mpipack.c's source pattern: byte o of a region is byte o&7 of pat(o>>3).
func pat(i uint64) uint64 {
	s := i*0xD1B54A32D192ED03 + 0x2545F4914F6CDD1D
	return splitmix64(&s)
}

func fillDense(b []byte) {
	nw := len(b) / 8
	for i := range nw {
		le.PutUint64(b[8*i:], pat(uint64(i)))
	}
	for o := nw * 8; o < len(b); o++ {
		b[o] = byte(pat(uint64(o>>3)) >> (8 * (o & 7)))
	}
}

func fillIntAt(b []byte, o int64) {
	var w [8]byte
	le.PutUint64(w[:], pat(uint64(o>>3)))
	copy(b[o:o+4], w[o&7:])
}

// Hash64 is mpipack.c's hash64 of a packed buffer.
func Hash64(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		h = (h ^ le.Uint64(b[i:])) * 0x100000001b3
		h ^= h >> 29
	}
	for ; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * 0x100000001b3
	}
	return h ^ uint64(len(b))
}

// stat is the median, min and max seconds per operation over the samples.
type stat struct {
	med, min, max float64
	iters         int
}

func runIters(fn func(), it int) float64 {
	t0 := time.Now()
	for range it {
		fn()
	}
	return time.Since(t0).Seconds()
}

func calibrate(fn func(), minSample float64) int {
	fn()
	fn()
	it := 1
	for {
		t := runIters(fn, it)
		if t >= minSample {
			return it
		}
		nit := int(float64(it)*(minSample*1.2/max(t, 1e-7))) + 1
		nit = max(nit, 2*it)
		nit = min(nit, 1000*it)
		it = nit
	}
}

// benchMulti times the ops in 3 interleaved blocks of samples, as
// mpipack.c's bench_multi does, and reports each op's median.
func benchMulti(fns []func(), reps int, minSample float64) []stat {
	its := make([]int, len(fns))
	for k, fn := range fns {
		its[k] = calibrate(fn, minSample)
	}
	samples := make([][]float64, len(fns))
	per := reps / 3
	for range 3 {
		for k, fn := range fns {
			fn()
			for range per {
				samples[k] = append(samples[k], runIters(fn, its[k])/float64(its[k]))
			}
		}
	}
	return summarize(samples, its)
}

func matches(id, filter string) bool {
	if filter == "" {
		return true
	}
	for _, p := range strings.Split(filter, ",") {
		if p != "" && strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// RunMPIPack runs the layouts of mpipack.c whose id starts with one of the
// comma-separated prefixes (all when empty) with the given engine (Auto
// when none) and writes mpipack.c's header and tab-separated R lines to w.
// Progress goes to stderr-like logw when it is not nil.
func RunMPIPack(w io.Writer, prefixes string, engine ...ddt.Engine) error {
	e := ddt.Auto
	if len(engine) > 0 {
		e = engine[0]
	}
	fmt.Fprintf(w, "#impl\tddt\n#version\tddt %s engine, %s, non-temporal pack from %d bytes (0: off)\n", e, runtime.Version(), ntMin())
	fmt.Fprintf(w, "#cols\tR impl id size desc param ctor packed memcpy_ns pack_ns unpack_ns commit_ns cycle_ns "+
		"hash check pack_min_ns pack_max_ns unpack_min_ns unpack_max_ns pack_iters ncommit\n")
	for _, d := range mpCases {
		if !matches(d.id, prefixes) {
			continue
		}
		if err := runMPCase(w, resolve(d), e); err != nil {
			return err
		}
	}
	return nil
}

func runMPCase(w io.Writer, c mpCase, e ddt.Engine) error {
	src, freeSrc, err := region(c.alloc, c.sparse)
	if err != nil {
		return err
	}
	defer freeSrc()
	if c.sparse {
		for j := range c.a {
			fillIntAt(src, j*4)
		}
		for k := int64(1); k < c.a; k++ {
			fillIntAt(src, k*c.a*4)
		}
	} else {
		fillDense(src)
	}
	// The driver's own buffers live outside the Go heap, as mpipack.c's
	// large mallocs live outside malloc's arena (glibc maps them): a heap
	// grown by them would set the collector's pace for the commit cycles
	// below, which then touched fresh pages instead of reusing freed ones.
	ref, freeRef, err := region(c.packed, false)
	if err != nil {
		return err
	}
	defer freeRef()
	c.manualPack(src, ref)
	t := c.makeType()
	ct, err := ddt.CommitWith(t, ddt.Options{Engine: e})
	if err != nil {
		return err
	}
	pk, freePk, err := region(c.packed, false)
	if err != nil {
		return err
	}
	defer freePk()
	dst, freeDst, err := region(c.alloc, c.sparse)
	if err != nil {
		return err
	}
	defer freeDst()
	var check []string
	if n, err := ct.Pack(pk, src, 0, c.count); err != nil || n != c.packed {
		return fmt.Errorf("%s %s: pack: %d, %v", c.id, c.size, n, err)
	}
	if i := firstDiff(pk, ref); i >= 0 {
		check = append(check, fmt.Sprintf("pack@%d", i))
	}
	if _, err := ct.Unpack(dst, pk, 0, c.count); err != nil {
		return fmt.Errorf("%s %s: unpack: %v", c.id, c.size, err)
	}
	if err := checkUnpacked(c, dst, ref, &check); err != nil {
		return err
	}
	h := Hash64(pk)
	chk := "ok"
	if len(check) > 0 {
		chk = strings.Join(check, ";")
	}
	ma, freeMa, err := region(c.packed, false)
	if err != nil {
		return err
	}
	defer freeMa()
	mb, freeMb, err := region(c.packed, false)
	if err != nil {
		return err
	}
	defer freeMb()
	fillDense(ma)
	st := benchMulti([]func(){
		func() { copy(mb, ma) },
		func() { ct.Pack(pk, src, 0, c.count) },
		func() { ct.Unpack(dst, pk, 0, c.count) },
	}, 12, 2.5e-3)
	// commit: median over create + commit cycles. Each stamp is one read
	// of the monotonic clock (time.Since of a time with a monotonic
	// reading), as mpipack.c's now() is one clock_gettime(CLOCK_MONOTONIC):
	// time.Now reads the wall clock as well, twice the cost (57 against
	// 28 ns a stamp on the anchors machine), which every cycle counted.
	var cm, cy []float64
	t0all := time.Now()
	for k := 0; k < 100; k++ {
		if k >= 9 && time.Since(t0all) > 5*time.Second {
			break
		}
		t0 := time.Since(t0all)
		tt := c.makeType()
		t1 := time.Since(t0all)
		if _, err := ddt.CommitWith(tt, ddt.Options{Engine: e}); err != nil {
			return err
		}
		t2 := time.Since(t0all)
		cm = append(cm, (t2 - t1).Seconds())
		cy = append(cy, (t2 - t0).Seconds())
	}
	slices.Sort(cm)
	slices.Sort(cy)
	fmt.Fprintf(w, "R\tddt\t%s\t%s\t%s\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%016x\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\n",
		c.id, c.size, c.desc, c.param, c.ctor, c.packed, st[0].med*1e9, st[1].med*1e9, st[2].med*1e9,
		cm[len(cm)/2]*1e9, cy[len(cy)/2]*1e9, h, chk, st[1].min*1e9, st[1].max*1e9, st[2].min*1e9, st[2].max*1e9,
		st[1].iters, len(cm))
	return nil
}

// checkUnpacked appends to check what differs after unpacking ref into
// dst: dst packed by hand, and dst itself against ref unpacked by hand.
// Its scratch buffers are unmapped when it returns.
func checkUnpacked(c mpCase, dst, ref []byte, check *[]string) error {
	tmp, freeTmp, err := region(c.packed, false)
	if err != nil {
		return err
	}
	defer freeTmp()
	c.manualPack(dst, tmp)
	if i := firstDiff(tmp, ref); i >= 0 {
		*check = append(*check, fmt.Sprintf("unpack@%d", i))
	}
	if !c.sparse {
		exp, freeExp, err := region(c.alloc, false)
		if err != nil {
			return err
		}
		defer freeExp()
		c.manualUnpack(ref, exp)
		if i := firstDiff(dst, exp); i >= 0 {
			*check = append(*check, fmt.Sprintf("unpackmem@%d", i))
		}
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
