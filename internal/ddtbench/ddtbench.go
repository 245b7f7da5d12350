// Package ddtbench is the DDTBench layouts (seed 003) as ddt types: the
// vendored facts table ddtbench.json turned into send types, arenas and the
// hand-written loops of the C originals. `ddt bench` (cmd/ddt/internal/bench)
// and examples/commbench run them.
package ddtbench

import (
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/ddtlab/ddt/datatype"
)

// ddtbench.json is ../shared/anchors/ddtbench.json, vendored: the DDTBench
// layouts as constructor lists with their expected properties (a facts table).
//
//go:embed ddtbench.json
var ddtbenchJSON []byte

type dbFile struct {
	Cases []dbCase `json:"cases"`
}

type dbCase struct {
	Name    string     `json:"name"`
	Element string     `json:"element_type"`
	Configs []dbConfig `json:"configs"`
}

type dbConfig struct {
	Label   string           `json:"label"`
	Params  map[string]int64 `json:"params"`
	Derived map[string]int64 `json:"derived"`
	Arena   struct {
		Elem    string `json:"elem_type"`
		Total   int64  `json:"total_bytes"`
		Buffers []struct {
			Name   string `json:"name"`
			Offset int64  `json:"offset_bytes"`
		} `json:"buffers"`
	} `json:"arena"`
	Lists map[string]struct {
		Seed       uint64 `json:"seed"`
		Population int64  `json:"population"`
		Count      int64  `json:"count"`
	} `json:"index_lists"`
	Constructors []struct {
		Name string                     `json:"name"`
		Op   string                     `json:"op"`
		Args map[string]json.RawMessage `json:"args"`
	} `json:"constructors"`
	Props map[string]Props `json:"type_properties"`
	Ops   map[string]struct {
		Type   string `json:"type"`
		Count  int64  `json:"count"`
		Base   int64  `json:"base_offset_bytes"`
		Packed int64  `json:"packed_bytes"`
		CRC    string `json:"crc32"`
		Props
	} `json:"operations"`
}

// Props are the expected properties of a type.
type Props struct {
	Size       int64 `json:"size"`
	LB         int64 `json:"lb"`
	Extent     int64 `json:"extent"`
	TrueLB     int64 `json:"true_lb"`
	TrueExtent int64 `json:"true_extent"`
}

// Op is one operation of a DDTBench layout: pack Count instances of
// Type from an arena whose instance 0 has its origin at byte Base.
type Op struct {
	Case, Config, Op string // e.g. WRF_x_vec, medium, send
	Type             *datatype.Type
	Count, Base      int64
	ArenaBytes       int64
	ElemSize         int // 4 (float) or 8 (double)
	Packed           int64
	CRC32            uint32
	Want             Props // expected properties of Type (Size is the type size)
	TypeProps        map[string]Props
	Types            map[string]*datatype.Type
	// Params are the layout's size parameters (the config's params and
	// derived values); Buffers the byte offsets of the arena's arrays.
	Params  map[string]int64
	Buffers map[string]int64
}

// Fill writes the DDTBench fill pattern into arena: element k holds the
// value k as float32 or float64, little-endian.
func (o *Op) Fill(arena []byte) {
	if o.ElemSize == 4 {
		for k := 0; k+4 <= len(arena); k += 4 {
			binary.LittleEndian.PutUint32(arena[k:], math.Float32bits(float32(k/4)))
		}
		return
	}
	for k := 0; k+8 <= len(arena); k += 8 {
		binary.LittleEndian.PutUint64(arena[k:], math.Float64bits(float64(k/8)))
	}
}

// lcgPartialShuffle is the deterministic index-list generator of ddtbench.md §1.
func lcgPartialShuffle(seed uint64, population, count int64) []int64 {
	// the permutation's moved entries, stored as value+1 (0: unmoved); a
	// map only when the population is too large for a slice
	var dense []int64
	var sparse map[int64]int64
	if population <= 1<<22 {
		dense = make([]int64, population)
	} else {
		sparse = map[int64]int64{}
	}
	get := func(i int64) int64 {
		v := int64(0)
		if dense != nil {
			v = dense[i]
		} else {
			v = sparse[i]
		}
		if v == 0 {
			return i
		}
		return v - 1
	}
	set := func(i, v int64) {
		if dense != nil {
			dense[i] = v + 1
		} else {
			sparse[i] = v + 1
		}
	}
	out := make([]int64, count)
	state := seed
	for i := range count {
		state = state*6364136223846793005 + 1442695040888963407
		r := int64(state >> 32)
		j := i + r%(population-i)
		vi, vj := get(i), get(j)
		set(i, vj)
		set(j, vi)
		out[i] = vj
	}
	return out
}

// DDTBench builds every operation of the given configs ("small", "medium",
// "large"; all when none are given) from the vendored constructor lists.
func Load(configs ...string) ([]*Op, error) {
	var f dbFile
	if err := json.Unmarshal(ddtbenchJSON, &f); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, c := range configs {
		want[c] = true
	}
	var ops []*Op
	for _, c := range f.Cases {
		for _, cf := range c.Configs {
			if len(want) > 0 && !want[cf.Label] {
				continue
			}
			types, err := buildConfig(&cf)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", c.Name, cf.Label, err)
			}
			for _, name := range []string{"send", "recv"} {
				op, ok := cf.Ops[name]
				if !ok {
					continue
				}
				crc, err := strconv.ParseUint(op.CRC, 0, 32)
				if err != nil {
					return nil, fmt.Errorf("%s %s: bad crc %q", c.Name, cf.Label, op.CRC)
				}
				es := 4
				if cf.Arena.Elem == "MPI_DOUBLE" {
					es = 8
				}
				p := op.Props
				p.Size = cf.Props[op.Type].Size
				params, bufs := map[string]int64{}, map[string]int64{}
				for k, v := range cf.Params {
					params[k] = v
				}
				for k, v := range cf.Derived {
					params[k] = v
				}
				for _, b := range cf.Arena.Buffers {
					bufs[b.Name] = b.Offset
				}
				ops = append(ops, &Op{Case: c.Name, Config: cf.Label, Op: name, Type: types[op.Type],
					Count: op.Count, Base: op.Base, ArenaBytes: cf.Arena.Total, ElemSize: es, Packed: op.Packed,
					CRC32: uint32(crc), Want: p, TypeProps: cf.Props, Types: types,
					Params: params, Buffers: bufs})
			}
		}
	}
	return ops, nil
}

func buildConfig(cf *dbConfig) (map[string]*datatype.Type, error) {
	types := map[string]*datatype.Type{
		"MPI_FLOAT":  datatype.Of(datatype.Float),
		"MPI_DOUBLE": datatype.Of(datatype.Double),
	}
	for _, k := range cf.Constructors {
		var err error
		geti := func(key string) int64 {
			var v int64
			if e := json.Unmarshal(k.Args[key], &v); e != nil && err == nil {
				err = fmt.Errorf("%s: arg %s: %v", k.Name, key, e)
			}
			return v
		}
		getl := func(key string) []int64 {
			var v []int64
			if e := json.Unmarshal(k.Args[key], &v); e == nil {
				return v
			}
			var ref struct {
				List  string `json:"list"`
				Scale int64  `json:"scale"`
			}
			if e := json.Unmarshal(k.Args[key], &ref); e != nil || ref.List == "" {
				if err == nil {
					err = fmt.Errorf("%s: arg %s: not a list", k.Name, key)
				}
				return nil
			}
			l, ok := cf.Lists[ref.List]
			if !ok {
				err = fmt.Errorf("%s: unknown list %s", k.Name, ref.List)
				return nil
			}
			v = lcgPartialShuffle(l.Seed, l.Population, l.Count)
			for i := range v {
				v[i] *= ref.Scale
			}
			return v
		}
		gett := func(name string) *datatype.Type {
			t := types[name]
			if t == nil && err == nil {
				err = fmt.Errorf("%s: unknown type %s", k.Name, name)
			}
			return t
		}
		old := func() *datatype.Type {
			var s string
			json.Unmarshal(k.Args["oldtype"], &s)
			return gett(s)
		}
		var t *datatype.Type
		var cerr error
		switch k.Op {
		case "contiguous":
			t, cerr = datatype.Contiguous(geti("count"), old())
		case "vector":
			t, cerr = datatype.Vector(geti("count"), geti("blocklength"), geti("stride"), old())
		case "hvector":
			t, cerr = datatype.HVector(geti("count"), geti("blocklength"), geti("stride_bytes"), old())
		case "indexed_block":
			t, cerr = datatype.IndexedBlock(geti("blocklength"), getl("displacements"), old())
		case "resized":
			t, cerr = datatype.Resized(old(), geti("lb"), geti("extent"))
		case "subarray":
			var ord string
			json.Unmarshal(k.Args["order"], &ord)
			o := datatype.OrderC
			if ord != "C" {
				o = datatype.OrderFortran
			}
			t, cerr = datatype.Subarray(getl("sizes"), getl("subsizes"), getl("starts"), o, old())
		case "struct":
			var names []string
			json.Unmarshal(k.Args["types"], &names)
			ts := make([]*datatype.Type, len(names))
			for i, n := range names {
				ts[i] = gett(n)
			}
			if err == nil {
				t, cerr = datatype.Struct(getl("blocklengths"), getl("displacements_bytes"), ts)
			}
		default:
			return nil, fmt.Errorf("%s: unknown op %s", k.Name, k.Op)
		}
		if err != nil {
			return nil, err
		}
		if cerr != nil {
			return nil, fmt.Errorf("%s: %w", k.Name, cerr)
		}
		types[k.Name] = t
	}
	return types, nil
}
