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
		a := u.Args()
		var old string
		if len(a.Types) > 0 {
			old = ref(a.Types[0])
		}
		var err error
		n := func(what string, v int64) string {
			if err == nil && (v < -1<<31 || v > 1<<31-1) {
				err = fmt.Errorf("export Python: %s %s = %d does not fit in a C int", u.Combiner(), what, v)
			}
			return strconv.FormatInt(v, 10)
		}
		ns := func(what string, vs []int64) string {
			s := make([]string, len(vs))
			for i, v := range vs {
				s[i] = n(fmt.Sprintf("%s[%d]", what, i), v)
			}
			return pyList(s)
		}
		addrs := func(vs []int64) string {
			s := make([]string, len(vs))
			for i, v := range vs {
				s[i] = strconv.FormatInt(v, 10)
			}
			return pyList(s)
		}
		var call string
		switch u.Combiner() {
		case datatype.CombinerContiguous:
			call = fmt.Sprintf("%s.Create_contiguous(%s)", old, n("count", a.Count))
		case datatype.CombinerVector:
			call = fmt.Sprintf("%s.Create_vector(%s, %s, %s)", old, n("count", a.Count), n("blocklength", a.Blocklength), n("stride", a.Stride))
		case datatype.CombinerHVector:
			call = fmt.Sprintf("%s.Create_hvector(%s, %s, %d)", old, n("count", a.Count), n("blocklength", a.Blocklength), a.Stride)
		case datatype.CombinerIndexed:
			call = fmt.Sprintf("%s.Create_indexed(%s, %s)", old, ns("blocklengths", a.Blocklengths), ns("displacements", a.Displacements))
		case datatype.CombinerHIndexed:
			call = fmt.Sprintf("%s.Create_hindexed(%s, %s)", old, ns("blocklengths", a.Blocklengths), addrs(a.Displacements))
		case datatype.CombinerIndexedBlock:
			call = fmt.Sprintf("%s.Create_indexed_block(%s, %s)", old, n("blocklength", a.Blocklength), ns("displacements", a.Displacements))
		case datatype.CombinerHIndexedBlock:
			call = fmt.Sprintf("%s.Create_hindexed_block(%s, %s)", old, n("blocklength", a.Blocklength), addrs(a.Displacements))
		case datatype.CombinerStruct:
			ts := make([]string, len(a.Types))
			for k, t := range a.Types {
				ts[k] = ref(t)
			}
			call = fmt.Sprintf("MPI.Datatype.Create_struct(%s, %s, %s)", ns("blocklengths", a.Blocklengths), addrs(a.Displacements), pyList(ts))
		case datatype.CombinerSubarray:
			call = fmt.Sprintf("%s.Create_subarray(%s, %s, %s, order=%s)", old, ns("sizes", a.Sizes), ns("subsizes", a.Subsizes),
				ns("starts", a.Starts), pyOrder(a.Order))
		case datatype.CombinerDarray:
			ds := make([]string, len(a.Distribs))
			for k, d := range a.Distribs {
				ds[k] = "MPI.DISTRIBUTE_" + strings.ToUpper(d.String())
			}
			dargs := make([]string, len(a.Dargs))
			for k, d := range a.Dargs {
				if d == datatype.DefaultDarg {
					dargs[k] = "MPI.DISTRIBUTE_DFLT_DARG"
				} else {
					dargs[k] = n(fmt.Sprintf("dargs[%d]", k), d)
				}
			}
			call = fmt.Sprintf("%s.Create_darray(%s, %s, %s, %s, %s, %s, order=%s)", old, n("size", a.Size), n("rank", a.Rank),
				ns("gsizes", a.Gsizes), pyList(ds), pyList(dargs), ns("psizes", a.Psizes), pyOrder(a.Order))
		case datatype.CombinerResized:
			call = fmt.Sprintf("%s.Create_resized(%d, %d)", old, a.LB, a.Extent)
		case datatype.CombinerDup:
			call = fmt.Sprintf("%s.Dup()", old)
		default:
			return "", fmt.Errorf("export Python: unsupported combiner %s", u.Combiner())
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "    %s = %s\n", vars[u], call)
	}
	for _, v := range temps {
		fmt.Fprintf(&b, "    %s.Free()\n", v)
	}
	fmt.Fprintf(&b, "    %s.Commit()\n    return %s\n", name, name)
	return b.String(), nil
}

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
