package conformance

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

// layout is what an MPI program reports of a type: size, lb, extent, true
// lb, true extent.
type layout [5]int64

// exportCases are the types the Fortran and Python exports are checked on:
// the export golden inputs, the edge cases and random types.
func exportCases(t *testing.T, n int) []testCase {
	cs := goldenCases(t)
	cs = append(cs, edgeCases(t)...)
	r := rand.New(rand.NewPCG(fixedSeed, 90))
	for i := range n {
		cs = append(cs, testCase{name: fmt.Sprintf("export type %d", i), t: typegen.Random(r, typegen.Options{})})
	}
	return cs
}

// parseLayouts reads "L idx size lb extent tlb textent" lines.
func parseLayouts(t *testing.T, out []byte) map[int]layout {
	res := map[int]layout{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 || f[0] != "L" {
			continue
		}
		idx, _ := strconv.Atoi(f[1])
		var l layout
		for k := range l {
			l[k], _ = strconv.ParseInt(f[2+k], 10, 64)
		}
		res[idx] = l
	}
	return res
}

func run(t *testing.T, dir string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "UCX_HANDLE_ERRORS=none", "OMPI_MCA_rmaps_base_oversubscribe=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, firstLines(stderr.String(), 30))
	}
	return stdout.Bytes()
}

// cLayouts builds every case with ExportC and cc and returns the layouts.
func cLayouts(t *testing.T, cc string, cs []testCase) map[int]layout {
	var prog bytes.Buffer
	prog.WriteString("#include <mpi.h>\n#include <stdio.h>\n\nstatic void report(int idx, MPI_Datatype t)\n{\n" +
		"    MPI_Count size;\n    MPI_Aint lb, extent, tlb, textent;\n    MPI_Type_size_x(t, &size);\n" +
		"    MPI_Type_get_extent(t, &lb, &extent);\n    MPI_Type_get_true_extent(t, &tlb, &textent);\n" +
		"    printf(\"L %d %lld %ld %ld %ld %ld\\n\", idx, (long long)size, (long)lb, (long)extent, (long)tlb, (long)textent);\n}\n\n")
	for i, c := range cs {
		block, err := lang.ExportC(c.t, fmt.Sprintf("T%d", i))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&prog, "static void run%d(void)\n{\n%s    report(%d, T%d);\n    MPI_Type_free(&T%d);\n}\n\n", i, indent(block), i, i, i)
	}
	prog.WriteString("int main(int argc, char **argv)\n{\n    MPI_Init(&argc, &argv);\n")
	for i := range cs {
		fmt.Fprintf(&prog, "    run%d();\n", i)
	}
	prog.WriteString("    MPI_Finalize();\n    return 0;\n}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "layouts.c"), prog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, cc, "-O0", "-o", "layouts", "layouts.c")
	return parseLayouts(t, run(t, dir, filepath.Join(dir, "layouts")))
}

// fortranLayouts builds every case with ExportFortran and fc.
func fortranLayouts(t *testing.T, fc string, cs []testCase) map[int]layout {
	var subs, calls bytes.Buffer
	for i, c := range cs {
		name := fmt.Sprintf("t%d", i)
		sub, err := lang.ExportFortran(c.t, name)
		if err != nil {
			t.Fatal(err)
		}
		subs.WriteString(sub + "\n")
		fmt.Fprintf(&calls, "    call ddt_build_%s(t)\n    call report(%d, t)\n    call MPI_Type_free(t)\n", name, i)
	}
	prog := "program layouts\n    use mpi_f08\n    implicit none\n    type(MPI_Datatype) :: t\n    call MPI_Init()\n" +
		calls.String() + "    call MPI_Finalize()\ncontains\n" +
		"subroutine report(idx, t)\n    integer, intent(in) :: idx\n    type(MPI_Datatype), intent(in) :: t\n" +
		"    integer(kind=MPI_COUNT_KIND) :: size\n    integer(kind=MPI_ADDRESS_KIND) :: lb, extent, tlb, textent\n" +
		"    call MPI_Type_size_x(t, size)\n    call MPI_Type_get_extent(t, lb, extent)\n" +
		"    call MPI_Type_get_true_extent(t, tlb, textent)\n" +
		"    write (*, '(A, I0, 5(1X, I0))') 'L ', idx, size, lb, extent, tlb, textent\nend subroutine report\n\n" +
		subs.String() + "end program layouts\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "layouts.f90"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, fc, "-O0", "-o", "layouts", "layouts.f90")
	return parseLayouts(t, run(t, dir, filepath.Join(dir, "layouts")))
}

// pythonLayouts builds every case with ExportPython under python (mpi4py).
func pythonLayouts(t *testing.T, python string, cs []testCase) map[int]layout {
	var prog bytes.Buffer
	prog.WriteString("from mpi4py import MPI\n\n\n")
	for i, c := range cs {
		src, err := lang.ExportPython(c.t, fmt.Sprintf("T%d", i))
		if err != nil {
			t.Fatal(err)
		}
		// each export imports MPI itself; one import is enough here
		src = strings.Replace(src, "from mpi4py import MPI\n", "", 1)
		prog.WriteString(src + "\n\n")
	}
	prog.WriteString("for i in range(" + strconv.Itoa(len(cs)) + "):\n" +
		"    t = globals()['ddt_build_T%d' % i]()\n" +
		"    lb, extent = t.Get_extent()\n    tlb, textent = t.Get_true_extent()\n" +
		"    print('L', i, t.Get_size(), lb, extent, tlb, textent)\n    t.Free()\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "layouts.py"), prog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return parseLayouts(t, run(t, dir, python, filepath.Join(dir, "layouts.py")))
}

func compareLayouts(t *testing.T, what string, cs []testCase, got, want map[int]layout) {
	t.Helper()
	bad := 0
	for i, c := range cs {
		g, ok := got[i]
		w, wok := want[i]
		if !ok || !wok || g != w {
			bad++
			if bad <= 10 {
				t.Errorf("%s: %s: got %v (%v), want %v (%v)\n%s", what, c.name, g, ok, w, wok, lang.Format(c.t))
			}
		}
	}
	t.Logf("%s: %d types, %d differ", what, len(cs), bad)
}

func ddtLayouts(cs []testCase) map[int]layout {
	res := map[int]layout{}
	for i, c := range cs {
		res[i] = layout{c.t.Size(), c.t.LB(), c.t.Extent(), c.t.TrueLB(), c.t.TrueExtent()}
	}
	return res
}

// TestExportFortran compiles the Fortran export (mpi_f08) of every case
// with MPICH's mpif90 and compares the types' size and bounds with ddt's
// (MPICH is the reference), and with Open MPI's mpif90 against the C
// export built with Open MPI (which rounds some extents differently from
// MPICH: the same MPI must build the same type from both languages).
func TestExportFortran(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	// gfortran resolves mpi_f08's generic procedures slowly and in much
	// memory (about 1 GB for 70 types): the golden inputs, the edge cases
	// and a few random types keep each build small
	cs := exportCases(t, 8)
	ran := false
	if fc, err := exec.LookPath("mpif90.mpich"); err == nil {
		compareLayouts(t, "Fortran export with "+fc+" vs ddt", cs, fortranLayouts(t, fc, cs), ddtLayouts(cs))
		ran = true
	}
	fc, err1 := exec.LookPath("mpif90.openmpi")
	cc, err2 := exec.LookPath("mpicc.openmpi")
	if err1 == nil && err2 == nil {
		compareLayouts(t, "Fortran export with "+fc+" vs C export with "+cc, cs, fortranLayouts(t, fc, cs), cLayouts(t, cc, cs))
		ran = true
	}
	if !ran {
		t.Skip("no mpif90.mpich or mpif90.openmpi: install gfortran with libmpich-dev or libopenmpi-dev")
	}
}

// pythonWithMPI4Py returns a Python interpreter that can import mpi4py.
func pythonWithMPI4Py() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil {
			if exec.Command(path, "-c", "import mpi4py.MPI").Run() == nil {
				return path
			}
		}
	}
	return ""
}

// TestExportPython runs the mpi4py export of every case and compares the
// types' size and bounds with the C export built by the MPI mpi4py was
// built with (Debian's python3-mpi4py uses Open MPI), and with ddt when
// that MPI is MPICH.
func TestExportPython(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode")
	}
	py := pythonWithMPI4Py()
	if py == "" {
		t.Skip("no python3 with mpi4py: apt-get install python3-mpi4py (golden files still check the text)")
	}
	out, err := exec.Command(py, "-c", "from mpi4py import MPI; print(MPI.Get_library_version())").Output()
	if err != nil {
		t.Fatal(err)
	}
	cs := exportCases(t, 150)
	got := pythonLayouts(t, py, cs)
	if strings.Contains(string(out), "Open MPI") {
		cc, err := exec.LookPath("mpicc.openmpi")
		if err != nil {
			t.Skip("mpi4py uses Open MPI but mpicc.openmpi is missing")
		}
		compareLayouts(t, "mpi4py (Open MPI) export vs C export with "+cc, cs, got, cLayouts(t, cc, cs))
		return
	}
	compareLayouts(t, "mpi4py export vs ddt", cs, got, ddtLayouts(cs))
}
