package jit

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestUnpackThrottle checks the rule of unpackThrottleOf in the listing
// (with the switch on and off, whatever the host) and the code's
// correctness with it: L4a S's column of ints 1 KiB apart unpacks with
// each element stored four times, and doubles 4 KiB apart; other strides
// and every pack are untouched.
func TestUnpackThrottle(t *testing.T) {
	defer func(on bool) { unpackThrottleOn = on }(unpackThrottleOn)
	must := typeMust(t)
	i32 := datatype.Of(datatype.Int)
	col := must(datatype.Vector(254, 1, 256, i32))                          // 1 KiB apart: the rule
	dbl := must(datatype.Vector(300, 1, 512, datatype.Of(datatype.Double))) // 4 KiB apart: the rule
	odd := must(datatype.Vector(254, 1, 257, i32))                          // 1,028 bytes apart: not
	far := must(datatype.Vector(254, 1, 2048, i32))                         // 8 KiB apart: not
	// scalar stores to the memory image: through RBX or RDI
	store := regexp.MustCompile(`mov \[r(bx|di)[^\]]*\], [er]ax`)
	for _, tc := range []struct {
		ty   *datatype.Type
		rule bool
	}{{col, true}, {dbl, true}, {odd, false}, {far, false}} {
		var pk, un [2]string
		for k, on := range []bool{false, true} {
			unpackThrottleOn = on
			lst, err := listingArch(archAMD64, opt.Compile(tc.ty), 64)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(lst, "\nunpack ")
			pk[k], un[k] = lst[strings.Index(lst, "\n"):i], lst[i:] // the first line counts the bytes
		}
		if pk[0] != pk[1] {
			t.Errorf("%v: the rule changed the pack code", tc.ty)
		}
		n0, n1 := len(store.FindAllString(un[0], -1)), len(store.FindAllString(un[1], -1))
		want := n0
		if tc.rule {
			want = n0 * (1 + unpackThrottleRepeats)
		}
		if n0 == 0 || n1 != want {
			t.Errorf("%v: %d scalar stores with the rule, %d without, want %d with\n%s", tc.ty, n1, n0, want, un[1])
		}
	}
	unpackThrottleOn = true
	r := rand.New(rand.NewPCG(4, 5))
	checkVecs(t, r, col, 1, 3)
	checkVecs(t, r, dbl, 1, 3)
}

// checkVecs compiles ty's program at every vector width this machine
// runs and checks each count of instances against the reference engine
// (check), whole and cut at a third; nothing where no code is generated.
func checkVecs(t *testing.T, r *rand.Rand, ty *datatype.Type, counts ...int64) {
	t.Helper()
	if !supported {
		return
	}
	p := opt.Compile(ty)
	for _, vec := range vecs() {
		c, err := compileVec(p, vec)
		if errors.Is(err, ErrUnsupported) && hostArch == archARM64 {
			t.Logf("%v: %v", ty, err) // the arm64 generator's lists are shorter
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, count := range counts {
			size, _ := ty.PackSize(count)
			check(t, r, ty, p, c, count, []int64{0, size / 3})
		}
	}
}

// TestVarMasked checks varBlock with and without its masked moves
// (varMasked, off on AMD's cores): an index list of blocks of 1 to 200
// bytes, long enough to run on the table loop, has masked stores in its
// 64-byte code exactly when they are on, and moves what the reference
// engine moves either way, at every vector width. varVec is 64 here, as
// on Intel's cores (masked moves are 64 bytes wide).
func TestVarMasked(t *testing.T) {
	defer func(on bool, v int64) { varMasked, varVec = on, v }(varMasked, varVec)
	varVec = 64
	r := rand.New(rand.NewPCG(9, 10))
	ty := varBlocks(t, r)
	p := opt.Compile(ty)
	for _, on := range []bool{true, false} {
		varMasked = on
		lst, err := listingArch(archAMD64, p, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(lst, "vmovdqu8 [") && strings.Contains(lst, "kmovq"); got != on {
			t.Errorf("varMasked %v: masked stores in the code: %v\n%s", on, got, lst)
		}
		checkVecs(t, r, ty, 1, 2)
	}
}

// TestFarAdjacent checks farPrefetchMinStride: WRF_x L's blocks of 12
// bytes 64 apart (4.3 MB) unpack with PREFETCHW when the least stride is
// a line, and without when it is more (AMD's cores).
func TestFarAdjacent(t *testing.T) {
	if !prefetchOn || !hostPrefW() {
		t.Skip("DDT_JIT_PF=0 or no PREFETCHW")
	}
	defer func(s int64) { farPrefetchMinStride = s }(farPrefetchMinStride)
	ty := typeMust(t)(datatype.Vector(66560, 3, 16, datatype.Of(datatype.Float)))
	for _, s := range []int64{64, 65} {
		farPrefetchMinStride = s
		lst, err := listingArch(archAMD64, opt.Compile(ty), 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(lst[strings.Index(lst, "\nunpack "):], "prefetchw"); got != (s == 64) {
			t.Errorf("least stride %d: prefetches in the unpack code: %v", s, got)
		}
	}
}

// TestVarVec checks varVec, the bound on varBlock's vector width (32 on
// AMD's cores): an index list of blocks of 1 to 200 bytes moves in
// vectors of at most varVec bytes in its 64-byte code, and moves what the
// reference engine moves at every bound and every code width.
func TestVarVec(t *testing.T) {
	defer func(on bool, v int64) { varMasked, varVec = on, v }(varMasked, varVec)
	varMasked = false
	r := rand.New(rand.NewPCG(11, 12))
	ty := varBlocks(t, r)
	p := opt.Compile(ty)
	for _, v := range []int64{16, 32, 64} {
		varVec = v
		lst, err := listingArch(archAMD64, p, 64)
		if err != nil {
			t.Fatal(err)
		}
		for w, reg := range map[int64]string{32: "ymm", 64: "zmm"} {
			if got := strings.Contains(lst, reg); got != (w <= v) {
				t.Errorf("varVec %d: %s moves in the code: %v\n%s", v, reg, got, lst)
			}
		}
		checkVecs(t, r, ty, 1, 2)
	}
}

// varBlocks returns an index list of 300 blocks of 1 to 200 bytes with
// gaps of 0 to 63, long enough to run on the table loop (varBlock).
func varBlocks(t *testing.T, r *rand.Rand) *datatype.Type {
	t.Helper()
	n := 300
	lens, disps := make([]int64, n), make([]int64, n)
	var d int64
	for i := range n {
		lens[i] = 1 + r.Int64N(200)
		disps[i] = d + r.Int64N(64)
		d = disps[i] + lens[i]
	}
	return typeMust(t)(datatype.Indexed(lens, disps, datatype.Of(datatype.Byte)))
}
