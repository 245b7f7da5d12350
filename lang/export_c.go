package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// ExportC returns the MPI C calls that build t into a variable called name:
// a block for pasting into an MPI program (C99) that declares
// "MPI_Datatype name;", builds every derived subtype in dependency order
// (a subtype t uses more than once is built once), frees the intermediate
// types and ends with "MPI_Type_commit(&name);". The caller owns name and
// frees it with MPI_Type_free; a predefined t is duplicated with
// MPI_Type_dup so that this holds for every type.
//
// The calls are the classic ones, with int counts and MPI_Aint byte
// displacements, which every MPI library has (the MPI-4 large-count "_c"
// variants are not used); ExportC returns an error if a value that MPI
// passes as an int does not fit in a C int, or if name is not a C
// identifier.
func ExportC(t *datatype.Type, name string) (string, error) {
	if t == nil {
		return "", fmt.Errorf("export C: nil type")
	}
	if err := checkCName(name); err != nil {
		return "", err
	}
	e := &cExporter{name: name, vars: map[*datatype.Type]string{}}
	// post-order over the DAG: children first, each node once
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
	var temps []string
	for _, u := range order {
		if u != t {
			v := fmt.Sprintf("%s_t%d", name, len(temps)+1)
			e.vars[u] = v
			temps = append(temps, v)
		}
	}
	e.vars[t] = name
	b := &e.b
	fmt.Fprintf(b, "/* %s: size %d, lb %d, extent %d, true lb %d, true extent %d (built by ddt) */\n",
		name, t.Size(), t.LB(), t.Extent(), t.TrueLB(), t.TrueExtent())
	fmt.Fprintf(b, "MPI_Datatype %s;\n{\n", name)
	for k := 0; k < len(temps); k += 8 {
		fmt.Fprintf(b, "    MPI_Datatype %s;\n", strings.Join(temps[k:min(k+8, len(temps))], ", "))
	}
	if t.IsPredefined() {
		fmt.Fprintf(b, "    MPI_Type_dup(%s, &%s);\n", cName(t), name)
	}
	for k, u := range order {
		e.n = k + 1
		if err := e.call(u); err != nil {
			return "", err
		}
	}
	for _, v := range temps {
		fmt.Fprintf(b, "    MPI_Type_free(&%s);\n", v)
	}
	fmt.Fprintf(b, "}\nMPI_Type_commit(&%s);\n", name)
	return b.String(), nil
}

type cExporter struct {
	name string
	vars map[*datatype.Type]string
	b    strings.Builder
	n    int // number of the current call, for array names
}

// cName is the C expression of a type: its MPI name or its variable.
func cName(t *datatype.Type) string {
	if !t.IsPredefined() {
		return ""
	}
	if b, ok := t.Basic(); ok {
		return b.CName()
	}
	switch t {
	case datatype.FloatInt:
		return "MPI_FLOAT_INT"
	case datatype.DoubleInt:
		return "MPI_DOUBLE_INT"
	case datatype.LongInt:
		return "MPI_LONG_INT"
	case datatype.TwoInt:
		return "MPI_2INT"
	case datatype.ShortInt:
		return "MPI_SHORT_INT"
	case datatype.LongDoubleInt:
		return "MPI_LONG_DOUBLE_INT"
	}
	return "MPI_DATATYPE_NULL"
}

func (e *cExporter) ref(t *datatype.Type) string {
	if t.IsPredefined() {
		return cName(t)
	}
	return e.vars[t]
}

// intArg checks that v fits in a C int.
func (e *cExporter) intArg(u *datatype.Type, what string, v int64) (string, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return "", fmt.Errorf("export C: %s %s = %d does not fit in a C int", u.Combiner(), what, v)
	}
	return strconv.FormatInt(v, 10), nil
}

// array declares a C array named <name>_<what><n> and returns its name. C
// has no empty arrays, so an empty list is declared with one unused element.
func (e *cExporter) array(ctype, what string, vals []string) string {
	v := fmt.Sprintf("%s_%s%d", e.name, what, e.n)
	if len(vals) == 0 {
		vals = []string{"0"}
		if ctype == "MPI_Datatype" {
			vals = []string{"MPI_DATATYPE_NULL"}
		}
	}
	fmt.Fprintf(&e.b, "    %s %s[%d] = {", ctype, v, len(vals))
	for i, x := range vals {
		if i > 0 {
			e.b.WriteString(",")
			if i%12 == 0 {
				e.b.WriteString("\n        ")
			} else {
				e.b.WriteString(" ")
			}
		}
		e.b.WriteString(x)
	}
	e.b.WriteString("};\n")
	return v
}

// aint is an MPI_Aint constant; the most negative 64-bit value has no
// literal in C.
func aint(v int64) string {
	if v == math.MinInt64 {
		return "(-9223372036854775807L - 1)"
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return strconv.FormatInt(v, 10) + "L"
	}
	return strconv.FormatInt(v, 10)
}

func (e *cExporter) call(u *datatype.Type) error {
	k := u.Combiner().Constructor()
	if k == nil || k.C == "" {
		return fmt.Errorf("export C: unsupported combiner %s", u.Combiner())
	}
	w := &cArgs{e: e, u: u}
	args := callArgs(u, k, k.CParams(), w)
	if w.err != nil {
		return w.err
	}
	fmt.Fprintf(&e.b, "    %s(%s, &%s);\n", k.C, strings.Join(args, ", "), e.vars[u])
	return nil
}

// cArgs writes the arguments of one C call; the first error stays.
type cArgs struct {
	e   *cExporter
	u   *datatype.Type
	err error
}

func (w *cArgs) int(p datatype.Param, v int64) string {
	s, err := w.e.intArg(w.u, p.Name, v)
	if w.err == nil {
		w.err = err
	}
	return s
}

func (w *cArgs) aint(v int64) string { return aint(v) }

func (w *cArgs) ints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = w.int(datatype.Param{Name: fmt.Sprintf("%s[%d]", p.Name, i)}, v)
	}
	return w.e.array("int", p.Short, s)
}

func (w *cArgs) aints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = aint(v)
	}
	return w.e.array("MPI_Aint", p.Short, s)
}

func (w *cArgs) consts(p datatype.Param, vs []string) string {
	return w.e.array("int", p.Short, mpiConst("MPI_", vs))
}

func (w *cArgs) types(p datatype.Param, vs []string) string {
	return w.e.array("MPI_Datatype", p.Short, vs)
}

func (w *cArgs) order(o datatype.Order) string { return cOrder(o) }

func (w *cArgs) ref(t *datatype.Type) string { return w.e.ref(t) }

func cOrder(o datatype.Order) string {
	if o == datatype.OrderFortran {
		return "MPI_ORDER_FORTRAN"
	}
	return "MPI_ORDER_C"
}

var cKeywords = map[string]bool{
	"auto": true, "break": true, "case": true, "char": true, "const": true, "continue": true,
	"default": true, "do": true, "double": true, "else": true, "enum": true, "extern": true,
	"float": true, "for": true, "goto": true, "if": true, "inline": true, "int": true, "long": true,
	"register": true, "restrict": true, "return": true, "short": true, "signed": true, "sizeof": true,
	"static": true, "struct": true, "switch": true, "typedef": true, "union": true, "unsigned": true,
	"void": true, "volatile": true, "while": true, "_Bool": true, "_Complex": true, "_Imaginary": true,
	"bool": true, "true": true, "false": true, "_Alignas": true, "_Alignof": true, "_Atomic": true,
	"_Generic": true, "_Noreturn": true, "_Static_assert": true, "_Thread_local": true,
}

// checkCName reports why name cannot be the variable of an exported type.
func checkCName(name string) error {
	q := strconv.Quote(clip(name))
	switch {
	case name == "":
		return fmt.Errorf("export C: empty variable name")
	case cKeywords[name]:
		return fmt.Errorf("export C: %s is a C keyword", q)
	case strings.HasPrefix(name, "MPI_") || strings.HasPrefix(name, "PMPI_"):
		return fmt.Errorf("export C: %s uses the prefix MPI_ or PMPI_, which the MPI standard reserves for its own names", q)
	}
	for i := 0; i < len(name); i++ {
		if !isLetter(name[i]) && !(i > 0 && isDigit(name[i])) {
			return fmt.Errorf("export C: %s is not a C identifier (letters, digits and _, not starting with a digit)", q)
		}
	}
	return nil
}
