package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// ExportFortran returns a Fortran 2008 subroutine, for the mpi_f08
// bindings, that builds t: "subroutine ddt_build_<name>(<name>)" with an
// intent(out) type(MPI_Datatype) argument, building every derived subtype
// in dependency order (a subtype used more than once is built once),
// freeing the intermediate types and ending with MPI_Type_commit. The
// caller frees the type with MPI_Type_free; a predefined t is duplicated
// with MPI_Type_dup so that this holds for every type. Predefined types
// keep their MPI C names (MPI_INT, MPI_DOUBLE, ...), which the mpi_f08
// module defines.
//
// Counts are default INTEGERs and byte displacements
// INTEGER(KIND=MPI_ADDRESS_KIND), as in the classic (not large-count)
// calls; ExportFortran returns an error if a count does not fit in a
// 32-bit INTEGER or if name is not a Fortran name (a letter, then up to 45
// letters, digits or underscores, leaving room for the prefix).
func ExportFortran(t *datatype.Type, name string) (string, error) {
	if t == nil {
		return "", fmt.Errorf("export Fortran: nil type")
	}
	if !isFortranName(name) {
		return "", fmt.Errorf("export Fortran: %q is not a Fortran name (a letter, then at most 45 letters, digits or _)", name)
	}
	order := postOrder(t)
	e := &fExporter{name: name, vars: map[*datatype.Type]string{}}
	var temps []string
	for _, u := range order {
		if u != t {
			v := fmt.Sprintf("%s_t%d", name, len(temps)+1)
			e.vars[u] = v
			temps = append(temps, v)
		}
	}
	e.vars[t] = name
	if t.IsPredefined() {
		e.stmt("call MPI_Type_dup(%s, %s)", mpiName(t), name)
	}
	for k, u := range order {
		e.n = k + 1
		if err := e.call(u); err != nil {
			return "", err
		}
	}
	for _, v := range temps {
		e.stmt("call MPI_Type_free(%s)", v)
	}
	e.stmt("call MPI_Type_commit(%s)", name)

	var b strings.Builder
	fmt.Fprintf(&b, "! %s: size %d, lb %d, extent %d, true lb %d, true extent %d (built by ddt)\n",
		name, t.Size(), t.LB(), t.Extent(), t.TrueLB(), t.TrueExtent())
	fmt.Fprintf(&b, "subroutine ddt_build_%s(%s)\n    use mpi_f08\n    implicit none\n", name, name)
	fmt.Fprintf(&b, "    type(MPI_Datatype), intent(out) :: %s\n", name)
	for k := 0; k < len(temps); k += 6 {
		fmt.Fprintf(&b, "    type(MPI_Datatype) :: %s\n", strings.Join(temps[k:min(k+6, len(temps))], ", "))
	}
	for _, d := range e.decls {
		b.WriteString(fortranWrap("    " + d))
	}
	for _, s := range e.stmts {
		b.WriteString(fortranWrap("    " + s))
	}
	fmt.Fprintf(&b, "end subroutine ddt_build_%s\n", name)
	return b.String(), nil
}

// fortranWrap breaks a statement after commas into lines of at most about
// 100 characters (free form allows 132) with "&" continuations, and ends
// it with a newline.
func fortranWrap(line string) string {
	const width = 100
	if len(line) <= width {
		return line + "\n"
	}
	var b strings.Builder
	cur := 0 // length of the current output line
	parts := strings.SplitAfter(line, ", ")
	for i, p := range parts {
		if cur > 0 && cur+len(p) > width && i > 0 {
			b.WriteString("&\n        ")
			cur = 8
		}
		b.WriteString(p)
		cur += len(p)
	}
	b.WriteString("\n")
	return b.String()
}

// postOrder lists the derived types of t's DAG, children first, each once.
func postOrder(t *datatype.Type) []*datatype.Type {
	var order []*datatype.Type
	seen := map[*datatype.Type]bool{}
	var visit func(*datatype.Type)
	visit = func(u *datatype.Type) {
		if u.IsPredefined() || seen[u] {
			return
		}
		seen[u] = true
		for _, c := range u.Args().Types {
			visit(c)
		}
		order = append(order, u)
	}
	visit(t)
	return order
}

// mpiName is the MPI name of a predefined type (the C name, which the
// Fortran and Python bindings share up to the prefix).
func mpiName(t *datatype.Type) string { return cName(t) }

type fExporter struct {
	name  string
	vars  map[*datatype.Type]string
	decls []string
	stmts []string
	n     int // number of the current call, for array names
	err   error
}

func (e *fExporter) stmt(format string, args ...any) {
	e.stmts = append(e.stmts, fmt.Sprintf(format, args...))
}

func (e *fExporter) ref(t *datatype.Type) string {
	if t.IsPredefined() {
		return mpiName(t)
	}
	return e.vars[t]
}

// int checks that v fits in a default (32-bit) INTEGER.
func (e *fExporter) int(u *datatype.Type, what string, v int64) string {
	if e.err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		e.err = fmt.Errorf("export Fortran: %s %s = %d does not fit in a 32-bit INTEGER", u.Combiner(), what, v)
	}
	if v == math.MinInt32 {
		return "(-2147483647 - 1)" // no literal: 2147483648 overflows
	}
	return strconv.FormatInt(v, 10)
}

// addr is an INTEGER(KIND=MPI_ADDRESS_KIND) constant (the kind matters for
// scalar arguments: the generic mpi_f08 procedures resolve on it).
func addr(v int64) string {
	if v == math.MinInt64 {
		return "(-9223372036854775807_MPI_ADDRESS_KIND - 1)"
	}
	return strconv.FormatInt(v, 10) + "_MPI_ADDRESS_KIND"
}

// array declares a local array <name>_<what><n> of the given Fortran type,
// assigns vals to it in statements of at most 8 values (no continuation
// lines, whatever the length) and returns its name.
func (e *fExporter) array(ftype, what string, vals []string) string {
	v := fmt.Sprintf("%s_%s%d", e.name, what, e.n)
	e.decls = append(e.decls, fmt.Sprintf("%s :: %s(%d)", ftype, v, len(vals)))
	for k := 0; k < len(vals); k += 8 {
		hi := min(k+8, len(vals))
		if hi-k == 1 {
			e.stmt("%s(%d) = %s", v, k+1, vals[k])
		} else {
			e.stmt("%s(%d:%d) = [%s]", v, k+1, hi, strings.Join(vals[k:hi], ", "))
		}
	}
	return v
}

func (e *fExporter) call(u *datatype.Type) error {
	k := u.Combiner().Constructor()
	if k == nil || k.C == "" {
		return fmt.Errorf("export Fortran: unsupported combiner %s", u.Combiner())
	}
	args := callArgs(u, k, k.CParams(), fArgs{e, u})
	if e.err != nil {
		return e.err
	}
	e.stmt("call %s(%s, %s)", k.C, strings.Join(args, ", "), e.vars[u])
	return nil
}

// fArgs writes the arguments of one Fortran call; e keeps the first error.
type fArgs struct {
	e *fExporter
	u *datatype.Type
}

func (w fArgs) int(p datatype.Param, v int64) string { return w.e.int(w.u, p.Name, v) }

func (w fArgs) aint(v int64) string { return addr(v) }

func (w fArgs) ints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = w.e.int(w.u, fmt.Sprintf("%s[%d]", p.Name, i), v)
	}
	return w.e.array("integer", p.Short, s)
}

func (w fArgs) aints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = addr(v)
	}
	return w.e.array("integer(kind=MPI_ADDRESS_KIND)", p.Short, s)
}

func (w fArgs) consts(p datatype.Param, vs []string) string {
	return w.e.array("integer", p.Short, mpiConst("MPI_", vs))
}

func (w fArgs) types(p datatype.Param, vs []string) string {
	return w.e.array("type(MPI_Datatype)", p.Short, vs)
}

func (w fArgs) order(o datatype.Order) string { return cOrder(o) }

func (w fArgs) ref(t *datatype.Type) string { return w.e.ref(t) }

var fortranKeywords = map[string]bool{"mpi_f08": true}

func isFortranName(s string) bool {
	if s == "" || len(s) > 46 || !isLetter(s[0]) || s[0] == '_' || fortranKeywords[strings.ToLower(s)] ||
		strings.HasPrefix(strings.ToLower(s), "mpi_") || strings.HasPrefix(strings.ToLower(s), "pmpi_") {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}
