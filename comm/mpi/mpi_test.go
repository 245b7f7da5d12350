//go:build mpi

package mpi

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/commtest"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

// Run the tests under mpirun, for example
//
//	go test -c -tags mpi -o /tmp/mpi.test ./comm/mpi
//	mpirun --oversubscribe -np 4 /tmp/mpi.test
//
// Without mpirun they run as a world of one rank and skip what needs two.

var testComm *Comm

func TestMain(m *testing.M) {
	c, err := Init(Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testComm = c
	code := m.Run()
	if err := c.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// cross sends with one Comm and receives with another.
type cross struct {
	*Comm // receives
	send  *Comm
}

func (x cross) Send(b comm.Buffer, dest, tag int) error { return x.send.Send(b, dest, tag) }
func (x cross) Isend(b comm.Buffer, dest, tag int) (*comm.Request, error) {
	return x.send.Isend(b, dest, tag)
}

func runSuite(t *testing.T, c comm.Communicator, skip ...string) {
	for _, tc := range commtest.Suite {
		t.Run(tc.Name, func(t *testing.T) {
			for _, s := range skip {
				if s == tc.Name {
					t.Skip("not for this mode")
				}
			}
			if c.Size() < tc.MinRanks {
				t.Skipf("needs %d ranks", tc.MinRanks)
			}
			err := tc.Run(c)
			if berr := testComm.Barrier(); berr != nil {
				t.Fatal(berr)
			}
			if err != nil {
				t.Fatalf("rank %d: %v", c.Rank(), err)
			}
		})
	}
}

func TestSuite(t *testing.T) {
	for _, m := range []Mode{Packed, Native} {
		t.Run(m.String(), func(t *testing.T) { runSuite(t, testComm.WithMode(m)) })
	}
	t.Run("packed-noinline", func(t *testing.T) { runSuite(t, testComm.WithMode(Packed).WithInlineLimit(-1)) })
	t.Run("packed-maxinline", func(t *testing.T) { runSuite(t, testComm.WithMode(Packed).WithInlineLimit(MaxInline)) })
	t.Run("packed-to-native", func(t *testing.T) { runSuite(t, cross{testComm.WithMode(Native), testComm.WithMode(Packed)}) })
	t.Run("native-to-packed", func(t *testing.T) { runSuite(t, cross{testComm.WithMode(Packed), testComm.WithMode(Native)}) })
	// raw mode is MPI itself: no signature checks
	// (no RandomTypes: raw mode refuses the types the MPI library mis-packs)
	t.Run("raw", func(t *testing.T) { runSuite(t, testComm.WithMode(Raw), "MismatchAndTruncate", "RandomTypes") })
}

// TestNativeTypesMatchDDT packs random types with MPI_Pack and the native
// datatypes built from them, and with ddt's reference engine, on every rank.
func TestNativeTypesMatchDDT(t *testing.T) {
	if Library == "MPICH" && testComm.Size() > 1 && os.Getenv("DDT_MPICH_PACK") == "" {
		// MPICH 4.0.2 (ch4:ucx) returns short MPI_Pack results for some
		// simple types when more than one process runs; messages are
		// unaffected (the suite passes), and a native datatype that fails
		// verification is sent packed. Set DDT_MPICH_PACK=1 to run anyway.
		t.Skip("MPI_Pack is unreliable in MPICH 4.0.2 with more than one process")
	}
	r := rand.New(rand.NewPCG(uint64(testComm.Rank()+7), 3))
	fallback := 0
	defer func() {
		t.Logf("rank %d: %d of 400 random types are sent packed: the MPI library mis-packs or mishandles them", testComm.Rank(), fallback)
	}()
	for i := range 400 {
		ty := typegen.Random(r, typegen.Options{MaxExtent: 64 << 10, MaxElements: 2048})
		ct, err := ddt.CommitWith(ty, ddt.Options{Engine: ddt.Reference})
		if err != nil {
			t.Fatal(err)
		}
		count := int64(1 + r.IntN(3))
		b, err := commtest.Image(ct, count, func(k int) byte { return byte(k*5 + i) })
		if err != nil {
			t.Fatal(err)
		}
		got, err := testComm.nativePack(b)
		if errors.Is(err, errMisPacks) || errors.Is(err, errMishandled) {
			if os.Getenv("DDT_DEBUG") != "" && errors.Is(err, errMisPacks) {
				t.Logf("mispacked: %s", lang.Format(ty))
			}
			fallback++
			continue
		}
		if err != nil {
			t.Fatalf("type %d (%s): %v", i, ty, err)
		}
		want := make([]byte, count*ty.Size())
		if _, err := ct.Pack(want, b.Data, b.Origin, count); err != nil {
			t.Fatal(err)
		}
		maskLongDoublePadding(ty, count, got, want)
		if !bytes.Equal(got, want) {
			t.Fatalf("rank %d type %d (%s, depth %d): MPI_Pack differs from ddt:\n got % x\nwant % x", testComm.Rank(), i, lang.Format(ty), ty.Depth(), got[:min(len(got), 64)], want[:min(len(want), 64)])
		}
	}
}

// TestRandomTypesAllModes sends many random types in every combination of
// sending and receiving mode.
func TestRandomTypesAllModes(t *testing.T) {
	if testComm.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	for _, sm := range []Mode{Packed, Native} {
		for _, rm := range []Mode{Packed, Native} {
			t.Run(sm.String()+"-to-"+rm.String(), func(t *testing.T) {
				err := commtest.RandomTypesSeed(cross{testComm.WithMode(rm), testComm.WithMode(sm)}, 42+uint64(sm)*2+uint64(rm), 150)
				if berr := testComm.Barrier(); berr != nil {
					t.Fatal(berr)
				}
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestRawTruncate: in Raw mode MPI itself reports truncation.
func TestRawTruncate(t *testing.T) {
	if testComm.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	c := testComm.WithMode(Raw)
	it, _ := ddt.Commit(intType())
	var err error
	switch c.Rank() {
	case 0:
		err = c.Send(comm.Buffer{Data: make([]byte, 24), Count: 6, Type: it}, 1, 9)
	case 1:
		_, err = c.Recv(comm.Buffer{Data: make([]byte, 16), Count: 4, Type: it}, 0, 9)
		if !errors.Is(err, comm.ErrTruncate) {
			err = fmt.Errorf("6 ints into 4: %v, want ErrTruncate", err)
		} else {
			err = nil
		}
	}
	if berr := testComm.Barrier(); berr != nil {
		t.Fatal(berr)
	}
	if err != nil {
		t.Fatal(err)
	}
}
