package optimal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the constructor of a tree node.
type Kind uint8

// The constructors of seed 000, Definition 1, and the strided bucket of seed
// 001, Definition 2. The contiguous leaf of seed 001 is a Leaf with Count > 1.
const (
	Leaf   Kind = iota + 1 // leaf(b), or the contiguous leaf leaf(c, b)
	Vec                    // vec(c, s, L)
	Idx                    // idx(c, [i0, ...], L)
	IdxBuc                 // idxbuc(c, s, [i0, ...], [a0, ...], L)
	Struc                  // struc(c, [i0, ...], [L0, ...])
	SBuc                   // sbuc(c, s, e, [a0, ...], L)
)

var kindNames = [...]string{Leaf: "leaf", Vec: "vec", Idx: "idx", IdxBuc: "idxbuc", Struc: "struc", SBuc: "sbuc"}

// String returns the constructor's name in the tree notation.
func (k Kind) String() string {
	if k >= Leaf && k <= SBuc {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Node is a node of a type tree. Which fields are used depends on Kind:
//
//	Leaf    Type, Count (1, or more for a contiguous leaf), Size (bytes of Type;
//	        needed only when Count > 1: element k is at k*Size)
//	Vec     Count, Stride, Child: Count copies of Child at 0, Stride, 2*Stride, ...
//	Idx     Disps, Child: one copy of Child at each displacement
//	IdxBuc  Stride, Disps, Sizes, Child: bucket k starts at Disps[k] and holds
//	        Sizes[k] copies of Child at Stride apart
//	Struc   Disps, Children: Children[k] at Disps[k]
//	SBuc    Stride, Inner, Sizes, Child: bucket k starts at k*Stride and holds
//	        Sizes[k] copies of Child at Inner apart
//
// For Idx, IdxBuc, Struc and SBuc the count is the length of Disps (Sizes for
// SBuc); Count is ignored. Flatten (seed 000, Listing 1) defines the type map a
// tree represents.
type Node struct {
	Kind     Kind
	Type     string  // Leaf: basic type name
	Size     int64   // Leaf: size in bytes of Type (only used when Count > 1)
	Count    int64   // Leaf, Vec: count
	Stride   int64   // Vec: stride; IdxBuc: substride; SBuc: bucket stride
	Inner    int64   // SBuc: stride inside a bucket
	Disps    []int64 // Idx, IdxBuc, Struc: displacements (indices)
	Sizes    []int64 // IdxBuc, SBuc: bucket sizes
	Child    *Node   // Vec, Idx, IdxBuc, SBuc
	Children []*Node // Struc
}

// Irregular reports whether n is an irregular node (idx, idxbuc or struc), one
// that stores a displacement list and can therefore absorb a shift.
func (n *Node) Irregular() bool {
	return n != nil && (n.Kind == Idx || n.Kind == IdxBuc || n.Kind == Struc)
}

// count returns the node's count c as printed in the notation.
func (n *Node) count() int64 {
	switch n.Kind {
	case Leaf, Vec:
		return n.Count
	case SBuc:
		return int64(len(n.Sizes))
	default:
		return int64(len(n.Disps))
	}
}

// String prints n in the paper's notation, which Parse reads back:
//
//	leaf(int)                     a basic type at displacement 0
//	leaf(4, int)                  contiguous leaf: 4 ints at 0, 4, 8, 12
//	vec(5, 8, L)                  count, stride
//	idx(3, [0, 16, 40], L)        count, displacements
//	idxbuc(2, 4, [0, 100], [3, 2], L)
//	                              count, substride, displacements, bucket sizes
//	struc(2, [0, 8], [L0, L1])    count, displacements, subtrees
//	sbuc(3, 100, 4, [3, 2, 1], L) count, bucket stride, inner stride, bucket sizes
//
// Lists are in square brackets, separated by ", ". A nil node prints as "nil".
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func writeList(b *strings.Builder, xs []int64) {
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte(']')
}

func (n *Node) write(b *strings.Builder) { n.writeWith(b, (*Node).write) }

// writeWith prints n, printing its subtrees with sub.
func (n *Node) writeWith(b *strings.Builder, sub func(*Node, *strings.Builder)) {
	if n == nil {
		b.WriteString("nil")
		return
	}
	b.WriteString(n.Kind.String())
	b.WriteByte('(')
	switch n.Kind {
	case Leaf:
		if n.Count != 1 {
			b.WriteString(strconv.FormatInt(n.Count, 10))
			b.WriteString(", ")
		}
		b.WriteString(n.Type)
	case Vec:
		fmt.Fprintf(b, "%d, %d, ", n.Count, n.Stride)
		sub(n.Child, b)
	case Idx:
		fmt.Fprintf(b, "%d, ", len(n.Disps))
		writeList(b, n.Disps)
		b.WriteString(", ")
		sub(n.Child, b)
	case IdxBuc:
		fmt.Fprintf(b, "%d, %d, ", len(n.Disps), n.Stride)
		writeList(b, n.Disps)
		b.WriteString(", ")
		writeList(b, n.Sizes)
		b.WriteString(", ")
		sub(n.Child, b)
	case Struc:
		fmt.Fprintf(b, "%d, ", len(n.Disps))
		writeList(b, n.Disps)
		b.WriteString(", [")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			sub(c, b)
		}
		b.WriteByte(']')
	case SBuc:
		fmt.Fprintf(b, "%d, %d, %d, ", len(n.Sizes), n.Stride, n.Inner)
		writeList(b, n.Sizes)
		b.WriteString(", ")
		sub(n.Child, b)
	}
	b.WriteByte(')')
}

// MaxFlatten is the largest type map Flatten produces.
const MaxFlatten = 1 << 26

// Validate checks that n is a well-formed tree: known kinds, the fields each
// kind needs, non-negative counts and sizes, lists of consistent length, and
// displacement arithmetic within ±MaxDisp.
func (n *Node) Validate() error {
	_, err := n.length(0)
	return err
}

// Len returns the length of the type map n represents, or an error if n is
// malformed or the length exceeds MaxFlatten.
func (n *Node) Len() (int64, error) {
	return n.length(0)
}

func (n *Node) length(depth int) (int64, error) {
	if n == nil {
		return 0, errors.New("optimal: nil node")
	}
	if depth > maxDepth {
		return 0, fmt.Errorf("optimal: tree nested deeper than %d", maxDepth)
	}
	mul := func(c, l int64) (int64, error) {
		if c < 0 {
			return 0, fmt.Errorf("optimal: %s: negative count %d", n.Kind, c)
		}
		if l != 0 && c > MaxFlatten/l {
			return 0, fmt.Errorf("optimal: %s: type map longer than %d elements", n.Kind, MaxFlatten)
		}
		return c * l, nil
	}
	checkDisps := func(xs []int64) error {
		for _, x := range xs {
			if x > MaxDisp || x < -MaxDisp {
				return fmt.Errorf("optimal: %s: displacement %d out of range ±2^61", n.Kind, x)
			}
		}
		return nil
	}
	child := func() (int64, error) {
		if n.Child == nil {
			return 0, fmt.Errorf("optimal: %s: missing subtree", n.Kind)
		}
		return n.Child.length(depth + 1)
	}
	sumSizes := func() (int64, error) {
		var s int64
		for _, a := range n.Sizes {
			if a < 0 {
				return 0, fmt.Errorf("optimal: %s: negative bucket size %d", n.Kind, a)
			}
			if a > MaxFlatten || s > MaxFlatten-a {
				return 0, fmt.Errorf("optimal: %s: type map longer than %d elements", n.Kind, MaxFlatten)
			}
			s += a
		}
		return s, nil
	}
	switch n.Kind {
	case Leaf:
		if !validTypeName(n.Type) {
			return 0, fmt.Errorf("optimal: leaf: invalid basic type name %q", n.Type)
		}
		if n.Count < 1 {
			return 0, fmt.Errorf("optimal: leaf: count %d < 1", n.Count)
		}
		if n.Count > 1 {
			if n.Size <= 0 {
				return 0, fmt.Errorf("optimal: leaf(%d, %s): unknown size of basic type", n.Count, n.Type)
			}
			if _, ok := mulOK(n.Count, n.Size); !ok {
				return 0, fmt.Errorf("optimal: leaf(%d, %s): extent out of range", n.Count, n.Type)
			}
		}
		return mul(n.Count, 1)
	case Vec:
		l, err := child()
		if err != nil {
			return 0, err
		}
		if _, ok := mulOK(n.Count, n.Stride); !ok || n.Stride > MaxDisp || n.Stride < -MaxDisp {
			return 0, fmt.Errorf("optimal: vec(%d, %d): extent out of range", n.Count, n.Stride)
		}
		return mul(n.Count, l)
	case Idx:
		if err := checkDisps(n.Disps); err != nil {
			return 0, err
		}
		l, err := child()
		if err != nil {
			return 0, err
		}
		return mul(int64(len(n.Disps)), l)
	case IdxBuc, SBuc:
		if n.Kind == IdxBuc {
			if len(n.Disps) != len(n.Sizes) {
				return 0, fmt.Errorf("optimal: idxbuc: %d displacements but %d bucket sizes", len(n.Disps), len(n.Sizes))
			}
			if err := checkDisps(n.Disps); err != nil {
				return 0, err
			}
		}
		for _, s := range []int64{n.Stride, n.Inner} {
			if s > MaxDisp || s < -MaxDisp {
				return 0, fmt.Errorf("optimal: %s: stride %d out of range ±2^61", n.Kind, s)
			}
		}
		total, err := sumSizes()
		if err != nil {
			return 0, err
		}
		for _, a := range n.Sizes {
			if _, ok := mulOK(a, n.Stride); !ok {
				return 0, fmt.Errorf("optimal: %s: extent out of range", n.Kind)
			}
			if _, ok := mulOK(a, n.Inner); !ok {
				return 0, fmt.Errorf("optimal: %s: extent out of range", n.Kind)
			}
		}
		if _, ok := mulOK(int64(len(n.Sizes)), n.Stride); !ok {
			return 0, fmt.Errorf("optimal: %s: extent out of range", n.Kind)
		}
		l, err := child()
		if err != nil {
			return 0, err
		}
		return mul(total, l)
	case Struc:
		if len(n.Disps) != len(n.Children) {
			return 0, fmt.Errorf("optimal: struc: %d displacements but %d subtrees", len(n.Disps), len(n.Children))
		}
		if err := checkDisps(n.Disps); err != nil {
			return 0, err
		}
		var total int64
		for _, c := range n.Children {
			l, err := c.length(depth + 1)
			if err != nil {
				return 0, err
			}
			if total > MaxFlatten-l {
				return 0, fmt.Errorf("optimal: struc: type map longer than %d elements", MaxFlatten)
			}
			total += l
		}
		return total, nil
	}
	return 0, fmt.Errorf("optimal: unknown node kind %d", n.Kind)
}

// Flatten returns the type map that n represents (seed 000, Listing 1, with
// base displacement 0). It returns an error for a malformed tree or one whose
// type map is longer than MaxFlatten. Displacements wrap as int64 arithmetic
// would; trees from Reconstruct never come near that.
func Flatten(n *Node) (TypeMap, error) {
	l, err := n.Len()
	if err != nil {
		return nil, err
	}
	out := make(TypeMap, 0, l)
	n.flatten(0, &out)
	return out, nil
}

func (n *Node) flatten(base int64, out *TypeMap) {
	switch n.Kind {
	case Leaf:
		for k := int64(0); k < n.Count; k++ {
			*out = append(*out, Elem{Type: n.Type, Disp: base + k*n.Size})
		}
	case Vec:
		for k := int64(0); k < n.Count; k++ {
			n.Child.flatten(base+k*n.Stride, out)
		}
	case Idx:
		for _, x := range n.Disps {
			n.Child.flatten(base+x, out)
		}
	case IdxBuc:
		for k, x := range n.Disps {
			for j := int64(0); j < n.Sizes[k]; j++ {
				n.Child.flatten(base+x+j*n.Stride, out)
			}
		}
	case Struc:
		for k, x := range n.Disps {
			n.Children[k].flatten(base+x, out)
		}
	case SBuc:
		for k, a := range n.Sizes {
			start := base + int64(k)*n.Stride
			for j := int64(0); j < a; j++ {
				n.Child.flatten(start+j*n.Inner, out)
			}
		}
	}
}

// Equal reports whether n and o are the same tree (same kinds and parameters;
// Size of leaves is compared only for contiguous leaves).
func (n *Node) Equal(o *Node) bool {
	if n == nil || o == nil {
		return n == o
	}
	if n.Kind != o.Kind {
		return false
	}
	eq := func(a, b []int64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	switch n.Kind {
	case Leaf:
		return n.Type == o.Type && n.Count == o.Count && (n.Count == 1 || n.Size == o.Size)
	case Vec:
		return n.Count == o.Count && n.Stride == o.Stride && n.Child.Equal(o.Child)
	case Idx:
		return eq(n.Disps, o.Disps) && n.Child.Equal(o.Child)
	case IdxBuc:
		return n.Stride == o.Stride && eq(n.Disps, o.Disps) && eq(n.Sizes, o.Sizes) && n.Child.Equal(o.Child)
	case SBuc:
		return n.Stride == o.Stride && n.Inner == o.Inner && eq(n.Sizes, o.Sizes) && n.Child.Equal(o.Child)
	case Struc:
		if !eq(n.Disps, o.Disps) || len(n.Children) != len(o.Children) {
			return false
		}
		for i := range n.Children {
			if !n.Children[i].Equal(o.Children[i]) {
				return false
			}
		}
		return true
	}
	return false
}
