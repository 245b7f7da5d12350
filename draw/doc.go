// Package draw makes pictures of a datatype's memory layout: which bytes
// of the memory image count instances of a type cover, colored by basic
// type, with the gaps, lb/ub and true bounds marked and the order in which
// the bytes go into the packed stream.
//
// Layout lays a type out as a grid of cells (rows wrap at the row length
// of the type's innermost vector or subarray, so a halo face of a matrix
// looks like one); Picture.SVG renders it as a standalone SVG document and
// Picture.Text as characters for a terminal. Large types are aggregated:
// a cell stands for many bytes and many rows and shows how much of it is
// covered, and the work is bounded by Options.Budget and the size of the
// type's description, never by the number of elements, so a type of
// millions of elements draws in milliseconds.
package draw
