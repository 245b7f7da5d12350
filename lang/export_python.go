package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// ExportPython returns Python code for mpi4py that builds t: a function
// "ddt_build_<name>()" that returns the committed type (the caller frees it
// with Free()), building every derived subtype in dependency order (a
// subtype used more than once is built once) and freeing the intermediate
// types. Predefined types are the mpi4py names (MPI.INT, MPI.DOUBLE,
// MPI.TWOINT, ...); a predefined t is duplicated with Dup() so that the
// caller owns the result in every case. The code imports MPI from mpi4py
// and nothing else. mpi4py passes counts as C ints: ExportPython returns
// an error if a count does not fit in 32 bits, or if name is not a Python
// identifier.
func ExportPython(t *datatype.Type, name string) (string, error) {
	if t == nil {
		return "", fmt.Errorf("export Python: nil type")
	}
	if !isPythonName(name) {
		return "", fmt.Errorf("export Python: %q is not a Python identifier", name)
	}
	order := postOrder(t)
	vars := map[*datatype.Type]string{}
	var temps []string
	for _, u := range order {
		if u != t {
			v := fmt.Sprintf("t%d", len(temps)+1)
			vars[u] = v
			temps = append(temps, v)
		}
	}
	vars[t] = name
	ref := func(u *datatype.Type) string {
		if u.IsPredefined() {
			return pyName(u)
		}
		return vars[u]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: size %d, lb %d, extent %d, true lb %d, true extent %d (built by ddt)\n",
		name, t.Size(), t.LB(), t.Extent(), t.TrueLB(), t.TrueExtent())
	fmt.Fprintf(&b, "from mpi4py import MPI\n\n\ndef ddt_build_%s():\n", name)
	if t.IsPredefined() {
		fmt.Fprintf(&b, "    %s = %s.Dup()\n", name, pyName(t))
	}
	for _, u := range order {
		k := u.Combiner().Constructor()
		if k == nil || k.Python == "" {
			return "", fmt.Errorf("export Python: unsupported combiner %s", u.Combiner())
		}
		w := &pyArgs{u: u, name: ref}
		var params []datatype.Param
		recv := "MPI.Datatype" // a class method where there is no one old type
		for _, p := range k.Params {
			if p.Kind == datatype.ArgType {
				recv = ref(u.Args().Types[0])
				continue
			}
			params = append(params, p)
		}
		call := fmt.Sprintf("%s.%s(%s)", recv, k.Python, strings.Join(callArgs(u, k, params, w), ", "))
		if w.err != nil {
			return "", w.err
		}
		fmt.Fprintf(&b, "    %s = %s\n", vars[u], call)
	}
	for _, v := range temps {
		fmt.Fprintf(&b, "    %s.Free()\n", v)
	}
	fmt.Fprintf(&b, "    %s.Commit()\n    return %s\n", name, name)
	return b.String(), nil
}

// pyArgs writes the arguments of one mpi4py call: lists inline, the
// order as a keyword argument; the first error stays.
type pyArgs struct {
	u    *datatype.Type
	name func(*datatype.Type) string
	err  error
}

func (w *pyArgs) ref(t *datatype.Type) string { return w.name(t) }

func (w *pyArgs) int(p datatype.Param, v int64) string {
	if w.err == nil && (v < -1<<31 || v > 1<<31-1) {
		w.err = fmt.Errorf("export Python: %s %s = %d does not fit in a C int", w.u.Combiner(), p.Name, v)
	}
	return strconv.FormatInt(v, 10)
}

func (w *pyArgs) aint(v int64) string { return strconv.FormatInt(v, 10) }

func (w *pyArgs) ints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = w.int(datatype.Param{Name: fmt.Sprintf("%s[%d]", p.Name, i)}, v)
	}
	return pyList(s)
}

func (w *pyArgs) aints(p datatype.Param, vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return pyList(s)
}

func (w *pyArgs) consts(p datatype.Param, vs []string) string { return pyList(mpiConst("MPI.", vs)) }

func (w *pyArgs) types(p datatype.Param, vs []string) string { return pyList(vs) }

func (w *pyArgs) order(o datatype.Order) string { return "order=" + pyOrder(o) }

// pyName is the mpi4py name of a predefined type.
func pyName(t *datatype.Type) string {
	if t == datatype.TwoInt {
		return "MPI.TWOINT"
	}
	return "MPI." + strings.TrimPrefix(mpiName(t), "MPI_")
}

func pyOrder(o datatype.Order) string {
	if o == datatype.OrderFortran {
		return "MPI.ORDER_FORTRAN"
	}
	return "MPI.ORDER_C"
}

// pyList is a Python list literal, broken into lines of 12 values.
func pyList(vals []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(",")
			if i%12 == 0 {
				b.WriteString("\n        ")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
	return b.String()
}

var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
	"MPI": true,
}

// isPythonName accepts ASCII identifiers that are not keywords, MPI, or
// the temporaries' names t1, t2, ...
func isPythonName(s string) bool {
	if s == "" || pyKeywords[s] || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	if s[0] == 't' && len(s) > 1 {
		if _, err := strconv.Atoi(s[1:]); err == nil {
			return false
		}
	}
	return true
}
