package external32

import (
	"fmt"
	"io"
	"sync"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// DataRep is the name MPI gives the representation ("external32"), the
// datarep argument of MPI_Pack_external.
const DataRep = "external32"

// scratchSize bounds the native bytes converted at once.
const scratchSize = 64 << 10

// wholeLimit bounds the temporary native message of a whole Pack of one
// basic type whose external size differs (long, wchar); larger messages go
// through the Packer in scratchSize pieces.
const wholeLimit = 4 << 20

// tmpPool holds the temporary native messages of whole packs.
var tmpPool = sync.Pool{New: func() any { return new([]byte) }}

// Codec packs and unpacks one committed type in external32. It is immutable
// and safe for concurrent use.
type Codec struct {
	c    *ddt.Committed
	sig  *node // signature of one instance; nil when it has no elements
	same bool  // one basic type whose external and native sizes are equal
}

// New returns the external32 codec of committed type c.
func New(c *ddt.Committed) *Codec {
	s := build(c.Type(), map[*datatype.Type]*node{})
	return &Codec{c: c, sig: s, same: s != nil && s.leaf && s.uExt == s.uNat}
}

// Committed returns the committed type the codec packs.
func (x *Codec) Committed() *ddt.Committed { return x.c }

// PackSize is MPI_Pack_external_size: the number of bytes Pack produces for
// count instances.
func (x *Codec) PackSize(count int64) (int64, error) {
	if count < 0 {
		return 0, fmt.Errorf("external32: negative count %d", count)
	}
	if _, err := x.c.PackSize(count); err != nil { // native size bounds the external one
		return 0, err
	}
	if x.sig == nil {
		return 0, nil
	}
	return count * x.sig.ext(), nil
}

// PackSize is MPI_Pack_external_size of count instances of t.
func PackSize(t *datatype.Type, count int64) (int64, error) {
	if count < 0 {
		return 0, fmt.Errorf("external32: negative count %d", count)
	}
	if _, err := t.PackSize(count); err != nil {
		return 0, err
	}
	s := build(t, map[*datatype.Type]*node{})
	if s == nil {
		return 0, nil
	}
	return count * s.ext(), nil
}

// Pack is MPI_Pack_external: it packs count instances from src, whose
// instance 0 has its origin at byte origin, into dst in external32 and
// returns the number of bytes written. It is an error, before any byte is
// written, if the type reaches outside src or dst is too small.
func (x *Codec) Pack(dst, src []byte, origin, count int64) (int64, error) {
	size, err := x.PackSize(count)
	if err != nil {
		return 0, err
	}
	if int64(len(dst)) < size {
		return 0, &ddt.BufferError{Op: "pack", Msg: fmt.Sprintf("external32 output buffer holds %d bytes, %d instances need %d", len(dst), count, size)}
	}
	if x.same {
		n, err := x.c.Pack(dst, src, origin, count)
		if err != nil {
			return 0, err
		}
		encode(x.sig.b, dst[:n], dst[:n], n/x.sig.uNat)
		return n, nil
	}
	if x.sig != nil && x.sig.leaf && count*x.sig.nat() <= wholeLimit {
		// one basic type that changes size: pack natively at once, convert
		bp := tmpPool.Get().(*[]byte)
		defer tmpPool.Put(bp)
		if int64(cap(*bp)) < count*x.sig.nat() {
			*bp = make([]byte, count*x.sig.nat())
		}
		tmp := (*bp)[:count*x.sig.nat()]
		if _, err := x.c.Pack(tmp, src, origin, count); err != nil {
			return 0, err
		}
		encode(x.sig.b, dst[:size], tmp, count*x.sig.rep)
		return size, nil
	}
	p, err := x.NewPacker(src, origin, count)
	if err != nil {
		return 0, err
	}
	n, err := p.Pack(dst[:size])
	if err != nil && err != io.EOF {
		return 0, err
	}
	return int64(n), nil
}

// Unpack is MPI_Unpack_external: it unpacks count instances from the
// external32 bytes src into the memory image dst, whose instance 0 has its
// origin at byte origin of dst, and returns the number of bytes read. Bytes of dst the type does
// not cover are left as they were. It is an error, before any byte is
// written, if the type reaches outside dst or src holds fewer bytes than
// count instances need.
func (x *Codec) Unpack(dst, src []byte, origin, count int64) (int64, error) {
	size, err := x.PackSize(count)
	if err != nil {
		return 0, err
	}
	if int64(len(src)) < size {
		return 0, &ddt.BufferError{Op: "unpack", Msg: fmt.Sprintf("external32 input holds %d bytes, %d instances need %d", len(src), count, size)}
	}
	u, err := x.NewUnpacker(dst, origin, count)
	if err != nil {
		return 0, err
	}
	n, err := u.Unpack(src[:size])
	return int64(n), err
}

// Packer produces an external32 message in pieces: each call to Pack
// continues where the previous one stopped, at any byte (inside an element
// too). It is not safe for concurrent use.
type Packer struct {
	x       *Codec
	p       *ddt.Packer
	count   int64
	pos     int64
	total   int64
	scratch []byte
}

// NewPacker returns a Packer of count instances from src, whose instance 0
// has its origin at byte origin. The whole range the message reads is
// checked here, once.
func (x *Codec) NewPacker(src []byte, origin, count int64) (*Packer, error) {
	size, err := x.PackSize(count)
	if err != nil {
		return nil, err
	}
	p, err := x.c.NewPacker(src, origin, count)
	if err != nil {
		return nil, err
	}
	return &Packer{x: x, p: p, count: count, total: size}, nil
}

// Pos is the number of bytes packed so far: the resume position.
func (p *Packer) Pos() int64 { return p.pos }

// Size is the length of the whole message.
func (p *Packer) Size() int64 { return p.total }

// SetPos moves the resume position to byte pos of the message.
func (p *Packer) SetPos(pos int64) error {
	if pos < 0 || pos > p.total {
		return fmt.Errorf("external32 pack: seek to %d outside message of %d bytes", pos, p.total)
	}
	p.pos = pos
	return nil
}

// Read implements io.Reader over the packed message.
func (p *Packer) Read(b []byte) (int, error) { return p.Pack(b) }

// Pack writes the next min(len(dst), remaining) bytes of the message into
// dst and returns how many it wrote; at the end of the message it returns
// 0, io.EOF.
func (p *Packer) Pack(dst []byte) (int, error) {
	if p.pos == p.total {
		return 0, io.EOF
	}
	dst = dst[:min(int64(len(dst)), p.total-p.pos)]
	written := 0
	var one [2 * maxElem]byte
	for len(dst) > 0 {
		at := p.locate(p.pos)
		es, ns := BasicSize(at.b), at.b.Size()
		off := p.pos - at.extAt
		if err := p.p.SetPos(at.natAt); err != nil {
			return written, err
		}
		var n int64
		if off == 0 && int64(len(dst)) >= es {
			k := min(at.run, int64(len(dst))/es)
			if es == ns {
				// convert in place in dst
				k = min(k, 1<<24/ns)
				if _, err := p.p.Pack(dst[:k*ns]); err != nil {
					return written, err
				}
				encode(at.b, dst[:k*es], dst[:k*ns], k)
			} else {
				if p.scratch == nil {
					p.scratch = make([]byte, scratchSize)
				}
				k = min(k, scratchSize/ns)
				if _, err := p.p.Pack(p.scratch[:k*ns]); err != nil {
					return written, err
				}
				encode(at.b, dst[:k*es], p.scratch[:k*ns], k)
			}
			n = k * es
		} else { // a piece of one element
			if _, err := p.p.Pack(one[:ns]); err != nil {
				return written, err
			}
			encode(at.b, one[maxElem:maxElem+es], one[:ns], 1)
			n = int64(copy(dst, one[maxElem+off:maxElem+es]))
		}
		dst = dst[n:]
		p.pos += n
		written += int(n)
	}
	return written, nil
}

// locate finds the element holding external byte pos of the message.
func (p *Packer) locate(pos int64) position { return p.x.locate(pos, p.count) }

// locate finds the element holding external byte pos < the size of a
// message of count instances.
func (x *Codec) locate(pos, count int64) position {
	s := x.sig
	if s.leaf { // one basic type: runs span instances
		e := pos / s.uExt
		return position{b: s.b, extAt: e * s.uExt, natAt: e * s.uNat, run: count*s.rep - e}
	}
	inst := pos / s.ext()
	at := locate(s, pos-inst*s.ext())
	at.extAt += inst * s.ext()
	at.natAt += inst * s.nat()
	return at
}

// Unpacker consumes an external32 message that arrives in pieces of any
// size (split anywhere, inside an element too). It is not safe for
// concurrent use.
type Unpacker struct {
	x       *Codec
	u       *ddt.Unpacker
	count   int64
	pos     int64
	total   int64
	scratch []byte
	pend    [maxElem]byte // the external bytes of a split element so far
}

// NewUnpacker returns an Unpacker of count instances into dst, whose
// instance 0 has its origin at byte origin. The whole range the message
// writes is checked here, once.
func (x *Codec) NewUnpacker(dst []byte, origin, count int64) (*Unpacker, error) {
	size, err := x.PackSize(count)
	if err != nil {
		return nil, err
	}
	u, err := x.c.NewUnpacker(dst, origin, count)
	if err != nil {
		return nil, err
	}
	return &Unpacker{x: x, u: u, count: count, total: size}, nil
}

// Pos is the number of bytes unpacked so far.
func (u *Unpacker) Pos() int64 { return u.pos }

// Size is the length of the whole message.
func (u *Unpacker) Size() int64 { return u.total }

// Done reports whether the whole message has been unpacked.
func (u *Unpacker) Done() bool { return u.pos == u.total }

// SetPos moves the resume position to byte pos of the message, which must
// be the start of an element (an element is converted as a whole, so the
// bytes of a split element must arrive in order).
func (u *Unpacker) SetPos(pos int64) error {
	if pos < 0 || pos > u.total {
		return fmt.Errorf("external32 unpack: seek to %d outside message of %d bytes", pos, u.total)
	}
	if pos < u.total {
		if at := u.x.locate(pos, u.count); at.extAt != pos {
			return fmt.Errorf("external32 unpack: seek to %d inside an element (it starts at %d)", pos, at.extAt)
		}
	}
	u.pos = pos
	return nil
}

// Write implements io.Writer over the packed message.
func (u *Unpacker) Write(b []byte) (int, error) { return u.Unpack(b) }

// Unpack consumes the next bytes of the message from src and returns how
// many it used; it is an error to give more bytes than the message has left.
func (u *Unpacker) Unpack(src []byte) (int, error) {
	if int64(len(src)) > u.total-u.pos {
		return 0, &ddt.BufferError{Op: "unpack", Msg: fmt.Sprintf("%d bytes given, the external32 message has %d left", len(src), u.total-u.pos)}
	}
	used := 0
	var one [maxElem]byte
	for len(src) > 0 {
		at := u.x.locate(u.pos, u.count)
		es, ns := BasicSize(at.b), at.b.Size()
		off := u.pos - at.extAt
		var n int64
		if off == 0 && int64(len(src)) >= es {
			if u.scratch == nil {
				u.scratch = make([]byte, scratchSize)
			}
			k := min(at.run, int64(len(src))/es, scratchSize/ns)
			decode(at.b, u.scratch[:k*ns], src[:k*es], k)
			if err := u.u.SetPos(at.natAt); err != nil {
				return used, err
			}
			if _, err := u.u.Unpack(u.scratch[:k*ns]); err != nil {
				return used, err
			}
			n = k * es
		} else { // a piece of one element: keep it until the element is whole
			n = int64(copy(u.pend[off:es], src))
			if off+n == es {
				decode(at.b, one[:ns], u.pend[:es], 1)
				if err := u.u.SetPos(at.natAt); err != nil {
					return used, err
				}
				if _, err := u.u.Unpack(one[:ns]); err != nil {
					return used, err
				}
			}
		}
		src = src[n:]
		u.pos += n
		used += int(n)
	}
	return used, nil
}
