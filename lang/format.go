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
	num := func(x int64) { b.WriteString(strconv.FormatInt(x, 10)) }
	sep := func() { b.WriteString(", ") }
	old := func() { writeExpr(b, a.Types[0], names) }
	switch c {
	case datatype.CombinerContiguous:
		num(a.Count)
		sep()
		old()
	case datatype.CombinerVector, datatype.CombinerHVector:
		num(a.Count)
		sep()
		num(a.Blocklength)
		sep()
		num(a.Stride)
		sep()
		old()
	case datatype.CombinerIndexed, datatype.CombinerHIndexed:
		ints(a.Blocklengths)
		sep()
		ints(a.Displacements)
		sep()
		old()
	case datatype.CombinerIndexedBlock, datatype.CombinerHIndexedBlock:
		num(a.Blocklength)
		sep()
		ints(a.Displacements)
		sep()
		old()
	case datatype.CombinerStruct:
		ints(a.Blocklengths)
		sep()
		ints(a.Displacements)
		sep()
		b.WriteByte('[')
		for i, u := range a.Types {
			if i > 0 {
				sep()
			}
			writeExpr(b, u, names)
		}
		b.WriteByte(']')
	case datatype.CombinerSubarray:
		ints(a.Sizes)
		sep()
		ints(a.Subsizes)
		sep()
		ints(a.Starts)
		sep()
		b.WriteString(a.Order.String())
		sep()
		old()
	case datatype.CombinerDarray:
		num(a.Size)
		sep()
		num(a.Rank)
		sep()
		ints(a.Gsizes)
		sep()
		b.WriteByte('[')
		for i, d := range a.Distribs {
			if i > 0 {
				sep()
			}
			b.WriteString(d.String())
		}
		b.WriteString("], [")
		for i, d := range a.Dargs {
			if i > 0 {
				sep()
			}
			if d == datatype.DefaultDarg {
				b.WriteString("default")
			} else {
				num(d)
			}
		}
		b.WriteString("], ")
		ints(a.Psizes)
		sep()
		b.WriteString(a.Order.String())
		sep()
		old()
	case datatype.CombinerResized:
		old()
		sep()
		num(a.LB)
		sep()
		num(a.Extent)
	case datatype.CombinerDup:
		old()
	}
	b.WriteByte(')')
}
