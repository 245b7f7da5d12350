// Package comm moves typed data between ranks with MPI's point-to-point
// semantics: Send, Recv, Isend, Irecv, Wait/Test, Probe and Sendrecv over
// (buffer, count, type, peer, tag), with wildcards for source and tag,
// non-overtaking order between a pair of ranks, and a Status that reports
// source, tag, Count and Elements.
//
// A World of N ranks runs as goroutines in one process. Small messages are
// packed eagerly so the send returns at once; large ones travel as a
// pipeline of packets of a configurable size, packed by the sender and
// unpacked by the receiver with the resumable engine, two packets in flight.
//
// Every message carries the signature hash of its data and its number of
// basic elements. A receive whose type signature differs from the message
// fails with ErrType, and a message longer than the receive buffer with
// ErrTruncate; in both cases nothing is written to the receive buffer. A
// message shorter than the receive buffer is checked exactly against the
// prefix of the receive type's signature.
//
// # Errors instead of hangs and crashes
//
// World.Run returns, instead of hanging or crashing:
//   - a *PanicError for a rank function that panics, naming the rank;
//   - a *StuckError wrapping ErrDeadlock from every wait that can never
//     complete, as soon as every rank is blocked or finished, naming what
//     each rank waits for and the messages never received;
//   - a *StuckError wrapping ErrUnreceived when every rank has finished
//     and messages were never received or receives never matched.
//
// Every blocking call has a variant that gives up when a context is done
// (SendContext, RecvContext, ProbeContext, Request.WaitContext,
// WaitAllContext), and World.RunContext interrupts every wait of a run.
//
// # Reductions
//
// Reduce, Allreduce, ReduceScatter, ReduceScatterBlock, Scan and Exscan
// (interface Reductions, part of Collectives) and ReduceLocal combine
// the data of the ranks with an Op: MPI's predefined operations (Sum,
// Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, Minloc, Maxloc) or a
// user-defined one (NewOp, NewSliceOp).
//
// The data is count instances of a type, whose type map is a sequence of
// basic elements; the operation combines element i of every rank's data,
// in rank order (x_0 ∘ x_1 ∘ … ∘ x_{n-1}), whatever the layout. ddt packs
// each operand into its contiguous element stream, combines the streams
// and unpacks the result into the receive buffer, whose type needs only
// the same signature as the data it receives.
//
// A predefined operation applies to each element in that element's basic
// type, with the type groups of MPI-4.1 §6.9.2:
//
//	Sum, Prod:          C integers, multi-language (aint, offset, count), floating point, complex
//	Min, Max:           C integers, multi-language, floating point
//	Land, Lor, Lxor:    C integers, c_bool
//	Band, Bor, Bxor:    C integers, multi-language, byte
//	Minloc, Maxloc:     (value, int) pairs: float_int, double_int, long_int, 2int, short_int, long_double_int
//
// char and wchar take no operation. An element outside the operation's
// groups is an error naming the operation, the type and the element
// ("MPI_BAND is not defined on double: element 0 is double"). Minloc and
// Maxloc need the element stream to be (value, int) pairs with a value of
// a pair type's first member; on a tie they keep the smaller index.
//
// MPI-4.1 requires the datatype of a predefined operation to be a
// predefined type or, by common practice, built from one predefined type
// (or one pair type for MINLOC/MAXLOC). This package is more general and
// applies the operation element by element to any mix of basic types the
// operation is defined on, such as a struct of an int and a double summed
// field by field; portable MPI programs keep to one basic type, and on
// MPI (package comm/mpi) only that case is handed to the MPI library.
// long double is the x87 80-bit format, combined exactly at 64-bit
// precision with round-to-nearest-even (Go has no such type).
//
// A user operation is a Go function over the packed element streams
// (UserFunc), or over slices of a plain Go type that matches the packed
// elements (NewSliceOp: [4]float64 for 2x2 matrices of doubles). It is
// identified across ranks by its name and commutativity. Non-commutative
// operations are applied in rank order; so are commutative ones here.
//
// Every rank must give the same operation, data of the same signature,
// and the same root or counts. The reductions check this: each message
// of a reduction carries the sender's description of it, every
// description is compared, and a bad argument on any rank or a mismatch
// between ranks fails the reduction on every rank, with an error naming
// the rank and what differs; nothing is left pending and no receive
// buffer is written. The algorithms are a binomial tree to rank 0 and
// back (Reduce, Allreduce, ReduceScatter, which then sends each rank its
// block) and a chain through the ranks followed by a binomial tree back
// (Scan, Exscan): 2⌈log2 n⌉ message steps (n+⌈log2 n⌉ for the scans).
//
// The matching of messages to receives (envelopes, wildcards,
// non-overtaking order) and the argument checks are shared with the MPI
// transport (package comm/mpi) through an internal package.
package comm
