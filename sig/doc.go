// Package sig hashes MPI type signatures so that a receive can check, in
// constant space per message, that the basic types it expects are those
// that were sent (seed 004, W. Gropp, "Runtime Checking of Datatype
// Signatures in MPI").
//
// # The hash
//
// The type signature of a type is the sequence of its basic types in
// type-map order, pair types expanded to their members (double_int is
// (double, int)); layouts do not matter. Its hash is the monoid element
//
//	f(b_1, …, b_N) = (Σ code(b_i)·x^(i−1) mod 2^61−1, N)
//
// with the operation of seed 004 §3, (α, n) ⊕ (β, m) = (α + β·x^n, n + m):
// associative, not commutative, with identity (0, 0) (the zero Sig). The
// paper's choices of + and ≪ (xor or addition modulo 2^32, with rotation)
// are replaced by arithmetic modulo the Mersenne prime 2^61−1, a fixed
// random base x (a primitive root) and fixed random 61-bit codes per basic
// type. Two different signatures of at most n elements collide only if x is
// a root of their difference, a nonzero polynomial of degree below n: with
// probability at most n/(2^61−1). `ddt sig --experiment` (cmd/ddt/internal/sigexp)
// reproduces the paper's Table 1
// (its best operator still collided on 1.2% of its signatures; this one
// has no collision on any set tried). It also shows that the paper's
// addition modulo 2^32 with rotation is not associative — rotation does not
// distribute over a sum that carries out of bit 31 — so for those operators
// a hash computed from a type tree differs from the element-by-element one
// and correct programs would be flagged.
//
// # Computing it from the type tree
//
// Of never flattens a type. Because ⊕ is associative, count copies of a
// signature are Repeat(count), computed by doubling in O(log count) (the
// geometric series Σ x^(i·N)). A derived type with one old type (contiguous,
// vector, indexed, subarray, darray, resized, dup …) has the signature of
// Elements(t)/Elements(old) copies of old, whatever the layout; a struct
// combines its blocks. A type thus costs O(nodes · log count), each shared
// subtree once. Nothing is cached globally: a Tree (NewTree) keeps the
// signature of every subtree of one type for Prefix, Element and Match,
// and a committed type (ddt.Committed) computes its signature at commit
// and carries its Tree, the one source the communication packages use.
// OfCount adds the count in O(log count); 10^12 instances take
// microseconds.
//
// Prefix hashes the first k elements of count instances in O(depth · log):
// whole instances and whole children by Repeat, descending only into the
// child that holds element k (a binary search over a struct's blocks).
// Element finds the basic type of one element the same way.
//
// # Exactness
//
// A Sig records exactly whether all its elements are of one basic type
// (Uniform, Basic) — the (count, basic type) case of seed 004 Fig. 1, and
// the common one. Same decides exactly whenever either side is uniform or
// the element counts differ, and by the hash only when both sides mix
// types. Equal signatures always compare equal: a correct program is never
// flagged.
//
// # Matching rules
//
// Match(sent, recv, count) checks a message against a receive:
//
//   - more elements sent than the receive holds: *TruncationError;
//   - fewer: the message is compared with the prefix of the receive of its
//     length, so the partial receives of seed 004 §4 are checked exactly
//     instead of skipped;
//   - otherwise the signatures are compared as above; a *MismatchError
//     names the first differing element and both basic types when the
//     message is uniform, and MatchTypes, which has both type trees, finds
//     it by binary search on prefix hashes in every case.
//
// MPI_BYTE is a basic type with a reserved code, ByteCode (−1 modulo
// 2^61−1, after the paper's reserved value): bytes match bytes and nothing
// else, as MPI-4.1 §3.3.1 requires. MPI_PACKED is not a basic type: a packed
// buffer carries the signature of what was packed into it in its header
// (Packed). Pack appends to it; a message sending the buffer carries it and
// is matched against typed receives like any other; any message may be
// received as MPI_PACKED, and the buffer then carries the message's
// signature (Received); Unpack checks what it unpacks against the header,
// at once for a uniform header and when the buffer is used up otherwise.
// Packed bytes of unknown origin (Opaque) are not checked.
//
// # Format
//
// Format(s) is the hash as 16 hex digits, the HASH column of `ddt sig`
// (HASH ELEMENTS FILE) and the signature line of `ddt show`. The base and
// codes are fixed constants of this package: hashes are stable across runs,
// machines and versions.
package sig
