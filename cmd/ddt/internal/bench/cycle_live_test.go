package bench

import (
	"runtime"
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkCommitCycleLive creates and commits each mpipack layout per
// iteration while a committed instance of the same layout stays live, as in
// the anchors harness (`ddt bench --mpipack` keeps the type it packs with
// while it times the cycles): types with long lists equal to a live type's
// share that type's copy, so this measures the commit path with the lists
// already copied (issue 20's L6 regression was here).
//
//	go test -run - -bench CommitCycleLive ./cmd/ddt/internal/bench
func BenchmarkCommitCycleLive(b *testing.B) {
	for _, d := range mpCases {
		c := resolve(d)
		live, err := ddt.Commit(c.makeType())
		if err != nil {
			b.Fatal(err)
		}
		b.Run("layout="+c.id+c.size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ddt.Commit(c.makeType()); err != nil {
					b.Fatal(err)
				}
			}
		})
		runtime.KeepAlive(live)
	}
}
