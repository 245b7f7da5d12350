// Package external32 packs and unpacks data in MPI's canonical "external32"
// data representation (MPI-4.1 §5.2.4 MPI_Pack_external, §14.5.2): every
// basic element in big-endian byte order with the sizes of MPI's external32
// table, so that the bytes mean the same on every machine.
//
// A Codec wraps a ddt.Committed type: Pack, Unpack and PackSize are
// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size, and
// Packer and Unpacker produce or consume the message in pieces of any size,
// as ddt.Packer and ddt.Unpacker do for the native representation.
//
// Memory images are x86-64 Linux images, as everywhere in ddt (little-endian,
// LP64 sizes), whatever machine the library runs on.
//
// # Representation
//
// Where MPI-4.1 leaves room, this package does what MPICH 4 does on x86-64
// (checked byte for byte against MPICH's MPI_Pack_external by the
// conformance test in internal/conformance):
//
//   - long and unsigned_long are 4 bytes in external32: packing keeps the
//     low 32 bits, unpacking sign-extends long and zero-extends
//     unsigned_long to 8 bytes.
//   - aint, offset and count are 8 bytes; c_bool and the 1-byte types are
//     copied unchanged.
//   - long_double (x87 80-bit extended precision in a 16-byte slot) is 16
//     bytes in external32: IEEE 754 binary128, converted as C's
//     (__float128)x does (exact; the explicit integer bit is dropped).
//     Unpacking converts back as (long double)q does, rounding the 112-bit
//     fraction to 63 bits to nearest-even; it writes the 10 significant
//     bytes and zeroes the 6 padding bytes of the slot (MPICH leaves them
//     as they were; MPI does not specify them).
//   - complex types are two floating-point numbers, each converted on its
//     own: c_float_complex 8 bytes, c_double_complex 16,
//     c_long_double_complex 32 (two binary128).
//   - wchar is 2 bytes, as MPI's external32 table says and as MPICH's
//     MPI_Pack_external_size reports (MPICH 4.0 aborts when it packs wchar):
//     packing keeps the low 16 bits, unpacking zero-extends them.
//   - pair types (float_int, double_int, ...) are their two members, each
//     converted on its own: double_int is 12 bytes (MPICH 4.0 reports
//     size 0 for pair types and aborts when it packs them).
//   - types that mix basic types (structs) are converted element by element
//     in type-map order (MPICH 4.0 supports only types built from a single
//     basic type and aborts on the others).
//
// The Fortran basic types are not part of ddt's type language, so they have
// no external32 form here.
//
// Open MPI 4.1 differs from both MPI's table and MPICH: it packs long and
// unsigned_long as 8 bytes (go test ./internal/conformance
// -conformance.openmpi logs its differences).
package external32
