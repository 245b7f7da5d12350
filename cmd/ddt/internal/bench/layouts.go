package bench

import "github.com/ddtlab/ddt/datatype"

// Layout is one case of the anchors harness (../shared/anchors/mpipack):
// Count instances of Type in an image of Alloc bytes whose origin is byte
// 0, packing to Packed bytes. Sparse marks the images too large to touch
// whole (the harness maps them sparsely). interpose/bench exports these to
// C for its ping-pong.
type Layout struct {
	ID, Size, Desc, Param string
	Type                  *datatype.Type
	Count, Alloc, Packed  int64
	Sparse                bool
}

// HarnessLayouts returns the anchors harness's layouts, in its order.
func HarnessLayouts() []Layout {
	var ls []Layout
	for _, d := range mpCases {
		c := resolve(d)
		ls = append(ls, Layout{ID: c.id, Size: c.size, Desc: c.desc, Param: c.param, Type: c.makeType(),
			Count: c.count, Alloc: c.alloc, Packed: c.packed, Sparse: c.sparse})
	}
	return ls
}
