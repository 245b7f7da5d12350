package datatype

import "slices"

// Contents are the arguments a type was built with, laid out as
// MPI_Type_get_contents returns them (with 64-bit integers): Ints holds the
// integer arguments (counts first, as MPI puts them), Addrs the byte
// displacements, strides, lb and extent, Types the old types. Order and
// distributions appear in Ints as their Order and Distrib values and
// DefaultDarg for a default distribution argument.
type Contents struct {
	Combiner Combiner
	Ints     []int64
	Addrs    []int64
	Types    []*Type
}

// Envelope is MPI_Type_get_envelope: the number of integers, addresses and
// types of Contents, and the combiner.
func (t *Type) Envelope() (ints, addrs, types int, c Combiner) {
	ct := t.Contents()
	return len(ct.Ints), len(ct.Addrs), len(ct.Types), ct.Combiner
}

// Contents is MPI_Type_get_contents: exactly the arguments t was built with,
// even when an engine later optimizes t. It is empty for predefined types.
func (t *Type) Contents() Contents {
	c := contents(t)
	c.Ints, c.Addrs, c.Types = slices.Clone(c.Ints), slices.Clone(c.Addrs), slices.Clone(c.Types)
	return c
}

// Scalars returns the count, blocklength and stride arguments of t as
// Args reports them, without building the rest of Args.
func (t *Type) Scalars() (count, blocklength, stride int64) {
	return t.count, t.blocklength, t.stride
}

// Lists returns the list arguments of an indexed, block-indexed or struct
// type as Args reports them (block lengths nil for block-indexed types),
// and its old types, without building the rest of Args.
func (t *Type) Lists() (blocklengths, displacements []int64, types []*Type) {
	bls, ds := t.lists()
	return bls, ds, t.types
}

// Old returns t's first old type (its only one, except for struct), or nil
// for a predefined type.
func (t *Type) Old() *Type {
	if len(t.types) == 0 {
		return nil
	}
	return t.types[0]
}

// Args returns the scalar and list arguments of t by their .ddt keyword,
// for printers. Lists and scalars that the combiner does not take are absent.
func (t *Type) Args() Args {
	x := t.ex()
	bls, displs := t.lists()
	var lb, extent int64 // resized: its lb and extent are the arguments
	if t.combiner == CombinerResized {
		lb, extent = t.lb, t.ub-t.lb
	}
	return Args{
		Count: t.count, Blocklength: t.blocklength, Stride: t.stride,
		Blocklengths: bls, Displacements: displs, Types: t.types,
		Sizes: x.sizes, Subsizes: x.subsizes, Starts: x.starts, Order: t.order,
		Size: x.nprocs, Rank: x.rank, Gsizes: x.gsizes, Distribs: x.distribs,
		Dargs: x.dargs, Psizes: x.psizes, LB: lb, Extent: extent,
	}
}

// Args are a type's constructor arguments by name (see Type.Args). Slices
// are shared with the type and must not be modified.
type Args struct {
	Count, Blocklength, Stride  int64
	Blocklengths, Displacements []int64
	Types                       []*Type
	Sizes, Subsizes, Starts     []int64
	Order                       Order
	Size, Rank                  int64
	Gsizes, Dargs, Psizes       []int64
	Distribs                    []Distrib
	LB, Extent                  int64
}

// Rebuild builds a new type from contents c, as a user would from
// MPI_Type_get_contents; Rebuild(t.Contents()) equals t.
func Rebuild(c Contents) (*Type, error) { return rebuild(c) }

// Equal reports whether a and b were built the same way from equal
// arguments (the same constructor tree), which implies equal layouts. It
// compares each pair of subtypes once, so shared subtypes (a DAG) cost
// O(nodes), not the size of the expanded tree.
func Equal(a, b *Type) bool {
	return equal(a, b, map[[2]*Type]bool{})
}

func equal(a, b *Type, done map[[2]*Type]bool) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.combiner != b.combiner {
		return false
	}
	if a.combiner == CombinerNamed {
		return a.ex().name == b.ex().name
	}
	if done[[2]*Type{a, b}] {
		return true // compared before and found equal: a difference ends the comparison
	}
	done[[2]*Type{a, b}] = true
	if a.depth != b.depth || a.size != b.size || a.lb != b.lb || a.ub != b.ub {
		return false
	}
	ca, cb := a.Contents(), b.Contents()
	if !slices.Equal(ca.Ints, cb.Ints) || !slices.Equal(ca.Addrs, cb.Addrs) || len(ca.Types) != len(cb.Types) {
		return false
	}
	for i := range ca.Types {
		if !equal(ca.Types[i], cb.Types[i], done) {
			return false
		}
	}
	return true
}
