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
// The matching of messages to receives (envelopes, wildcards,
// non-overtaking order) and the argument checks are shared with the MPI
// transport (package comm/mpi) through an internal package.
package comm
