package jit

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// a64Mnemonic maps the mnemonics of the listing to objdump's: the MOV
// aliases of MOVZ and MOVN, and objdump's names of the unsigned
// conditions.
var a64Mnemonic = map[string]string{"movz": "mov", "movn": "mov", "b.hs": "b.cs", "b.lo": "b.cc"}

// TestEncodingA64 decodes the generated arm64 code with GNU objdump for
// aarch64 (when installed: Debian's binutils-aarch64-linux-gnu) and
// compares every instruction's mnemonic with the listing, and the
// operands of loads, stores and arithmetic.
func TestEncodingA64(t *testing.T) {
	od, err := exec.LookPath("aarch64-linux-gnu-objdump")
	if err != nil {
		t.Skip("aarch64-linux-gnu-objdump not installed")
	}
	dbl, ch := datatype.Of(datatype.Double), datatype.Of(datatype.Char)
	disps := make([]int64, 2000)
	for i := range disps {
		disps[i] = int64(i*i%7919) * 8
	}
	bi, _ := datatype.IndexedBlock(1, disps, dbl)
	bi3, _ := datatype.IndexedBlock(3, disps, ch)
	v, _ := datatype.Vector(1000, 3, 7, ch)
	big, _ := datatype.Vector(10, 700, 1000, ch)
	s7, _ := datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{datatype.Of(datatype.Int), dbl, ch, datatype.Of(datatype.Float)})
	far, _ := datatype.Struct([]int64{1, 3, 5}, []int64{-5000, 9<<20 + 5, 16<<20 + 77}, []*datatype.Type{dbl, dbl, ch})
	neg, _ := datatype.Vector(50, 2, -300000, dbl)
	strided, _ := datatype.Vector(1000, 1, 3, dbl)
	bytes1, _ := datatype.Vector(100, 1, 3, ch)
	runs7, _ := datatype.Vector(50, 7, 11, ch)
	floats, _ := datatype.Vector(101, 1, 3, datatype.Of(datatype.Float)) // pairs of W registers
	re := regexp.MustCompile(`^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*([^/]*)`)
	checked := map[string]bool{}
	for _, ty := range []*datatype.Type{bi, bi3, v, big, s7, far, neg, strided, bytes1, runs7, floats} {
		for _, vec := range []int{16, 32} {
			pr, err := generateArch(archARM64, opt.Compile(ty), vec, true)
			if err != nil {
				t.Fatal(err)
			}
			txt := pr.e.lines()
			end := txt[len(txt)-1].off + 4
			f := filepath.Join(t.TempDir(), "code.bin")
			if err := os.WriteFile(f, pr.e.code()[:end], 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(od, "-D", "-b", "binary", "-m", "aarch64", f).Output()
			if err != nil {
				t.Fatal(err)
			}
			mns, ops := map[int]string{}, map[int]string{}
			for _, l := range strings.Split(string(out), "\n") {
				if m := re.FindStringSubmatch(l); m != nil {
					off, _ := strconv.ParseInt(m[1], 16, 64)
					mns[int(off)] = m[3]
					ops[int(off)] = strings.ReplaceAll(m[4], " ", "")
				}
			}
			for _, l := range txt {
				f := strings.Fields(l.text)
				mn := f[0]
				if n, ok := a64Mnemonic[mn]; ok {
					mn = n
				}
				if mns[l.off] != mn {
					t.Fatalf("vec %d: at %#x we wrote %q (%08x), objdump decodes %q\n%s", vec, l.off, l.text, pr.e.code()[l.off:l.off+4], mns[l.off], out)
				}
				checked[mn] = true
				op := strings.Join(f[1:], "")
				if strings.HasPrefix(mn, "ld") || strings.HasPrefix(mn, "st") || mn == "add" || mn == "sub" || mn == "subs" || mn == "cmp" || mn == "movk" {
					if ops[l.off] != op {
						t.Fatalf("vec %d: at %#x we wrote %q, objdump decodes operands %q", vec, l.off, l.text, ops[l.off])
					}
				}
			}
		}
	}
	t.Logf("mnemonics checked: %v", checked)
}

// TestReservedRegistersA64 lists the arm64 code of random programs and
// checks that no instruction names a register Go's register ABI keeps
// (SP, X18, X26-X30: RET reads X30 without naming it) or W forms of
// them, or a vector register beyond Q7.
func TestReservedRegistersA64(t *testing.T) {
	reserved := regexp.MustCompile(`\b([xw](1[8]|2[6-9]|30)|sp|wsp|[qv]([89]|[12][0-9]|3[01]))\b`)
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		p := opt.Compile(ty)
		for _, vec := range []int{16, 32} {
			l, err := listingArch(archARM64, p, vec)
			if err != nil {
				break
			}
			for _, line := range strings.Split(l, "\n") {
				if m := reserved.FindString(line); m != "" && !strings.HasPrefix(line, ";") {
					t.Fatalf("vec %d: the code of %v uses %s: %s", vec, ty, m, line)
				}
			}
		}
	}
}
