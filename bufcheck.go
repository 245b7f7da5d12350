package ddt

// CheckBuffer makes the check that NewPacker (op "pack") and NewUnpacker
// (op "unpack") make, without making a Packer or Unpacker: that count
// instances with their origin at byte origin of a buffer of n bytes stay
// inside it. It returns their packed size, or a *BufferError naming op.
// A transport checks a buffer with it when an operation is posted, then
// moves the whole message with Pack or Unpack; it allocates nothing when
// the buffer is good.
func (c *Committed) CheckBuffer(op string, n int, origin, count int64) (int64, error) {
	if size, ok := c.bounds.fits(n, origin, count); ok {
		return size, nil
	}
	return c.checkImage(op, n, origin, count)
}
