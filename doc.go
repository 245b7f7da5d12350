// Package ddt packs and unpacks data described by MPI derived datatypes.
//
// Types are built with package datatype (or parsed from the .ddt language
// with package lang); Commit turns a type into a Committed type that packs
// count instances from a memory image into a contiguous byte stream, with
// MPI_Pack semantics on a homogeneous system (element bytes concatenated in
// type-map order), and unpacks such a stream back.
//
// Memory images are byte slices with an origin: the byte offset in the slice
// of displacement 0 of instance 0, so types with negative lower bounds work.
// Every call checks once, before writing any byte, that the bytes the type
// touches lie inside the caller's slices.
//
// Pack and Unpack take their arguments in the order of copy: destination,
// source, then the origin (always that of the memory image) and the count:
//
//	c.Pack(packed, image, origin, count)   // image → packed
//	c.Unpack(image, packed, origin, count) // packed → image
//
// Packer and Unpacker produce or consume a message in pieces of any size,
// splitting anywhere (inside an element too); the concatenation of the
// pieces equals a whole pack.
package ddt
