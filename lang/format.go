package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// Format prints t as a .ddt file that Parse reads back into a type equal to
// t (datatype.Equal). Predefined types print as their names; a derived
// subtype that t uses more than once (the same *Type) is bound once to a
// name t1, t2, ... in dependency order (as is every 100th level of a very
// deep tree), and the final line is the
// expression of t itself. The result ends with a newline.
func Format(t *datatype.Type) string {
	if t == nil {
		return ""
	}
	refs := map[*datatype.Type]int{}
	var order []*datatype.Type // derived nodes, children first
	var count func(*datatype.Type)
	count = func(u *datatype.Type) {
		if u.IsPredefined() {
			return
		}
		refs[u]++
		if refs[u] > 1 {
			return
		}
		for _, c := range u.Args().Types {
			count(c)
		}
		order = append(order, u)
	}
	count(t)
	names := map[*datatype.Type]string{}
	var b strings.Builder
	for _, u := range order {
		// Very deep chains are also cut into named pieces, so that no
		// expression nests deeper than the parser accepts.
		if u != t && (refs[u] > 1 || u.Depth()%100 == 0) {
			name := "t" + strconv.Itoa(len(names)+1)
			fmt.Fprintf(&b, "%s = %s\n", name, expr(u, names))
			names[u] = name
		}
	}
	b.WriteString(expr(t, names))
	b.WriteByte('\n')
	return b.String()
}

// FormatExpr prints t as a single .ddt expression, nesting every subtype
// inline (shared subtypes are repeated).
func FormatExpr(t *datatype.Type) string {
	if t == nil {
		return ""
	}
	return expr(t, nil)
}

func expr(t *datatype.Type, names map[*datatype.Type]string) string {
	if t.IsPredefined() {
		return t.Name()
	}
	var b strings.Builder
	writeExpr(&b, t, names)
	return b.String()
}

func writeExpr(b *strings.Builder, t *datatype.Type, names map[*datatype.Type]string) {
	if t.IsPredefined() {
		b.WriteString(t.Name())
		return
	}
	if n, ok := names[t]; ok {
		b.WriteString(n)
		return
	}
	a := t.Args()
	c := t.Combiner()
	b.WriteString(c.String())
	b.WriteByte('(')
	ints := func(v []int64) {
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(x, 10))
		}
		b.WriteByte(']')
	}
	list := func(n int, elem func(i int)) {
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			elem(i)
		}
		b.WriteByte(']')
	}
	for i, p := range c.Constructor().Params {
		if i > 0 {
			b.WriteString(", ")
		}
		switch p.Kind {
		case datatype.ArgCount, datatype.ArgInt, datatype.ArgAint:
			b.WriteString(strconv.FormatInt(a.Int(p), 10))
		case datatype.ArgCounts, datatype.ArgInts, datatype.ArgAints:
			ints(a.Ints(p))
		case datatype.ArgDargs:
			list(len(a.Dargs), func(i int) {
				if d := a.Dargs[i]; d == datatype.DefaultDarg {
					b.WriteString("default")
				} else {
					b.WriteString(strconv.FormatInt(d, 10))
				}
			})
		case datatype.ArgDistribs:
			list(len(a.Distribs), func(i int) { b.WriteString(a.Distribs[i].String()) })
		case datatype.ArgOrder:
			b.WriteString(a.Order.String())
		case datatype.ArgType:
			writeExpr(b, a.Types[0], names)
		case datatype.ArgTypes:
			list(len(a.Types), func(i int) { writeExpr(b, a.Types[i], names) })
		}
	}
	b.WriteByte(')')
}
