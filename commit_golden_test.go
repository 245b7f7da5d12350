package ddt

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

var updateGolden = flag.Bool("update-commit-golden", false, "rewrite testdata/commit_golden.txt from the current commit")

// TestCommitGolden pins what Commit produces for 3000 seeded random types
// (typegen, some restricted to structs so that subtypes are shared): the
// text of each committed program with its depth and alignment, digested
// per batch of 100 types into testdata/commit_golden.txt. The engine
// chosen is left out: it depends on the CPU and the environment
// (DDT_NOASM, DDT_NOJIT, GOARCH), the program does not.
// Work on commit's speed must leave every digest unchanged; a change meant
// to alter the programs rewrites the file with
//
//	go test -run TestCommitGolden -update-commit-golden .
//
// and says so in its commit message.
func TestCommitGolden(t *testing.T) {
	var got []string
	structs := []datatype.Combiner{datatype.CombinerStruct, datatype.CombinerContiguous, datatype.CombinerVector, datatype.CombinerResized}
	for batch := range 30 {
		h := sha256.New()
		r := rand.New(rand.NewPCG(0xc0a1, uint64(batch)))
		opts := typegen.Options{}
		if batch%3 == 2 {
			opts.Constructors, opts.Share = structs, 0.4
		}
		for range 100 {
			ty := typegen.Random(r, opts)
			c, err := Commit(ty)
			if err != nil {
				fmt.Fprintf(h, "error %v\n", err)
				continue
			}
			p := c.Program()
			fmt.Fprintf(h, "%s depth %d align %d\n", p.String(), p.Depth, p.Align)
		}
		got = append(got, fmt.Sprintf("%02d %s", batch, hex.EncodeToString(h.Sum(nil))))
	}
	path := filepath.Join("testdata", "commit_golden.txt")
	text := strings.Join(got, "\n") + "\n"
	if *updateGolden {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		t.Errorf("committed programs changed:\ngot\n%swant\n%s", text, want)
	}
}
