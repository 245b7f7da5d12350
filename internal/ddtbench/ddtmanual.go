package ddtbench

import (
	"encoding/binary"
	"fmt"
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
// following the case's manual_loop in ddtbench.md: runs of contiguous
// elements move with copy, like the memcpy or vectorized element loop of
// the C original (see runLoops), the index-list layouts block by block
// following the case's manual_loop in ddtbench.md, for the index-list
// layouts (SPECFEM3D_oc, SPECFEM3D_cm: list by list, the DDT's order;
// LAMMPS: atom by atom, all properties of an atom together, the
// application's order, which packs the same bytes in a different order).
// The lists are the ones the type was built from. It returns nil loops for
// the other cases.
func ddtManual(o *Op) (pack, unpack func(src, dst []byte)) {
	if runs := manualRuns(o); runs != nil {
		return runLoops(runs)
	}
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

// runLoops returns loops that call each(f) to visit the runs of an
// application's loop nest in order, f(off, n) being a run of n contiguous
// arena bytes at off: pack copies each run to the packed buffer, unpack
// copies it back.
func runLoops(each func(f func(off, n int64))) (pack, unpack func(src, dst []byte)) {
	pack = func(s, d []byte) {
		q := int64(0)
		each(func(off, n int64) {
			copy(d[q:q+n], s[off:off+n])
			q += n
		})
	}
	unpack = func(p, d []byte) {
		q := int64(0)
		each(func(off, n int64) {
			copy(d[off:off+n], p[q:q+n])
			q += n
		})
	}
	return pack, unpack
}

// manualRuns is the loop nest of the manual_loop of the layouts without
// index lists (WRF, MILC, NAS LU/MG, FFT2D, SPECFEM3D_mt), written from
// the case's size parameters and arena buffers, not from the type: each
// innermost loop over contiguous elements is one run. It returns nil for
// the other cases.
func manualRuns(o *Op) func(f func(off, n int64)) {
	P, es := o.Params, int64(o.ElemSize)
	switch {
	case strings.HasPrefix(o.Case, "WRF_"):
		// a2d_m[dim3][dim1], a3d_m[dim3][dim2][dim1],
		// a4d_m[limit_4D][dim3][dim2][dim1]; limit_4D = 2 for both arrays
		d1, d2, d3 := P["dim1"], P["dim2"], P["dim3"]
		s1, s2, s3 := P["sub1"], P["sub2"], P["sub3"]
		i0, k0, j0, pfs := P["is0"], P["ks0"], P["js0"], P["pfs0"]
		const limit4D = 2
		row := s1 * es
		return func(f func(off, n int64)) {
			for m := range 4 {
				b := o.Buffers[fmt.Sprintf("a2d_%d", m)]
				for j := j0; j < j0+s3; j++ {
					f(b+(j*d1+i0)*es, row)
				}
			}
			for m := range 3 {
				b := o.Buffers[fmt.Sprintf("a3d_%d", m)]
				for j := j0; j < j0+s3; j++ {
					for k := k0; k < k0+s2; k++ {
						f(b+((j*d2+k)*d1+i0)*es, row)
					}
				}
			}
			for m := range 2 {
				b := o.Buffers[fmt.Sprintf("a4d_%d", m)]
				for sl := pfs; sl < limit4D; sl++ {
					for j := j0; j < j0+s3; j++ {
						for k := k0; k < k0+s2; k++ {
							f(b+(((sl*d3+j)*d2+k)*d1+i0)*es, row)
						}
					}
				}
			}
		}
	case o.Case == "MILC_su3_zd":
		// lat[Lt][Lz][Ly][Lx][6 floats]: for t: for z in {0, Lz/2}: the
		// first Ly/2 rows of plane (t, z)
		lx, ly, lz, lt := P["Lx"], P["Ly"], P["Lz"], P["Lt"]
		su3 := 6 * es
		return func(f func(off, n int64)) {
			for t := range lt {
				for _, z := range [2]int64{0, lz / 2} {
					f((t*lz+z)*ly*lx*su3, ly/2*lx*su3)
				}
			}
		}
	case o.Case == "NAS_LU_x":
		// u[DIM3+2][DIM2+2][5]: u[DIM3][1..DIM2][0..4], one run
		d2, d3 := P["DIM2"], P["DIM3"]
		return func(f func(off, n int64)) {
			f((d3*(d2+2)+1)*5*es, d2*5*es)
		}
	case o.Case == "NAS_LU_y":
		// for k=1..DIM3: u[k][DIM2][0..4]
		d2, d3 := P["DIM2"], P["DIM3"]
		return func(f func(off, n int64)) {
			for k := int64(1); k <= d3; k++ {
				f((k*(d2+2)+d2)*5*es, 5*es)
			}
		}
	case o.Case == "NAS_MG_x":
		// g[DIM3][DIM2][DIM1]: for k=1..DIM3-2: for j=1..DIM2-2: g[k][j][DIM1-2]
		d1, d2, d3 := P["DIM1"], P["DIM2"], P["DIM3"]
		return func(f func(off, n int64)) {
			for k := int64(1); k <= d3-2; k++ {
				for j := int64(1); j <= d2-2; j++ {
					f(((k*d2+j)*d1+d1-2)*es, es)
				}
			}
		}
	case o.Case == "NAS_MG_y":
		// for k=1..DIM3-2: g[k][DIM2-2][1..DIM1-2]
		d1, d2, d3 := P["DIM1"], P["DIM2"], P["DIM3"]
		return func(f func(off, n int64)) {
			for k := int64(1); k <= d3-2; k++ {
				f(((k*d2+d2-2)*d1+1)*es, (d1-2)*es)
			}
		}
	case o.Case == "NAS_MG_z":
		// for j=1..DIM2-2: g[1][j][1..DIM1-2]
		d1, d2 := P["DIM1"], P["DIM2"]
		return func(f func(off, n int64)) {
			for j := int64(1); j <= d2-2; j++ {
				f(((d2+j)*d1+1)*es, (d1-2)*es)
			}
		}
	case o.Case == "FFT2D":
		// slab[n][N] complex: for p<P: for r<n: slab[r][p*n .. p*n+n-1]
		N, np := P["N"], P["P"]
		n, cx := N/np, 2*es
		return func(f func(off, n int64)) {
			for p := range np {
				for r := range n {
					f((r*N+p*n)*cx, n*cx)
				}
			}
		}
	case o.Case == "SPECFEM3D_mt":
		// send_array[DIM3][DIM2][DIM1]: for k<DIM3: DIM1 floats at [k][0][0]
		d1, d2, d3 := P["DIM1"], P["DIM2"], P["DIM3"]
		b := o.Buffers["send_array"]
		return func(f func(off, n int64)) {
			for k := range d3 {
				f(b+k*d2*d1*es, d1*es)
			}
		}
	}
	return nil
}

var le = binary.LittleEndian
