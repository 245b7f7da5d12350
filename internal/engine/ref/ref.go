// Package ref is the reference pack/unpack engine: plainly correct, the
// oracle every faster engine is tested against.
//
// It maps a range [from, to) of the packed byte stream of count instances
// of a type to the memory pieces that hold those bytes, walking the type
// tree in type-map order and skipping whole subtrees that lie outside the
// range by their size. A partial pack therefore needs no state but its byte
// position, and can split anywhere, inside an element too.
package ref

import "github.com/ddtlab/ddt/datatype"

// Visit calls fn for each piece of the packed bytes [from, to) of count
// instances of t: n bytes at memory offset mem (relative to the origin of
// instance 0) that are packed at stream offset packed. Pieces come in
// type-map order. The caller has checked that the range of count instances
// fits its buffers, so no offset overflows.
func Visit(t *datatype.Type, count, from, to int64, fn func(mem, packed, n int64)) {
	size := t.Size()
	if size == 0 || from >= to {
		return
	}
	v := visitor{from: from, to: to, fn: fn}
	ext := t.Extent()
	i := from / size
	v.pos = i * size
	for ; i < count && v.pos < to; i++ {
		v.inst(t, i*ext)
	}
}

type visitor struct {
	from, to int64
	pos      int64 // packed offset of the next byte visited
	fn       func(mem, packed, n int64)
}

// run visits a contiguous run of n data bytes at memory offset mem.
func (v *visitor) run(mem, n int64) {
	end := v.pos + n
	lo, hi := max(v.from, v.pos), min(v.to, end)
	if lo < hi {
		v.fn(mem+lo-v.pos, lo, hi-lo)
	}
	v.pos = end
}

// inst visits one instance of t whose origin is at memory offset base.
func (v *visitor) inst(t *datatype.Type, base int64) {
	size := t.Size()
	if size == 0 {
		return
	}
	if v.pos+size <= v.from {
		v.pos += size
		return
	}
	if t.IsContiguous() {
		lo, _ := t.DataBounds()
		v.run(base+lo, size)
		return
	}
	a := t.Args()
	switch t.Combiner().Shape() {
	case datatype.ShapeNamed:
		// a pair type with a gap; its two members in order
		m := t.TypeMap(1)
		for _, e := range m {
			v.run(base+e.Disp, e.Basic.Size())
		}
		return
	case datatype.ShapeResized:
		v.inst(a.Types[0], base)
		return
	case datatype.ShapeLowered:
		v.inst(t.Lower(), base)
		return
	case datatype.ShapeStrided:
		old := a.Types[0]
		count, bl, sb, _ := t.Strided()
		blk := bl * old.Size()
		i := int64(0)
		if v.pos < v.from {
			i = (v.from - v.pos) / blk
			v.pos += i * blk
		}
		for ; i < count && v.pos < v.to; i++ {
			v.blockRun(base+i*sb, bl, old)
		}
	case datatype.ShapeBlocks:
		old := a.Types[0]
		scale := t.BlockUnit()
		for i, d := range a.Displacements {
			if v.pos >= v.to {
				break
			}
			bl := a.Blocklength
			if a.Blocklengths != nil {
				bl = a.Blocklengths[i]
			}
			v.blockRun(base+d*scale, bl, old)
		}
	case datatype.ShapeStruct:
		for i, d := range a.Displacements {
			if v.pos >= v.to {
				break
			}
			v.blockRun(base+d, a.Blocklengths[i], a.Types[i])
		}
	}
}

// blockRun visits n instances of old, extent(old) apart, from memory offset base.
func (v *visitor) blockRun(base, n int64, old *datatype.Type) {
	size := old.Size()
	if size == 0 || n == 0 {
		return
	}
	if v.pos+n*size <= v.from {
		v.pos += n * size
		return
	}
	ext := old.Extent()
	j := int64(0)
	if v.pos < v.from {
		j = (v.from - v.pos) / size
		v.pos += j * size
	}
	for ; j < n && v.pos < v.to; j++ {
		v.inst(old, base+j*ext)
	}
	if j < n {
		v.pos += (n - j) * size
	}
}

// Pack copies the packed bytes [from, from+len(dst)) of count instances of
// t from src, whose instance 0 has its origin at byte origin, into dst.
func Pack(t *datatype.Type, count int64, src []byte, origin int64, from int64, dst []byte) {
	Visit(t, count, from, from+int64(len(dst)), func(mem, packed, n int64) {
		copy(dst[packed-from:packed-from+n], src[origin+mem:])
	})
}

// Unpack copies src, the packed bytes [from, from+len(src)) of count
// instances of t, into dst, whose instance 0 has its origin at byte origin.
func Unpack(t *datatype.Type, count int64, dst []byte, origin int64, from int64, src []byte) {
	Visit(t, count, from, from+int64(len(src)), func(mem, packed, n int64) {
		copy(dst[origin+mem:origin+mem+n], src[packed-from:])
	})
}
