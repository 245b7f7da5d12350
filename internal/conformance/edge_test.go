package conformance

import (
	"testing"

	"github.com/ddtlab/ddt/lang"
)

// edgeSources are hand-written edge cases, checked before the random types.
var edgeSources = []string{
	"struct([1, 1], [0, 8], [c_float_complex, char])",
	"struct([1, 1], [0, 32], [c_long_double_complex, char])",
	"struct([1, 1], [0, 16], [long_double, char])",
	"short_int", "long_double_int", "double_int", "long_int", "float_int", "2int",
	"contiguous(3, short_int)", "vector(2, 1, 3, long_double_int)",
	"vector(3, 0, 2, int)",
	"vector(2, 1, -3, double)",
	"rs = resized(int, -4, 16)\nstruct([1, 1], [0, -20], [rs, double])",
	"rs = resized(int, -4, 16)\nstruct([1, 1], [0, 40], [rs, double])",
	"rs = resized(int, 0, 5)\nstruct([1, 1], [0, 16], [contiguous(2, rs), double])",
	"rs = resized(struct([1, 1], [0, 8], [int, double]), 0, 12)\nstruct([1, 1], [0, 12], [rs, char])",
	"indexed([0, 2, 0], [-10, 1, 50], int)",
	"contiguous(3, resized(int, 0, 0))",
	"contiguous(3, resized(int, 0, -8))",
	"hvector(3, 2, -7, resized(double, 3, -5))",
	"struct([1, 0], [0, 100], [int, double])",
	"struct([1, 1], [-8, 0], [contiguous(0, int), char])",
	"indexed_block(0, [5, -3], double)",
	"hindexed([2, 2], [0, 4], int)  # overlapping",
	"indexed([3, 1], [2, 0], double)  # out of order",
	"subarray([4, 5], [2, 3], [1, 1], C, double)",
	"subarray([4, 5], [2, 3], [1, 1], Fortran, resized(int, -2, 7))",
	"darray(4, 3, [9, 5], [cyclic, block], [2, default], [2, 2], C, int)",
	"darray(6, 2, [7, 1], [block, none], [4, default], [6, 1], Fortran, double)",
	"darray(3, 2, [10], [cyclic], [default], [3], C, short_int)",
	"dup(resized(vector(2, 1, 2, float_int), -3, 5))",
}

func edgeCases(t *testing.T) []testCase {
	var cs []testCase
	for _, s := range edgeSources {
		ty, err := lang.Parse("edge.ddt", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCase{name: "edge: " + s, t: ty})
	}
	return cs
}
