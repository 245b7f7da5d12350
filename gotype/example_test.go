package gotype_test

import (
	"fmt"
	"strings"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/gotype"
)

// Packing every third float64 of a slice: no unsafe in sight.
func ExampleBytes() {
	data := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}
	t, _ := datatype.Vector(3, 1, 3, datatype.Of(datatype.Double))
	c, _ := ddt.Commit(t)
	packed := make([]float64, 3)
	if _, err := c.Pack(gotype.Bytes(packed), gotype.Bytes(data), 0, 1); err != nil {
		panic(err)
	}
	fmt.Println(packed)
	// Output: [0 3 6]
}

// Particle is laid out by the Go compiler with padding after Charge.
type Particle struct {
	Charge int8
	Pos    [3]float64
	ID     uint32
}

// The datatype of a Go struct, derived from its layout, moves a []Particle.
func ExampleType() {
	t, err := gotype.Type[Particle]()
	if err != nil {
		panic(err)
	}
	fmt.Println("size", t.Size(), "extent", t.Extent())
	var fields []string
	for b, d := range t.All(1) {
		fields = append(fields, fmt.Sprint(b, "@", d))
	}
	fmt.Println(strings.Join(fields, " "))

	ps := []Particle{{1, [3]float64{1, 2, 3}, 7}, {-1, [3]float64{4, 5, 6}, 8}}
	src, _ := gotype.AnyBytes(ps)
	c, _ := ddt.Commit(t)
	packed := make([]byte, 2*t.Size())
	c.Pack(packed, src, 0, 2)

	got := make([]Particle, 2)
	dst, _ := gotype.AnyBytes(got)
	c.Unpack(dst, packed, 0, 2)
	fmt.Println(got)
	// Output:
	// size 29 extent 40
	// int8_t@0 double@8 double@16 double@24 uint32_t@32
	// [{1 [1 2 3] 7} {-1 [4 5 6] 8}]
}

// Fields that hold addresses have no datatype.
func ExampleTypeOf() {
	type Named struct {
		Value float64
		Name  string
	}
	_, err := gotype.Type[Named]()
	fmt.Println(err)
	// Output: gotype: gotype_test.Named.Name is a string (string), not plain data: only numbers, booleans, arrays and structs of them have an MPI datatype
}
