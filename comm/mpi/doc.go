// Package mpi is the real-MPI transport of package comm: the same
// point-to-point API (comm.Communicator) over MPI_COMM_WORLD through cgo,
// for programs that outgrow one machine. It is built only with the build
// tag mpi; the default build needs no MPI.
//
// Open MPI is the default (pkg-config ompi-c); add the tag mpich to build
// against MPICH (pkg-config mpich):
//
//	go build -tags mpi ./...          # Open MPI
//	go build -tags mpi,mpich ./...    # MPICH
//	mpirun -np 4 ./program
//
// Open MPI is found with pkg-config (ompi-c) and MPICH with pkg-config
// (mpich). Where MPI has no pkg-config file (Cray MPICH, Intel MPI,
// MVAPICH, Spack), take the flags from the compiler wrapper and add the
// tag mpicc:
//
//	eval "$(sh comm/mpi/cgoflags.sh mpicc)"   # sets CGO_CFLAGS, CGO_LDFLAGS
//	go build -tags mpi,mpicc ./...
//
// Init starts MPI and returns the communicator of this process's rank;
// Finalize ends it and frees every MPI datatype made along the way.
//
// # API
//
// The API is built only with the tag mpi, so that go doc shows it only
// then (go doc -tags mpi ./comm/mpi); in short:
//
//	func Init(opts Options) (*Comm, error)      // MPI_Init_thread, MPI_COMM_WORLD
//	func Launched() bool                        // started by mpirun?
//	func ParseMode(name string) (Mode, error)   // "packed", "native", "raw"
//	const MaxInline                             // largest message inside its header
//	var/const Library string                    // "Open MPI", "MPICH"
//	type Options struct{ Mode Mode; InlineLimit int }
//	type Mode                                   // Packed, Native, Raw
//	type Error struct{ Op string; Code int }    // an MPI error code
//
//	type Comm   // implements comm.Communicator, safe for concurrent use
//	  Rank, Size, Mode, WithMode, WithInlineLimit
//	  Send, Recv, Isend, Irecv, Sendrecv, Probe, Iprobe
//	  SendContext, RecvContext, ProbeContext    // give up when a context is done
//	  Barrier, Bcast, Gather, Gatherv, Scatter, Scatterv, Allgather,
//	  Alltoall, Alltoallv, Alltoallw            // comm.Collectives
//	  Reduce, Allreduce, ReduceScatter,
//	  ReduceScatterBlock, Scan, Exscan          // comm.Reductions
//	  Split(color, key int) (*Comm, error)      // MPI_Comm_split
//	  CPingPong(n, iters int)                   // C baseline of a ping-pong
//	  Finalize, FinalizeContext
//
// Requests are comm.Request: Wait, WaitContext and Test, which returns
// (Status, ok, error) like Iprobe.
//
// # Modes
//
// A Comm sends in one of three modes (Options.Mode, Comm.WithMode):
//
//   - Packed: ddt packs the data and MPI moves bytes. A message travels as a
//     header (signature hash, element count, packed size) with the packed
//     data inline when it is small, or as the header followed by a data
//     message.
//   - Native: the type is handed to MPI as a native datatype built from the
//     type tree with MPI_Type_create_* (cached per *datatype.Type, freed at
//     Finalize), and MPI moves the data from and to the Go buffer without
//     ddt packing it. The header travels first, as in Packed mode.
//   - Raw: the native datatype and nothing else, exactly as a C program
//     would call MPI: no header, no signature checks, MPI's own matching.
//
// Packed and Native interoperate: the receiver's mode decides how the data
// lands. In both, the receiver matches headers itself with MPI's rules
// (posting order, non-overtaking order per sender, wildcards), checks the
// signature exactly as package comm does, and on a mismatch or truncation
// drains the data into scratch memory and returns comm.ErrType or
// comm.ErrTruncate with the receive buffer untouched. Raw messages are a
// separate world: they match only Raw receives.
//
// # Large messages
//
// Packed data over 2^31-1 bytes travels as one message with the MPI-4
// large-count calls (MPI_Isend_c, MPI_Irecv_c) when the library has them
// (MPICH 4), and as one instance of a derived datatype of that many bytes
// otherwise (Open MPI 4.1). Native sends count instances of the type, at
// most 2^31-1; more are sent packed.
//
// # Zero-copy data messages
//
// A data message (every message above the inline limit in Packed mode,
// every message in Native mode) of a type whose contiguous runs average
// at least Options.Direct bytes (DefaultDirect, 512; Comm.WithDirect) goes
// without packing: MPI moves it from and into the pinned Go buffer
// through a datatype built once per type from ddt's runs of one instance
// (Committed.Segments): an hvector of regular runs or an hindexed, of the
// widest unsigned integer dividing every run, offset, lb and extent,
// resized to the type's bounds, checked against ddt's reference engine
// with MPI_Pack before first use. It moves exactly the packed stream's
// bytes, so sender and receiver decide independently; a receive goes
// directly only when the message fills it (a shorter message, a prefix,
// is staged). Header, signature check, truncation and fault handling are
// the same as for staged messages.
//
// # Pipelined data messages
//
// A staged data message (not zero-copy, not Native) of at least
// Options.PipeMin bytes (DefaultPipeMin, 512 KiB) travels in packets of
// Options.Packet bytes (DefaultPacket, 64 KiB; Comm.WithPipeline; the
// environment variables DDT_MPI_PACKET, DDT_MPI_PIPE_MIN and
// DDT_MPI_PIPE_WINDOW override the defaults) under its one data tag: the
// sender packs a packet while the earlier ones are in flight, the
// receiver unpacks each as it arrives, with at most 4 packets in flight
// on each side. The header carries the packet size, so each side decides
// alone; a receive that would have gone directly or natively stages a
// packetized message. Checks are the header's, as for every data message.
//
// # Reductions
//
// On the world communicator (the Comm of Init and its WithMode copies),
// every reduction first runs one MPI_Iallreduce (MPI_MAX over 34 long
// longs, on the collectives' MPI communicator) in which every rank
// contributes its description of the reduction (which one, the
// operation, the signature of its data, root and counts) and whether its
// arguments are good and MPI can do it. If every rank agrees and MPI can
// do it, ddt packs the data into a contiguous buffer of its basic type,
// MPI reduces it with MPI_Ireduce, MPI_Iallreduce, MPI_Ireduce_scatter,
// MPI_Ireduce_scatter_block, MPI_Iscan or MPI_Iexscan and the predefined
// MPI_Op, and ddt unpacks the result. Otherwise package comm's reductions
// run over this transport's point-to-point messages: ddt reduces, and
// reports bad arguments and mismatches on every rank.
//
// MPI does it when the operation is predefined, the elements are all of
// one basic type on which the operation is defined (for MINLOC and
// MAXLOC: all (value, int) pairs of one pair type, which are moved
// between ddt's packed form and MPI's struct layout), and there are at
// most 2^31-1 of them. ddt does the rest: mixed basic types, user
// operations, MIN and MAX
// on unsigned integers and on MPI_AINT, MPI_OFFSET and MPI_COUNT (MPICH
// 4.0.2 compares unsigned integers as signed, pmodels/mpich#6083; Open
// MPI 4.1.2-4.1.4 compares MPI_UNSIGNED_LONG as signed,
// open-mpi/ompi#10525, and this machine's 4.1.4 MPI_OFFSET as unsigned),
// and every reduction on a communicator made by Split, which shares its
// MPI communicators with the world.
//
// # Finalize
//
// Finalize first makes every rank tell every other how many messages it
// sent it; every message sent is then taken in, those never received are
// drained into scratch memory, and Finalize returns a *comm.StuckError
// wrapping comm.ErrUnreceived that names them, on the receiving rank
// (source, tag, bytes) and on the sending one, instead of blocking forever.
// FinalizeContext bounds the wait for the other ranks. The blocking calls
// have context variants (SendContext, RecvContext, ProbeContext,
// Request.WaitContext): a receive not yet matched is withdrawn (Raw
// receives are cancelled with MPI_Cancel).
//
// # Progress and threads
//
// MPI is initialized with MPI_THREAD_MULTIPLE (at least
// MPI_THREAD_SERIALIZED is required) and every MPI call is made under one
// mutex without blocking inside MPI. Progress is made by whoever waits:
// Wait, Test, Probe and the blocking calls poll every pending operation of
// the process, so an Irecv posted earlier completes while another request
// is waited for.
//
// # Memory
//
// Buffers are checked by ddt (Committed.CheckBuffer) before MPI sees
// them. Packed data is staged in C memory, from pools of power-of-two
// buffers; in Native and Raw mode the Go buffer is pinned (runtime.Pinner)
// until the operation completes, and MPI is given its base address and
// the origin offset.
//
// # Small messages
//
// A message of Packed mode up to the inline limit travels as one MPI
// message, its header followed by its packed data. The blocking Send and
// Recv of such a message allocate nothing and make one cgo call each when
// MPI is quick: Send packs into a pooled C buffer and calls MPI_Isend and
// MPI_Test together (small messages complete at once); Recv posts a pooled
// receive record, and the poll that waits for the header (which also
// posts the header receive taken in before) matches it, checks the
// signature (a whole-message signature from a small cache) and unpacks
// the data straight from the header buffer it arrived in. See
// docs/comm-mpi.md for the measurements.
package mpi

//go:generate go run ./gen -o zconstruct.h
