package lang

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// FuzzParse checks that Parse never panics, that its errors are *Error, and
// that every type it accepts prints as text that parses to an Equal type.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.ddt")
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		"", "#\n", "int", "2int", "a = b", "vector(1, 2, 3, int", "contiguous(9223372036854775807, double)",
		"resized(int, -9223372036854775808, -1)", "x = dup(int)\nx = dup(int)", "struct([], [], [])",
		"darray(4, 3, [5, 5], [cyclic, block], [2, default], [2, 2], Fortran, int)",
		"indexed([1, 2], [3], int)", "vector(count=1, 2, 3, int)", "subarray([3], [3], [0], C, 2int)",
	} {
		f.Add([]byte(s))
	}
	for _, s := range hostileSeeds() {
		f.Add([]byte(s))
	}
	r := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		f.Add([]byte(Format(typegen.Random(r, typegen.Options{MaxDepth: 3}))))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ty, err := Parse("fuzz.ddt", src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			if pe.Pos.Line < 1 || pe.Pos.Col < 1 {
				t.Fatalf("error %v has no position", err)
			}
			return
		}
		out := Format(ty)
		ty2, err := Parse("printed.ddt", []byte(out))
		if err != nil {
			t.Fatalf("printed type does not parse: %v\n%s", err, out)
		}
		if !datatype.Equal(ty, ty2) {
			t.Fatalf("print then parse differs:\n%s\n%s", src, out)
		}
	})
}

// hostileSeeds are inputs made to exhaust the parser: deep nesting, long
// tokens, deep chains of bindings, int64 edges, control bytes.
func hostileSeeds() []string {
	var chain strings.Builder
	chain.WriteString("t0 = int\n")
	for i := 1; i <= 1100; i++ {
		fmt.Fprintf(&chain, "t%d = contiguous(1, t%d)\n", i, i-1)
	}
	return []string{
		strings.Repeat("[", 5000),
		"contiguous(" + strings.Repeat("[", 5000),
		strings.Repeat("dup(", 1100) + "int" + strings.Repeat(")", 1100),
		strings.Repeat("a", 3000),
		"contiguous(" + strings.Repeat("9", 3000) + ", int)",
		"\x00\x00\x00", "int\x00", "\xff\xfe", "contiguous(1, int)\n\xe2\x82",
		chain.String(),
		"t0 = hindexed_block(1, [-4, 4], int)\nhindexed_block(1, [0, -9223372036854775808], t0)",
		"hvector(2, 1, -9223372036854775808, int)",
		"z = contiguous(0, int)\nstruct([1, 4611686018427387904], [0, 0], [int, z])",
		"resized(int, 9223372036854775807, 9223372036854775807)",
		"vector(9223372036854775807, 9223372036854775807, -9223372036854775808, long_double)",
		"subarray([9223372036854775807, 2], [1, 1], [9223372036854775806, 0], C, int)",
		"darray(4, 0, [9223372036854775807], [block], [default], [4], C, double)",
		"darray(9223372036854775807, 0, [9223372036854775807], [cyclic], [9223372036854775807], [9223372036854775807], C, double)",
	}
}
