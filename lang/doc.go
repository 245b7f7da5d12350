// Package lang implements the .ddt type description language of ddt: a
// small text language that describes one MPI derived datatype with the
// constructors, argument order and semantics of MPI-4.1 Chapter 5, so that
// MPI_Type_* calls can be transcribed line by line.
//
// A file is a sequence of statements, one per line; a statement either binds
// a name (row = contiguous(1000, int)) or is an unnamed expression, and the
// file's type is the value of the last statement:
//
//	# first row and first column of a 1000 x 1000 int matrix
//	row = contiguous(1000, int)
//	col = vector(999, 1, 1000, int)
//	struct([1, 1], [0, 4000], [row, col])
//
// Parse and ParseFile turn source into a *datatype.Type; every error is an
// *Error that names the file, line and column (for example
// "file.ddt:3:14: vector: negative count -1"), including the errors of the
// datatype constructors, which are reported at the constructor call. The
// parser never panics, whatever its input.
//
// Format prints any type back as a .ddt file (subtypes used more than once
// are bound to names t1, t2, ...), and Parse of that text gives a type equal
// (datatype.Equal) to the printed one.
//
// ExportC prints the MPI C calls that build a type, a block for pasting into
// MPI programs.
//
// The language is specified in type-language.md of the ddt specification.
package lang
