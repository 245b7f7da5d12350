//go:build mpi

package mpi

import (
	"encoding/binary"

	"github.com/ddtlab/ddt/comm"
)

// Compact headers. A small message (Packed mode, data inline) carries a
// 56-byte header: its signature (hash, elements, bytes, uniform type), its
// communicator context and its source rank in that communicator. Sent
// again and again between two ranks, that header is the same, and on
// MPICH (ch4:ucx) a message of 80 bytes of data and 56 of header crosses
// a size above which the round trip costs 0.1–0.2 µs more (C: about
// 1.05–1.1 µs up to 92 bytes, 1.15–1.25 µs from 96 on; docs/comm-mpi.md,
// "Third pass").
//
// So the two sides of every pair keep a small table of the headers sent
// between them: the sender's view of what the receiver holds (out, per
// destination) and the receiver's copy (in, per source). A full inline
// header names the slot the receiver stores it in (word 4's upper half,
// slot+1; 0: none); once that header has left, the sender sends later
// messages with the same header as one 8-byte word instead (compactFlag,
// 31 check bits of the header, the slot) ahead of the data. The receiver
// takes headers in per source in the order MPI delivers them, which is
// the order they were sent (MPI's non-overtaking order on one
// communicator, and the header ring's posting order), so a compact
// header always finds the full header it refers to. Every check of the
// receive (signature, truncation, matching) runs on the header the slot
// holds, as on a full one.
//
// The slot of a header is fixed (a hash of it): a header that hashes to
// an occupied slot replaces it, the sender sending it in full. The
// sender's slot is invalid from the moment a full header naming it is
// sent until that send has completed without error (at once, as small
// sends do; one left in flight leaves the slot invalid), so no compact
// header refers to a slot whose full header may not have left.

const (
	// compactSize is the size of a compact header.
	compactSize = 8
	// compactFlag marks word 0 of a compact header; word 0 of a full one
	// is a signature hash, below 2^61 (package sig).
	compactFlag = uint64(1) << 63
	// compactSlots is the number of headers kept per pair and direction.
	compactSlots = 16
)

// compactKey is what a full inline header says.
type compactKey struct {
	sig comm.Signature
	ctx uint32
	src int // the sender's rank in the communicator of ctx
}

// mix is a hash of k: its slot and its check bits.
func (k *compactKey) mix() uint64 {
	h := k.sig.Sig.Hash ^ uint64(k.sig.Sig.N)*0x9e3779b97f4a7c15 ^ uint64(k.sig.Bytes)<<23 ^
		uint64(k.ctx)<<40 ^ uint64(int64(k.src))*0xc2b2ae3d27d4eb4f
	if k.sig.Sig.Uniform {
		h ^= uint64(k.sig.Sig.Basic+1) << 7
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// compactWord is the compact header of k in slot.
func compactWord(h uint64, slot int) uint64 {
	return compactFlag | (h>>33)<<32 | uint64(slot)
}

type compactEntry struct {
	k  compactKey
	ok bool
}

// compactTables are the per-pair tables, by world rank, allocated at the
// first small message between the pair. Guarded by world.mu.
type compactTables struct {
	out, in [][]compactEntry
	// messages sent and taken in with a compact header, for tests
	sent, recvd int64
}

func (t *compactTables) peer(tabs *[][]compactEntry, rank, size int) []compactEntry {
	if *tabs == nil {
		*tabs = make([][]compactEntry, size)
	}
	tb := (*tabs)[rank]
	if tb == nil {
		tb = make([]compactEntry, compactSlots)
		(*tabs)[rank] = tb
	}
	return tb
}

// parseCompact reads the compact header word w of a message of n bytes
// from world rank wsrc into in (the data follows the word); it reports
// false when the slot does not hold a header that fits (the message is
// then dropped, like any message that is not one of this package's).
func (w *world) parseCompact(in *incoming, word uint64, b []byte, wsrc, tag int) bool {
	if wsrc < 0 || wsrc >= w.size {
		return false
	}
	slot := int(word & 0xffffffff)
	tb := w.compact.peer(&w.compact.in, wsrc, w.size)
	if slot >= len(tb) || !tb[slot].ok {
		return false
	}
	k := &tb[slot].k
	if compactWord(k.mix(), slot) != word || k.sig.Bytes != int64(len(b)-compactSize) {
		return false
	}
	in.env.Context, in.env.Source, in.env.Tag = k.ctx, k.src, tag
	in.sig = k.sig
	in.dataTag = -1
	in.inline = b[compactSize:]
	w.compact.recvd++
	return true
}

// storeCompact keeps the full inline header in of world rank wsrc in the
// slot it names (store: slot+1, 0 for none).
func (w *world) storeCompact(in *incoming, store uint64) {
	if store == 0 || store > compactSlots || in.wsrc < 0 || in.wsrc >= w.size {
		return
	}
	tb := w.compact.peer(&w.compact.in, in.wsrc, w.size)
	tb[store-1] = compactEntry{k: compactKey{sig: in.sig, ctx: in.env.Context, src: in.env.Source}, ok: true}
}

// putCompact writes the compact header word into b.
func putCompact(b []byte, word uint64) { binary.LittleEndian.PutUint64(b, word) }
