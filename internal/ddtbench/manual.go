package ddtbench

// Manual returns the hand-written loops of the operation, written from the
// layout's loop nest (the C original's manual_loop), not from the type:
// pack(arena, packed) writes the same bytes as packing Count instances of
// Type from Base, and unpack(packed, arena) writes them back. Both are nil
// when the layout has no hand-written loop.
func (o *Op) Manual() (pack, unpack func(src, dst []byte)) { return ddtManual(o) }
