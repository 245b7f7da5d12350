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
package comm
