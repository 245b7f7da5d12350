package ddt

import (
	"fmt"
	"io"
)

// Packer packs a message in pieces: each call to Pack continues where the
// previous one stopped, at any byte. It is not safe for concurrent use.
type Packer struct {
	c      *Committed
	src    []byte
	origin int64
	count  int64
	pos    int64
	total  int64
}

// NewPacker returns a Packer of count instances from src, whose instance 0
// has its origin at byte origin. The whole range the message reads is
// checked here, once.
func (c *Committed) NewPacker(src []byte, origin, count int64) (*Packer, error) {
	size, err := c.checkImage("pack", len(src), origin, count)
	if err != nil {
		return nil, err
	}
	return &Packer{c: c, src: src, origin: origin, count: count, total: size}, nil
}

// Pack writes the next min(len(dst), remaining) bytes of the message into
// dst and returns how many it wrote; at the end of the message it returns
// 0, io.EOF.
func (p *Packer) Pack(dst []byte) (int, error) {
	if p.pos == p.total {
		return 0, io.EOF
	}
	n := min(int64(len(dst)), p.total-p.pos)
	p.c.packRange(dst[:n], p.src, p.origin, p.count, p.pos)
	p.pos += n
	return int(n), nil
}

// Read implements io.Reader over the packed message.
func (p *Packer) Read(b []byte) (int, error) { return p.Pack(b) }

// Pos is the number of bytes packed so far: the resume position.
func (p *Packer) Pos() int64 { return p.pos }

// Size is the length of the whole message.
func (p *Packer) Size() int64 { return p.total }

// SetPos moves the resume position to byte pos of the message.
func (p *Packer) SetPos(pos int64) error {
	if pos < 0 || pos > p.total {
		return fmt.Errorf("pack: seek to %d outside message of %d bytes", pos, p.total)
	}
	p.pos = pos
	return nil
}

// Unpacker unpacks a message that arrives in pieces of any size. It is not
// safe for concurrent use.
type Unpacker struct {
	c      *Committed
	dst    []byte
	origin int64
	count  int64
	pos    int64
	total  int64
}

// NewUnpacker returns an Unpacker of count instances into dst, whose
// instance 0 has its origin at byte origin. The whole range the message
// writes is checked here, once.
func (c *Committed) NewUnpacker(dst []byte, origin, count int64) (*Unpacker, error) {
	size, err := c.checkImage("unpack", len(dst), origin, count)
	if err != nil {
		return nil, err
	}
	return &Unpacker{c: c, dst: dst, origin: origin, count: count, total: size}, nil
}

// Unpack consumes the next bytes of the message from src and returns how
// many it used: all of src, or the bytes the message still lacks if src
// holds more. In the second case (n < len(src)) it also returns an error
// that wraps io.ErrShortWrite; the bytes after the message are left for
// the caller.
func (u *Unpacker) Unpack(src []byte) (int, error) {
	n := min(int64(len(src)), u.total-u.pos)
	u.c.unpackRange(u.dst, src[:n], u.origin, u.count, u.pos)
	u.pos += n
	if int(n) < len(src) {
		return int(n), fmt.Errorf("unpack: %d bytes past the end of the %d-byte message: %w", len(src)-int(n), u.total, io.ErrShortWrite)
	}
	return int(n), nil
}

// Write implements io.Writer over the packed message: it is Unpack, so a
// write that runs past the end of the message unpacks what the message
// needs and returns n < len(b) with an error wrapping io.ErrShortWrite.
func (u *Unpacker) Write(b []byte) (int, error) { return u.Unpack(b) }

// ReadFrom implements io.ReaderFrom (used by io.Copy): it reads from r
// until the message is complete or r reports an error, and never asks r
// for more bytes than the message lacks, so a longer stream is left
// positioned just after the message. It returns the number of bytes
// unpacked; an r that ends before the message does gives
// io.ErrUnexpectedEOF.
func (u *Unpacker) ReadFrom(r io.Reader) (int64, error) {
	var buf [32 << 10]byte
	var total int64
	for u.pos < u.total {
		n, err := r.Read(buf[:min(int64(len(buf)), u.total-u.pos)])
		if n > 0 {
			u.c.unpackRange(u.dst, buf[:n], u.origin, u.count, u.pos)
			u.pos += int64(n)
			total += int64(n)
		}
		if err == io.EOF {
			if u.pos < u.total {
				return total, fmt.Errorf("unpack: stream ended %d bytes before the end of the %d-byte message: %w", u.total-u.pos, u.total, io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// WriteTo implements io.WriterTo (used by io.Copy): it writes the rest of
// the packed message to w.
func (p *Packer) WriteTo(w io.Writer) (int64, error) {
	var buf [32 << 10]byte
	var total int64
	for p.pos < p.total {
		n, _ := p.Pack(buf[:])
		m, err := w.Write(buf[:n])
		total += int64(m)
		if err == nil && m < n {
			err = io.ErrShortWrite
		}
		if err != nil {
			p.pos -= int64(n - m) // the bytes w did not take are packed again next time
			return total, err
		}
	}
	return total, nil
}

// Pos is the number of bytes unpacked so far.
func (u *Unpacker) Pos() int64 { return u.pos }

// Size is the length of the whole message.
func (u *Unpacker) Size() int64 { return u.total }

// Done reports whether the whole message has been unpacked.
func (u *Unpacker) Done() bool { return u.pos == u.total }

// SetPos moves the resume position to byte pos of the message.
func (u *Unpacker) SetPos(pos int64) error {
	if pos < 0 || pos > u.total {
		return fmt.Errorf("unpack: seek to %d outside message of %d bytes", pos, u.total)
	}
	u.pos = pos
	return nil
}
