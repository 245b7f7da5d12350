package optimal

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ddtlab/ddt/internal/recon"
)

// CostModel holds the constants of the additive cost model (seed 000,
// section III). The cost of a tree is the sum of the costs of its nodes:
//
//	leaf(b)                  Leaf
//	leaf(c, b)               Contig (seed 001's contiguous leaf)
//	vec(c, s, L)             Vec
//	idx(c, ...)              Idx + c*Ix
//	idxbuc(c, ...)           IdxBuc + c*(Ix + Bucket)
//	struc(c, ...)            Struc + c*(Ix + Type)
//	sbuc(c, s, e, ...)       SBuc + c*Bucket
//
// The zero CostModel is not useful; start from DefaultCost.
type CostModel struct {
	Leaf, Vec, Idx, IdxBuc, Struc int64
	Ix, Bucket, Type              int64
	Contig, SBuc                  int64
}

// MaxCostConstant bounds every cost constant.
const MaxCostConstant = 1 << 16

// DefaultCost returns the paper's constants: leaf=2, vec=4, idx=3, idxbuc=4,
// struc=2, ix=1, bucket=1, type=1, and for the opt-in constructors of seed
// 001 contig=2 (like a leaf) and sbuc=4 (like idxbuc). They are written once,
// in internal/recon (recon.DefaultCost), which commit's optimizer uses too.
func DefaultCost() CostModel { return CostModel(recon.DefaultCost) }

// costFields lists the keys of ParseCost, in the order String prints them,
// with the constants they set.
var costFields = [...]struct {
	key   string
	field func(*CostModel) *int64
}{
	{"leaf", func(c *CostModel) *int64 { return &c.Leaf }},
	{"vec", func(c *CostModel) *int64 { return &c.Vec }},
	{"idx", func(c *CostModel) *int64 { return &c.Idx }},
	{"idxbuc", func(c *CostModel) *int64 { return &c.IdxBuc }},
	{"struc", func(c *CostModel) *int64 { return &c.Struc }},
	{"ix", func(c *CostModel) *int64 { return &c.Ix }},
	{"bucket", func(c *CostModel) *int64 { return &c.Bucket }},
	{"type", func(c *CostModel) *int64 { return &c.Type }},
	{"contig", func(c *CostModel) *int64 { return &c.Contig }},
	{"sbuc", func(c *CostModel) *int64 { return &c.SBuc }},
}

// field returns the constant of c named key, or nil.
func (c *CostModel) field(key string) *int64 {
	for _, f := range costFields {
		if f.key == key {
			return f.field(c)
		}
	}
	return nil
}

// String formats c as "leaf=2,vec=4,...", the form ParseCost reads.
func (c CostModel) String() string {
	parts := make([]string, len(costFields))
	for i, f := range costFields {
		parts[i] = f.key + "=" + strconv.FormatInt(*f.field(&c), 10)
	}
	return strings.Join(parts, ",")
}

// Validate checks that every constant is in [0, MaxCostConstant].
func (c CostModel) Validate() error {
	for _, f := range costFields {
		if v := *f.field(&c); v < 0 || v > MaxCostConstant {
			return fmt.Errorf("optimal: cost %s=%d out of range [0, %d]", f.key, v, MaxCostConstant)
		}
	}
	return nil
}

// ParseCost parses comma-separated KEY=VALUE settings such as "leaf=2,vec=5"
// and applies them to DefaultCost. Keys are leaf, vec, idx, idxbuc, struc,
// ix, bucket, type, contig and sbuc; values are integers in
// [0, MaxCostConstant]. An empty string gives DefaultCost.
func ParseCost(s string) (CostModel, error) {
	c := DefaultCost()
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, fmt.Errorf("optimal: cost setting %q: want KEY=VALUE", kv)
		}
		k = strings.TrimSpace(k)
		p := c.field(k)
		if p == nil {
			known := make([]string, len(costFields))
			for i, f := range costFields {
				known[i] = f.key
			}
			return c, fmt.Errorf("optimal: unknown cost key %q (known: %s)", k, strings.Join(known, ", "))
		}
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return c, fmt.Errorf("optimal: cost %s: invalid integer %q", k, strings.TrimSpace(v))
		}
		if x < 0 || x > MaxCostConstant {
			return c, fmt.Errorf("optimal: cost %s=%d out of range [0, %d]", k, x, MaxCostConstant)
		}
		*p = x
	}
	return c, nil
}

// Of returns the cost of tree n under c. It does not validate n; a nil node
// costs 0.
func (c CostModel) Of(n *Node) int64 {
	if n == nil {
		return 0
	}
	s := c.nodeCost(n)
	switch n.Kind {
	case Vec, Idx, IdxBuc, SBuc:
		s += c.Of(n.Child)
	case Struc:
		for _, ch := range n.Children {
			s += c.Of(ch)
		}
	}
	return s
}

// nodeCost is the cost of n alone, without its subtrees.
func (c CostModel) nodeCost(n *Node) int64 {
	switch n.Kind {
	case Leaf:
		if n.Count > 1 {
			return c.Contig
		}
		return c.Leaf
	case Vec:
		return c.Vec
	case Idx:
		return c.Idx + int64(len(n.Disps))*c.Ix
	case IdxBuc:
		return c.IdxBuc + int64(len(n.Disps))*(c.Ix+c.Bucket)
	case SBuc:
		return c.SBuc + int64(len(n.Sizes))*c.Bucket
	case Struc:
		return c.Struc + int64(len(n.Disps))*(c.Ix+c.Type)
	}
	return 0
}

// Constructors is a set of constructors that reconstruction may use. Plain
// leaves are always allowed.
type Constructors uint8

// The constructor flags. Contig enables seed 001's contiguous leaf leaf(c, b)
// and SBucs its strided bucket.
const (
	AllowVec Constructors = 1 << iota
	AllowIdx
	AllowIdxBuc
	AllowStruc
	AllowContig
	AllowSBuc
)

// DefaultConstructors is the paper's five: leaf, vec, idx, idxbuc, struc.
const DefaultConstructors = AllowVec | AllowIdx | AllowIdxBuc | AllowStruc

// AllConstructors adds seed 001's contiguous leaf and strided bucket.
const AllConstructors = DefaultConstructors | AllowContig | AllowSBuc

var constructorNames = map[string]Constructors{
	"leaf": 0, "vec": AllowVec, "idx": AllowIdx, "idxbuc": AllowIdxBuc,
	"struc": AllowStruc, "contig": AllowContig, "sbuc": AllowSBuc,
}

// Has reports whether all constructors in x are in s.
func (s Constructors) Has(x Constructors) bool { return s&x == x }

// String lists the set as ParseConstructors reads it, e.g. "leaf,vec,idx".
func (s Constructors) String() string {
	names := []string{"leaf"}
	for _, k := range []string{"vec", "idx", "idxbuc", "struc", "contig", "sbuc"} {
		if s.Has(constructorNames[k]) {
			names = append(names, k)
		}
	}
	return strings.Join(names, ",")
}

// ParseConstructors parses a comma-separated list of constructor names:
// leaf, vec, idx, idxbuc, struc, contig (contiguous leaf) and sbuc (strided
// bucket). "leaf" is always included whether listed or not; "default" stands
// for the paper's five and "all" for all seven.
func ParseConstructors(s string) (Constructors, error) {
	var set Constructors
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch name {
		case "":
			continue
		case "default":
			set |= DefaultConstructors
			continue
		case "all":
			set |= AllConstructors
			continue
		}
		f, ok := constructorNames[name]
		if !ok {
			known := make([]string, 0, len(constructorNames))
			for k := range constructorNames {
				known = append(known, k)
			}
			sort.Strings(known)
			return 0, fmt.Errorf("optimal: unknown constructor %q (known: %s, default, all)", name, strings.Join(known, ", "))
		}
		set |= f
	}
	return set, nil
}

// Allows reports whether every node of tree n uses a constructor in s.
func (s Constructors) Allows(n *Node) bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case Leaf:
		return n.Count <= 1 || s.Has(AllowContig)
	case Vec:
		return s.Has(AllowVec) && s.Allows(n.Child)
	case Idx:
		return s.Has(AllowIdx) && s.Allows(n.Child)
	case IdxBuc:
		return s.Has(AllowIdxBuc) && s.Allows(n.Child)
	case SBuc:
		return s.Has(AllowSBuc) && s.Allows(n.Child)
	case Struc:
		if !s.Has(AllowStruc) {
			return false
		}
		for _, c := range n.Children {
			if !s.Allows(c) {
				return false
			}
		}
		return true
	}
	return false
}
