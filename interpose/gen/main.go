// Command gen writes interpose/lib/zconstruct.c, the C wrappers of the MPI
// datatype constructors, from the table below: each wrapper creates the
// type through PMPI and hands its arguments, laid out as
// MPI_Type_get_contents returns them, to the Go side. Run it with
// `go generate ./interpose`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

// ctor is one constructor. Ints, Addrs and Types list the arguments in
// MPI_Type_get_contents order: "x" is a scalar, "x[n]" an array of n
// elements, "f:x" converts through the C function ddt_f.
type ctor struct {
	name       string // the C name after MPI_
	combiner   string // DDT_ combiner of ddtgo.h
	params     string // the parameters before newtype
	ints       []string
	addrs      []string
	types      []string
	large      bool // an MPI-4 large-count form: only where mpi.h has it
	deprecated bool // removed from MPI-3: the headers may lack a prototype
}

const (
	bls     = "array_of_blocklengths[count]"
	displs  = "array_of_displacements[count]"
	oldtype = "oldtype"
)

var table = []ctor{
	{"Type_dup", "DDT_DUP", "MPI_Datatype oldtype", nil, nil, []string{oldtype}, false, false},
	{"Type_contiguous", "DDT_CONTIGUOUS", "int count, MPI_Datatype oldtype", []string{"count"}, nil, []string{oldtype}, false, false},
	{"Type_contiguous_c", "DDT_CONTIGUOUS", "MPI_Count count, MPI_Datatype oldtype", []string{"count"}, nil, []string{oldtype}, true, false},
	{"Type_vector", "DDT_VECTOR", "int count, int blocklength, int stride, MPI_Datatype oldtype",
		[]string{"count", "blocklength", "stride"}, nil, []string{oldtype}, false, false},
	{"Type_vector_c", "DDT_VECTOR", "MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype",
		[]string{"count", "blocklength", "stride"}, nil, []string{oldtype}, true, false},
	{"Type_create_hvector", "DDT_HVECTOR", "int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype",
		[]string{"count", "blocklength"}, []string{"stride"}, []string{oldtype}, false, false},
	{"Type_create_hvector_c", "DDT_HVECTOR", "MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype",
		[]string{"count", "blocklength"}, []string{"stride"}, []string{oldtype}, true, false},
	{"Type_hvector", "DDT_HVECTOR", "int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype",
		[]string{"count", "blocklength"}, []string{"stride"}, []string{oldtype}, false, true},
	{"Type_indexed", "DDT_INDEXED", "int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", bls, displs}, nil, []string{oldtype}, false, false},
	{"Type_indexed_c", "DDT_INDEXED", "MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", bls, displs}, nil, []string{oldtype}, true, false},
	{"Type_create_hindexed", "DDT_HINDEXED", "int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", bls}, []string{displs}, []string{oldtype}, false, false},
	{"Type_create_hindexed_c", "DDT_HINDEXED", "MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", bls}, []string{displs}, []string{oldtype}, true, false},
	{"Type_hindexed", "DDT_HINDEXED", "int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", bls}, []string{displs}, []string{oldtype}, false, true},
	{"Type_create_indexed_block", "DDT_INDEXED_BLOCK", "int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", "blocklength", displs}, nil, []string{oldtype}, false, false},
	{"Type_create_indexed_block_c", "DDT_INDEXED_BLOCK", "MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", "blocklength", displs}, nil, []string{oldtype}, true, false},
	{"Type_create_hindexed_block", "DDT_HINDEXED_BLOCK", "int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", "blocklength"}, []string{displs}, []string{oldtype}, false, false},
	{"Type_create_hindexed_block_c", "DDT_HINDEXED_BLOCK", "MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype",
		[]string{"count", "blocklength"}, []string{displs}, []string{oldtype}, true, false},
	{"Type_create_struct", "DDT_STRUCT", "int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[]",
		[]string{"count", bls}, []string{displs}, []string{"array_of_types[count]"}, false, false},
	{"Type_create_struct_c", "DDT_STRUCT", "MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[]",
		[]string{"count", bls}, []string{displs}, []string{"array_of_types[count]"}, true, false},
	{"Type_struct", "DDT_STRUCT", "int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[]",
		[]string{"count", bls}, []string{displs}, []string{"array_of_types[count]"}, false, true},
	{"Type_create_subarray", "DDT_SUBARRAY", "int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype",
		[]string{"ndims", "array_of_sizes[ndims]", "array_of_subsizes[ndims]", "array_of_starts[ndims]", "order:order"}, nil, []string{oldtype}, false, false},
	{"Type_create_subarray_c", "DDT_SUBARRAY", "int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype",
		[]string{"ndims", "array_of_sizes[ndims]", "array_of_subsizes[ndims]", "array_of_starts[ndims]", "order:order"}, nil, []string{oldtype}, true, false},
	{"Type_create_darray", "DDT_DARRAY", "int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype",
		[]string{"size", "rank", "ndims", "array_of_gsizes[ndims]", "distrib:array_of_distribs[ndims]", "darg:array_of_dargs[ndims]", "array_of_psizes[ndims]", "order:order"}, nil, []string{oldtype}, false, false},
	{"Type_create_darray_c", "DDT_DARRAY", "int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype",
		[]string{"size", "rank", "ndims", "array_of_gsizes[ndims]", "distrib:array_of_distribs[ndims]", "darg:array_of_dargs[ndims]", "array_of_psizes[ndims]", "order:order"}, nil, []string{oldtype}, true, false},
	{"Type_create_resized", "DDT_RESIZED", "MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent", nil, []string{"lb", "extent"}, []string{oldtype}, false, false},
	{"Type_create_resized_c", "DDT_RESIZED", "MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent", nil, []string{"lb", "extent"}, []string{oldtype}, true, false},
}

// argNames are the parameter names of a C parameter list.
func argNames(params string) []string {
	var names []string
	for _, p := range strings.Split(params, ",") {
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(p), "[]"))
		names = append(names, f[len(f)-1])
	}
	return names
}

// spec splits an argument spec into converter, expression and length.
func spec(s string) (conv, expr, n string) {
	if i := strings.Index(s, ":"); i >= 0 {
		conv, s = "ddt_"+s[:i], s[i+1:]
	}
	if i := strings.Index(s, "["); i >= 0 {
		return conv, s[:i], strings.TrimSuffix(s[i+1:], "]")
	}
	return conv, s, ""
}

// length is the C expression of the number of values specs put.
func length(specs []string) string {
	var terms []string
	k := 0
	for _, s := range specs {
		if _, _, n := spec(s); n != "" {
			terms = append(terms, "(int64_t)"+n)
		} else {
			k++
		}
	}
	terms = append(terms, fmt.Sprint(k))
	return strings.Join(terms, " + ")
}

func puts(b *bytes.Buffer, fn string, specs []string) {
	for _, s := range specs {
		conv, expr, n := spec(s)
		v := expr
		if n != "" {
			v = expr + "[i]"
		}
		if conv != "" {
			v = conv + "(" + v + ")"
		}
		if n == "" {
			fmt.Fprintf(b, "\t%s(&a, %s);\n", fn, v)
		} else {
			fmt.Fprintf(b, "\tfor (int64_t i = 0; i < (int64_t)%s; i++) %s(&a, %s);\n", n, fn, v)
		}
	}
}

func main() {
	out := flag.String("o", "lib/zconstruct.c", "output file")
	flag.Parse()
	var b bytes.Buffer
	b.WriteString(`//go:build ddtinterpose

// Code generated by interpose/gen; DO NOT EDIT.

// The MPI datatype constructors: each creates the type through PMPI, then
// hands its arguments to the Go side, which mirrors it as a ddt type.
#include "shim.h"

`)
	for _, c := range table {
		if c.deprecated {
			fmt.Fprintf(&b, "#undef MPI_%s\n#undef PMPI_%s\nint PMPI_%s(%s, MPI_Datatype *newtype);\n", c.name, c.name, c.name, c.params)
			fmt.Fprintf(&b, "int MPI_%s(%s, MPI_Datatype *newtype);\n", c.name, c.params)
		}
		if c.large {
			b.WriteString("#if MPI_VERSION >= 4\n")
		}
		fmt.Fprintf(&b, "int MPI_%s(%s, MPI_Datatype *newtype) {\n", c.name, c.params)
		fmt.Fprintf(&b, "\tint rc = PMPI_%s(%s, newtype);\n", c.name, strings.Join(argNames(c.params), ", "))
		b.WriteString("\tif (rc != MPI_SUCCESS || !ddt_on || !newtype) return rc;\n\tddt_args a;\n")
		fmt.Fprintf(&b, "\tddt_args_init(&a, %s, %s, %s);\n", length(c.ints), length(c.addrs), length(c.types))
		puts(&b, "ddt_put_int", c.ints)
		puts(&b, "ddt_put_addr", c.addrs)
		puts(&b, "ddt_put_type", c.types)
		fmt.Fprintf(&b, "\tddt_construct(%s, *newtype, &a);\n\treturn rc;\n}\n", c.combiner)
		if c.large {
			b.WriteString("#endif\n")
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(*out, bytes.TrimRight(b.Bytes(), "\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}
