package lang

import (
	"fmt"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// argWriter renders constructor arguments in one target language; the
// exports differ only in it, the order and kinds of the arguments come from
// the constructor table (datatype.Constructor).
type argWriter interface {
	int(p datatype.Param, v int64) string        // a C int
	aint(v int64) string                         // an MPI_Aint
	ints(p datatype.Param, vs []int64) string    // an array of C ints
	aints(p datatype.Param, vs []int64) string   // an array of MPI_Aint
	consts(p datatype.Param, vs []string) string // an array of C ints given as constants
	types(p datatype.Param, vs []string) string  // an array of MPI_Datatype
	order(o datatype.Order) string               // MPI_ORDER_C or MPI_ORDER_FORTRAN
	ref(t *datatype.Type) string                 // a type's name
}

// callArgs renders the arguments of the call that builds u, params being
// the constructor's parameters in the call's order (datatype.Constructor's
// CParams for C and Fortran).
func callArgs(u *datatype.Type, k *datatype.Constructor, params []datatype.Param, w argWriter) []string {
	a := u.Args()
	var out []string
	for _, p := range params {
		var s string
		switch p.Kind {
		case datatype.ArgCount, datatype.ArgInt:
			v := int64(0)
			if p.Name == k.Count.Name {
				v = int64(a.Len(k))
			} else {
				v = a.Int(p)
			}
			s = w.int(p, v)
		case datatype.ArgAint:
			s = w.aint(a.Int(p))
		case datatype.ArgCounts, datatype.ArgInts:
			s = w.ints(p, a.Ints(p))
		case datatype.ArgAints:
			s = w.aints(p, a.Ints(p))
		case datatype.ArgDistribs:
			ds := make([]string, len(a.Distribs))
			for i, d := range a.Distribs {
				ds[i] = "DISTRIBUTE_" + strings.ToUpper(d.String())
			}
			s = w.consts(p, ds)
		case datatype.ArgDargs:
			ds := make([]string, len(a.Dargs))
			for i, d := range a.Dargs {
				if d == datatype.DefaultDarg {
					ds[i] = "DISTRIBUTE_DFLT_DARG"
				} else {
					ds[i] = w.int(datatype.Param{Name: fmt.Sprintf("%s[%d]", p.Name, i)}, d)
				}
			}
			s = w.consts(p, ds)
		case datatype.ArgOrder:
			s = w.order(a.Order)
		case datatype.ArgType:
			s = w.ref(a.Types[0])
		case datatype.ArgTypes:
			ts := make([]string, len(a.Types))
			for i, t := range a.Types {
				ts[i] = w.ref(t)
			}
			s = w.types(p, ts)
		}
		out = append(out, s)
	}
	return out
}

// mpiConst prefixes the names of MPI constants that callArgs leaves bare.
func mpiConst(prefix string, vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if strings.HasPrefix(v, "DISTRIBUTE_") {
			v = prefix + v
		}
		out[i] = v
	}
	return out
}
