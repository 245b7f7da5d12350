package bench

import (
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// listMember is one index-list member of a DDTBench send type: at byte off
// of the arena, blocks of bl elements of es bytes at element displacements
// disps (the application's index list, scaled).
type listMember struct {
	off    int64
	bl, es int64
	disps  []int64
}

// listMembers splits t, an indexed_block of a basic type or a struct of
// such, into its members; ok is false for any other shape.
func listMembers(t *datatype.Type) ([]listMember, bool) {
	one := func(off int64, t *datatype.Type) (listMember, bool) {
		a := t.Args()
		if t.Combiner() != datatype.CombinerIndexedBlock || len(a.Types) != 1 || !a.Types[0].IsPredefined() {
			return listMember{}, false
		}
		return listMember{off: off, bl: a.Blocklength, es: a.Types[0].Size(), disps: a.Displacements}, true
	}
	if t.Combiner() != datatype.CombinerStruct {
		m, ok := one(0, t)
		return []listMember{m}, ok
	}
	a := t.Args()
	var ms []listMember
	for i, st := range a.Types {
		if a.Blocklengths[i] != 1 {
			return nil, false
		}
		m, ok := one(a.Displacements[i], st)
		if !ok {
			return nil, false
		}
		ms = append(ms, m)
	}
	return ms, true
}

// moveElems copies one block of n bytes (4, 8, 12 or 24 in DDTBench) as
// the application's loop does, element by element.
func moveElems(d, s []byte, n int64) {
	switch n {
	case 4:
		le.PutUint32(d, le.Uint32(s))
	case 8:
		le.PutUint64(d, le.Uint64(s))
	case 12:
		le.PutUint32(d[8:], le.Uint32(s[8:]))
		le.PutUint64(d, le.Uint64(s))
	case 24:
		le.PutUint64(d[16:], le.Uint64(s[16:]))
		le.PutUint64(d, le.Uint64(s))
		le.PutUint64(d[8:], le.Uint64(s[8:]))
	default:
		copy(d[:n], s[:n])
	}
}

// ddtManual returns the hand-written loops of a DDTBench send operation,
// following the case's manual_loop in ddtbench.md, for the index-list
// layouts (SPECFEM3D_oc, SPECFEM3D_cm: list by list, the DDT's order;
// LAMMPS: atom by atom, all properties of an atom together, the
// application's order, which packs the same bytes in a different order).
// The lists are the ones the type was built from. It returns nil loops for
// the other cases.
func ddtManual(o *DDTBenchOp) (pack, unpack func(src, dst []byte)) {
	if o.Base != 0 || o.Count != 1 {
		return nil, nil
	}
	ms, ok := listMembers(o.Type)
	if !ok {
		return nil, nil
	}
	switch {
	case strings.HasPrefix(o.Case, "SPECFEM3D_oc"), strings.HasPrefix(o.Case, "SPECFEM3D_cm"):
		pack = func(s, d []byte) {
			q := int64(0)
			for _, m := range ms {
				n := m.bl * m.es
				for _, x := range m.disps {
					moveElems(d[q:], s[m.off+x*m.es:], n)
					q += n
				}
			}
		}
		unpack = func(p, d []byte) {
			q := int64(0)
			for _, m := range ms {
				n := m.bl * m.es
				for _, x := range m.disps {
					moveElems(d[m.off+x*m.es:], p[q:], n)
					q += n
				}
			}
		}
		return pack, unpack
	case strings.HasPrefix(o.Case, "LAMMPS"):
		na := len(ms[0].disps)
		for _, m := range ms {
			if len(m.disps) != na {
				return nil, nil
			}
		}
		pack = func(s, d []byte) {
			q := int64(0)
			for j := range na {
				for _, m := range ms {
					n := m.bl * m.es
					moveElems(d[q:], s[m.off+m.disps[j]*m.es:], n)
					q += n
				}
			}
		}
		unpack = func(p, d []byte) {
			q := int64(0)
			for j := range na {
				for _, m := range ms {
					n := m.bl * m.es
					moveElems(d[m.off+m.disps[j]*m.es:], p[q:], n)
					q += n
				}
			}
		}
		return pack, unpack
	}
	return nil, nil
}
