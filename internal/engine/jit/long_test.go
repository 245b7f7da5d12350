package jit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestLongBlocks checks the two copies of long blocks: stores aligned to
// lines in pack (blocks of alignBlockMin bytes and more) and REP MOVSB
// (repBlockMin and more, where the CPU has ERMS), against the reference
// engine with guard pages, at lengths around both thresholds, at every
// alignment of memory and packed offsets, in loops, lists and structs,
// in nests deep enough that the pool has no three free registers for
// REP MOVSB's saves, and with a memory base that is RDI and one that is
// a pool register. It also checks that each copy is in the code where it
// should be.
func TestLongBlocks(t *testing.T) {
	if !supported {
		t.Skip("no code generation on this platform")
	}
	// the aligned loop of Intel's cores on every host (alignMinDefault)
	defer func(a int64) { alignBlockMin = a }(alignBlockMin)
	alignBlockMin = 512
	by := datatype.Of(datatype.Char)
	must := typeMust(t)
	r := rand.New(rand.NewPCG(3, 4))
	deepest := 0 // the longest name compiled: "deep7" beats "deep6" and the rest
	lens := []int64{383, 384, 511, 512, 513, 777, 1000, 2896, 4095, 4096, 4097, 5003, 9001, 70001}
	for _, L := range lens {
		blk := must(datatype.Contiguous(L, by))
		types := map[string]*datatype.Type{
			// rows at every alignment: the stride is not a multiple of 64
			"vector": must(datatype.HVector(5, 1, L+37, blk)),
			// a list of blocks at random displacements (a table)
			"list": must(datatype.HIndexed([]int64{1, 1, 1, 1}, []int64{3, 2*L + 100, L + 51, 4*L + 7}, blk)),
			// two long blocks and a short one in a struct
			"struct": must(datatype.Struct([]int64{1, 1, 3}, []int64{1, L + 9, 2*L + 64}, []*datatype.Type{blk, blk, by})),
			// a nest: the block's base is a pool register
			"nest": must(datatype.HVector(3, 1, 3*L+200, must(datatype.HVector(2, 1, L+5, blk)))),
		}
		// nests up to deeper than the pool leaves room for REP MOVSB's
		// saves (and deeper than the generator takes)
		deep := blk
		for d := range 8 {
			deep = must(datatype.HVector(2, 1, int64(d+2)*(L+64)*2, deep))
			if d >= 4 {
				types[fmt.Sprintf("deep%d", d+1)] = deep
			}
		}
		for name, ty := range types {
			p := opt.Compile(ty)
			for _, vec := range vecs() {
				c, err := compileVec(p, vec)
				if errors.Is(err, ErrUnsupported) && strings.HasPrefix(name, "deep") {
					continue
				}
				if err != nil {
					t.Fatalf("%s L=%d vec %d: %v", name, L, vec, err)
				}
				deepest = max(deepest, len(name))
				for _, count := range []int64{1, 3} {
					size, _ := ty.PackSize(count)
					check(t, r, ty, p, c, count, cutsFor(size, r))
				}
			}
		}
	}
	if deepest < len("deep7") {
		t.Errorf("no nest of 7 loops compiled")
	}
	if runtime.GOARCH != "amd64" {
		return
	}
	// where each copy is: REP MOVSB for blocks of repBlockMin bytes and
	// more (pack and unpack) where the CPU has ERMS, each after an AND
	// that aligns its destination to a line (repAlign), the aligned loop
	// (its AND of the packed address with 63) for pack below that from
	// alignBlockMin on
	lines := func(L int64, vec int, op, operand string) int { // lines of op ending in operand
		t.Helper()
		ty := must(datatype.HVector(5, 1, L+37, must(datatype.Contiguous(L, by))))
		pr, err := generateArch(archAMD64, opt.Compile(ty), vec, true)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, l := range pr.g.a.txt {
			if strings.HasPrefix(l.text, op) && strings.HasSuffix(l.text, operand) {
				n++
			}
		}
		return n
	}
	for _, vec := range []int{32, 64} {
		for _, L := range []int64{alignBlockMin - 1, alignBlockMin, 2896, repBlockMin - 1, repBlockMin, 9001} {
			if L < 1 || L > 1<<16 { // thresholds set far off (DDT_JIT_ALIGNMIN, DDT_JIT_REPMIN)
				continue
			}
			// the aligned loop ANDs with -64 and 63, REP MOVSB's alignment with -64 only
			rep, aligned := lines(L, vec, "rep movsb", ""), lines(L, vec, "and ", ", 0x3f")
			repAligned := lines(L, vec, "and ", ", -0x40") - aligned
			// blocks of at most 8 vectors are straight moves (gen.long)
			long := L > int64(8*vec)
			wantRep := long && hostERMS() && L >= repBlockMin
			wantAligned := long && !wantRep && L >= alignBlockMin
			if (rep > 0) != wantRep || (aligned > 0) != wantAligned {
				t.Errorf("vec %d, blocks of %d bytes: %d REP MOVSB (want some: %v), %d aligned loops (want some: %v)", vec, L, rep, wantRep, aligned, wantAligned)
			}
			if repAligned != 0 && repAligned != rep || rep > 0 && repAlign != (repAligned == rep) {
				t.Errorf("vec %d, blocks of %d bytes: %d REP MOVSB, %d of them after the destination's alignment (repAlign %v), %d aligned loops", vec, L, rep, repAligned, repAlign, aligned)
			}
		}
	}
}
