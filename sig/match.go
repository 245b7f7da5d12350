package sig

import (
	"errors"
	"fmt"

	"github.com/ddtlab/ddt/datatype"
)

// TruncationError reports a message with more basic elements than the
// receive can hold (MPI_ERR_TRUNCATE).
type TruncationError struct {
	Sent     int64 // elements in the message
	Capacity int64 // elements the receive holds
}

// Error names both element counts.
func (e *TruncationError) Error() string {
	return fmt.Sprintf("sig: message truncated: %d elements sent, the receive holds %d", e.Sent, e.Capacity)
}

// MismatchError reports a message whose type signature differs from the
// signature of the first Sent.N elements of the receive.
type MismatchError struct {
	Sent     Sig // the message's signature
	Expected Sig // the signature of the first Sent.N elements of the receive
	// Exact is true when the mismatch is certain (a uniform signature was
	// involved or the two types were compared), false when it rests on the
	// hash alone (it is then still certain: equal sequences never hash
	// differently).
	Exact bool
	// Index is the first element that differs, or −1 if unknown; SentBasic
	// and RecvBasic are its basic types when known (Known).
	Index                int64
	Known                bool
	SentBasic, RecvBasic datatype.Basic
}

// Error names the first differing element and its basic types when they are
// known, the two signatures otherwise.
func (e *MismatchError) Error() string {
	switch {
	case e.Known:
		return fmt.Sprintf("sig: type signature mismatch at element %d: sent %v, the receive expects %v",
			e.Index, e.SentBasic, e.RecvBasic)
	case e.Index >= 0:
		return fmt.Sprintf("sig: type signature mismatch at element %d (sent %v, the receive expects %v)",
			e.Index, e.Sent, e.Expected)
	}
	return fmt.Sprintf("sig: type signature mismatch: sent %v, the first %d elements of the receive are %v",
		e.Sent, e.Sent.N, e.Expected)
}

// Match checks a message of signature sent, received into count instances
// of recv, by the rules of MPI-4.1 §3.3.1 and seed 004:
//
//   - a message longer than the receive is a *TruncationError;
//   - a message shorter than the receive is checked against the prefix of
//     the receive of the same length (Prefix), so partial receives are
//     checked too;
//   - a uniform message or receive prefix (count × one basic type, seed 004
//     Fig. 1) is decided exactly, and a mismatch then names the first
//     differing element; other signatures are compared by hash;
//   - MPI_BYTE is a basic type like any other with a reserved code
//     (ByteCode): bytes match bytes and nothing else.
//
// A mismatch is a *MismatchError. An invalid sent (see Valid) is an error.
// For messages sent or received as MPI_PACKED, see Packed.
//
// Match builds recv's Tree; a committed type carries one (use its Match).
func Match(sent Sig, recv *datatype.Type, count int64) error {
	if recv == nil {
		return fmt.Errorf("sig: nil type")
	}
	return NewTree(recv).Match(sent, count)
}

// Match checks a message of signature sent against a receive of count
// instances of the tree's type (see the function Match).
func (tb *Tree) Match(sent Sig, count int64) error {
	if err := sent.Valid(); err != nil {
		return err
	}
	v, capa, err := tb.instances(count)
	if err != nil {
		return err
	}
	if sent.N > capa {
		return &TruncationError{Sent: sent.N, Capacity: capa}
	}
	want, err := tb.prefix(v, capa, sent.N)
	if err != nil {
		return err
	}
	same, exact := sent.Same(want)
	if same {
		return nil
	}
	e := &MismatchError{Sent: sent, Expected: want, Exact: exact, Index: -1}
	switch {
	case sent.Uniform:
		// the first element of the receive that is not sent.Basic
		e.Index = tb.firstNot(count, sent.N, sent.Basic)
		e.SentBasic, e.Known = sent.Basic, true
		e.RecvBasic, _ = tb.Element(count, e.Index)
	case want.Uniform:
		// the message is mixed, so some element is not want.Basic; where is
		// unknown without the sender's type.
	}
	return e
}

// firstNot returns the smallest i < n such that element i of count
// instances of t is not b, given that one exists: a binary search on the
// uniformity of prefixes, O(log n · depth · log).
func (tb *Tree) firstNot(count, n int64, b datatype.Basic) int64 {
	lo, hi := int64(0), n // prefix lo is uniform b (or empty); prefix hi is not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		p, err := tb.Prefix(count, mid)
		if err == nil && p.Uniform && p.Basic == b {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi - 1
}

// MatchTypes checks a send of sendCount instances of send against a
// receive of recvCount instances of recv, like Match, but with both type
// trees at hand: a mismatch is located by a binary search on prefix
// signatures and names the first differing element and both basic types.
func MatchTypes(send *datatype.Type, sendCount int64, recv *datatype.Type, recvCount int64) error {
	if send == nil || recv == nil {
		return fmt.Errorf("sig: nil type")
	}
	st, rt := NewTree(send), NewTree(recv)
	s, err := st.OfCount(sendCount)
	if err != nil {
		return err
	}
	err = rt.Match(s, recvCount)
	var me *MismatchError
	if !errors.As(err, &me) || me.Known {
		return err
	}
	// Prefixes of length lo agree, of length hi differ.
	lo, hi := int64(0), s.N
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		a, err1 := st.Prefix(sendCount, mid)
		b, err2 := rt.Prefix(recvCount, mid)
		if same, _ := a.Same(b); err1 == nil && err2 == nil && same {
			lo = mid
		} else {
			hi = mid
		}
	}
	me.Index = hi - 1
	sb, err1 := st.Element(sendCount, me.Index)
	rb, err2 := rt.Element(recvCount, me.Index)
	if err1 == nil && err2 == nil && sb != rb {
		me.SentBasic, me.RecvBasic, me.Known, me.Exact = sb, rb, true, true
	}
	return me
}

// Packed is the signature header of a buffer of MPI_PACKED data (seed 004
// §4: "MPI_PACKED can be handled by exploiting the availability of a header
// in a packed buffer"). The rules, after MPI-4.1 §3.3.1 and §5.2:
//
//   - Pack appends the signature of what it packs, so a packed buffer
//     carries the signature of its contents (Sig);
//   - a message sent as MPI_PACKED is matched against a typed receive by the
//     signature it carries (Match on Sig), so packing and sending is
//     checked like sending the types directly;
//   - any message, typed or packed, may be received as MPI_PACKED: the
//     received buffer carries the message's signature (Received);
//   - Unpack consumes the buffer in order and checks what it unpacks against
//     the header: exactly and at once for a uniform header, otherwise when
//     the whole buffer has been unpacked (only hashes of the whole are
//     known there), and unpacking past the end is an error;
//   - bytes packed by something that wrote no header (Opaque) carry no
//     signature and are not checked.
//
// The zero Packed is an empty buffer with a known (empty) signature.
type Packed struct {
	content  val // signature of the packed contents
	unpacked val // signature of what has been unpacked so far
	opaque   bool
}

// Received is the header of a buffer that received a message of signature
// s as MPI_PACKED. The error is from s.Valid.
func Received(s Sig) (Packed, error) {
	if err := s.Valid(); err != nil {
		return Packed{}, err
	}
	return Packed{content: s.val()}, nil
}

// Opaque is the header of packed bytes of unknown signature; nothing is
// checked against it.
func Opaque() Packed { return Packed{opaque: true} }

// Known reports whether p carries a signature (it is not Opaque).
func (p *Packed) Known() bool { return !p.opaque }

// Sig is the signature of the packed contents: what a message sending the
// buffer as MPI_PACKED carries. It is the empty signature for an Opaque
// buffer (check Known).
func (p *Packed) Sig() Sig {
	if p.opaque {
		return Sig{}
	}
	return p.content.sig()
}

// Pack records MPI_Pack of count instances of t into the buffer.
func (p *Packed) Pack(t *datatype.Type, count int64) error {
	s, err := OfCount(t, count)
	if err != nil {
		return err
	}
	if p.content.n > 1<<63-1-s.N {
		return ErrOverflow
	}
	p.content = combine(p.content, s.val())
	return nil
}

// Unpack records MPI_Unpack of count instances of t from the buffer and
// checks them against the header (see Packed). A failed Unpack leaves p
// unchanged.
func (p *Packed) Unpack(t *datatype.Type, count int64) error {
	s, err := OfCount(t, count)
	if err != nil || p.opaque || s.N == 0 {
		return err
	}
	if left := p.content.n - p.unpacked.n; s.N > left {
		return fmt.Errorf("sig: unpacking %d elements past the end of the packed buffer (%d left)", s.N, left)
	}
	next := combine(p.unpacked, s.val())
	whole := p.content.sig()
	got := next.sig()
	switch {
	case whole.Uniform:
		if !got.Uniform || got.Basic != whole.Basic {
			e := &MismatchError{Sent: whole, Expected: got, Exact: true, Known: true,
				SentBasic: whole.Basic, Index: p.unpacked.n}
			tb := NewTree(t)
			e.Index += tb.firstNot(count, s.N, whole.Basic)
			e.RecvBasic, _ = tb.Element(count, e.Index-p.unpacked.n)
			return e
		}
	case next.n == p.content.n:
		if same, exact := whole.Same(got); !same {
			return &MismatchError{Sent: whole, Expected: got, Exact: exact, Index: -1}
		}
	}
	p.unpacked = next
	return nil
}

// Remaining is the number of elements not yet unpacked.
func (p *Packed) Remaining() int64 { return p.content.n - p.unpacked.n }
