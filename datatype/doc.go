// Package datatype is the type tree of ddt: MPI derived datatypes built with
// the constructors of MPI-4.1 Chapter 5, their queries (size, extent, bounds,
// envelope and contents) and their type maps.
//
// A *Type is immutable once built and safe to share between goroutines. Every
// constructor validates its arguments and computes the type's bounds with
// overflow-checked 64-bit arithmetic, exactly as MPICH 4 does on x86-64 Linux
// (including the alignment padding of struct extents, negative strides and
// extents, zero-length blocks and size-0 types), so a bad argument is an error
// at construction and never a wrap-around later.
//
// The type map of count instances is available as a stream (Type.Walk,
// Type.Blocks) and is never materialized unless asked (Type.TypeMap).
//
// This package is the one shared representation of the pipeline: the .ddt
// language (package lang) parses into it, the engines (package ddt) commit and
// execute it, and the optimizers read and produce it.
package datatype
