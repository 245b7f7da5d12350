package bench

import (
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkCommitNormalize creates and commits each mpipack layout per
// iteration, as BenchmarkCommitCycle, once in each normalization mode, so
// that the cost of NormalizeAuto (the default) and NormalizeAlways reads
// as a ratio to NormalizeNever in one run:
//
//	go test -run - -bench CommitNormalize ./cmd/ddt/internal/bench
func BenchmarkCommitNormalize(b *testing.B) {
	for _, d := range mpCases {
		c := resolve(d)
		for _, mode := range []ddt.Normalization{ddt.NormalizeNever, ddt.NormalizeAuto, ddt.NormalizeAlways} {
			b.Run("layout="+c.id+c.size+"/normalize="+mode.String(), func(b *testing.B) {
				b.ReportAllocs()
				opts := ddt.Options{Normalize: mode}
				for b.Loop() {
					if _, err := ddt.CommitWith(c.makeType(), opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
