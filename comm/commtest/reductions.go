package commtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// Reductions runs every reduction on fixed and random types and checks
// the results against values every rank can compute: element i of rank r
// holds a known function of (r, i). It covers the cases a transport may
// hand to MPI (one basic type, a predefined operation) and those it must
// reduce itself (mixed types, user operations, pairs), the rank order of
// a non-commutative operation, and mismatches between ranks, which must
// fail on every rank.
func Reductions(c comm.Communicator) error {
	var e errs
	n, me := c.Size(), c.Rank()
	ne := binary.NativeEndian

	// Allreduce of every other double of 2 instances of a vector: sum and max
	vec := commit(datatype.Vector(3, 1, 2, datatype.Of(datatype.Double)))
	dbl := func(v func(i int) float64) comm.Buffer {
		b := comm.Buffer{Data: make([]byte, 2*5*8+8), Count: 2, Type: vec}
		for i := range 6 {
			inst, k := i/3, i%3
			ne.PutUint64(b.Data[inst*40+16*k:], math.Float64bits(v(i)))
		}
		return b
	}
	get := func(b comm.Buffer, i int) float64 {
		inst, k := i/3, i%3
		return math.Float64frombits(ne.Uint64(b.Data[inst*40+16*k:]))
	}
	for _, op := range []*comm.Op{comm.Sum, comm.Max, comm.Min} {
		out := dbl(func(int) float64 { return -1 })
		if err := c.Allreduce(dbl(func(i int) float64 { return float64((me + 1) * (i + 1)) }), out, op); err != nil {
			return fmt.Errorf("allreduce %s: %w", op, err)
		}
		for i := range 6 {
			want := float64(n*(n+1)/2) * float64(i+1)
			switch op {
			case comm.Max:
				want = float64(n * (i + 1))
			case comm.Min:
				want = float64(i + 1)
			}
			if got := get(out, i); got != want {
				e.add("allreduce %s: element %d is %g, want %g", op, i, got, want)
			}
		}
		if out.Data[8] != 0 { // a gap stays untouched
			e.add("allreduce %s wrote into a gap", op)
		}
	}
	// Reduce to every root: product of ints, received as a contiguous pair
	two := commit(datatype.Contiguous(2, datatype.Of(datatype.Int)))
	for root := range n {
		send := int32s(2, func(i int) int { return (me%3 + 1) * (1 - 2*i) })
		out := comm.Buffer{Data: make([]byte, 8), Count: 1, Type: two}
		if err := c.Reduce(send, out, comm.Prod, root); err != nil {
			return fmt.Errorf("reduce to %d: %w", root, err)
		}
		if me == root {
			want := 1
			for r := range n {
				want *= r%3 + 1
			}
			wantNeg := want
			if n%2 == 1 {
				wantNeg = -want
			}
			if got := at(comm.Buffer{Data: out.Data}, 0); got != want {
				e.add("reduce to %d: %d, want %d", root, got, want)
			}
			if got := at(comm.Buffer{Data: out.Data}, 1); got != wantNeg {
				e.add("reduce to %d: element 1 is %d, want %d", root, got, wantNeg)
			}
		} else if !allZero(out.Data) {
			e.add("reduce to %d wrote on rank %d", root, me)
		}
	}
	// Scan and Exscan of ints: prefix sums of r+1, and bitwise or of 1<<r
	for _, ex := range []bool{false, true} {
		for _, op := range []*comm.Op{comm.Sum, comm.Bor} {
			send := int32s(3, func(i int) int {
				if op == comm.Bor {
					return 1 << (me + i)
				}
				return (me + 1) * (i + 1)
			})
			out := int32s(3, func(int) int { return -7 })
			var err error
			if ex {
				err = c.Exscan(send, out, op)
			} else {
				err = c.Scan(send, out, op)
			}
			if err != nil {
				return fmt.Errorf("scan (exclusive %v) %s: %w", ex, op, err)
			}
			upto := me + 1
			if ex {
				upto = me
			}
			for i := range 3 {
				want := 0
				for r := range upto {
					if op == comm.Bor {
						want |= 1 << (r + i)
					} else {
						want += (r + 1) * (i + 1)
					}
				}
				if ex && me == 0 {
					want = -7 // untouched
				}
				if got := at(out, i); got != want {
					e.add("scan (exclusive %v) %s: element %d is %d, want %d", ex, op, i, got, want)
				}
			}
		}
	}
	// ReduceScatter: rank i gets i+1 ints; ReduceScatterBlock: 2 each
	counts := make([]int64, n)
	total, first := 0, 0
	for i := range n {
		counts[i] = int64(i + 1)
		if i < me {
			first += i + 1
		}
		total += i + 1
	}
	out := int32s(me+1, func(int) int { return -1 })
	if err := c.ReduceScatter(int32s(total, func(i int) int { return i + me }), out, counts, comm.Sum); err != nil {
		return fmt.Errorf("reduce_scatter: %w", err)
	}
	for k := range me + 1 {
		if got, want := at(out, k), n*(first+k)+n*(n-1)/2; got != want {
			e.add("reduce_scatter: element %d is %d, want %d", k, got, want)
		}
	}
	outB := int32s(2, func(int) int { return -1 })
	if err := c.ReduceScatterBlock(int32s(2*n, func(i int) int { return i * (me + 1) }), outB, comm.Sum); err != nil {
		return fmt.Errorf("reduce_scatter_block: %w", err)
	}
	for k := range 2 {
		if got, want := at(outB, k), (2*me+k)*n*(n+1)/2; got != want {
			e.add("reduce_scatter_block: element %d is %d, want %d", k, got, want)
		}
	}
	// Minloc and Maxloc on double_int: value (r*7)%n... ties broken by the
	// smaller index
	pairT := commit(datatype.DoubleInt, nil)
	for _, op := range []*comm.Op{comm.Minloc, comm.Maxloc} {
		in := comm.Buffer{Data: make([]byte, 32), Count: 2, Type: pairT}
		ne.PutUint64(in.Data, math.Float64bits(float64((me*7)%n)))
		ne.PutUint32(in.Data[8:], uint32(me))
		ne.PutUint64(in.Data[16:], math.Float64bits(3)) // a tie everywhere
		ne.PutUint32(in.Data[24:], uint32(n-me))
		res := comm.Buffer{Data: make([]byte, 32), Count: 2, Type: pairT}
		if err := c.Allreduce(in, res, op); err != nil {
			return fmt.Errorf("allreduce %s: %w", op, err)
		}
		best, at := (0*7)%n, 0
		for r := range n {
			v := (r * 7) % n
			if (op == comm.Minloc && v < best) || (op == comm.Maxloc && v > best) {
				best, at = v, r
			}
		}
		if v, i := math.Float64frombits(ne.Uint64(res.Data)), int(int32(ne.Uint32(res.Data[8:]))); v != float64(best) || i != at {
			e.add("allreduce %s: (%g, %d), want (%d, %d)", op, v, i, best, at)
		}
		if v, i := math.Float64frombits(ne.Uint64(res.Data[16:])), int(int32(ne.Uint32(res.Data[24:]))); v != 3 || i != 1 {
			e.add("allreduce %s on a tie: (%g, %d), want (3, 1)", op, v, i)
		}
	}
	// a struct of an int and a double: each element in its own type
	mixed := commit(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Double)}))
	ms := comm.Buffer{Data: make([]byte, 16), Count: 1, Type: mixed}
	ne.PutUint32(ms.Data, uint32(me+1))
	ne.PutUint64(ms.Data[8:], math.Float64bits(0.5))
	mr := comm.Buffer{Data: make([]byte, 16), Count: 1, Type: mixed}
	if err := c.Allreduce(ms, mr, comm.Sum); err != nil {
		return fmt.Errorf("allreduce of a struct: %w", err)
	}
	if i, d := int(ne.Uint32(mr.Data)), math.Float64frombits(ne.Uint64(mr.Data[8:])); i != n*(n+1)/2 || d != 0.5*float64(n) {
		e.add("allreduce of a struct: (%d, %g), want (%d, %g)", i, d, n*(n+1)/2, 0.5*float64(n))
	}
	// a non-commutative user operation: 2x2 matrices in rank order
	if err := matrices(c); err != nil {
		e = append(e, err)
	}
	// random types against the formula
	if err := randomReductions(c, 2201, 40); err != nil {
		e = append(e, err)
	}
	// mismatches fail on every rank, and the communicator stays usable
	op := comm.Sum
	if me == n-1 {
		op = comm.Max
	}
	err := c.Allreduce(dbl(func(int) float64 { return 1 }), dbl(func(int) float64 { return 0 }), op)
	if n > 1 && (err == nil || !strings.Contains(err.Error(), "MPI_MAX")) {
		e.add("allreduce with different ops: %v, want an error naming MPI_MAX", err)
	}
	cnt := int64(1 + me%2)
	err = c.Allreduce(comm.Buffer{Data: make([]byte, 16), Count: cnt, Type: doubleT}, comm.Buffer{Data: make([]byte, 16), Count: cnt, Type: doubleT}, comm.Sum)
	if n > 1 && err == nil {
		e.add("allreduce with different counts succeeded")
	}
	err = c.Reduce(dbl(func(int) float64 { return 1 }), dbl(func(int) float64 { return 0 }), comm.Band, 0)
	if err == nil || !strings.Contains(err.Error(), "MPI_BAND") || !strings.Contains(err.Error(), "double") {
		e.add("reduce with band on doubles: %v, want an error naming MPI_BAND and double", err)
	}
	return e.err()
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Matmul is a non-commutative user operation on 2x2 matrices of doubles
// stored row by row: inout = in · inout.
var Matmul = func() *comm.Op {
	op, err := comm.NewSliceOp("matmul2x2", false, func(in, inout [][4]float64) {
		for i := range inout {
			a, b := in[i], inout[i]
			inout[i] = [4]float64{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
		}
	})
	if err != nil {
		panic(err)
	}
	return op
}()

// matrices multiplies one matrix per rank, [[1, r+1], [0, 1]] on even
// ranks and [[1, 0], [r+1, 1]] on odd ones (which do not commute), with
// Allreduce, Reduce and Scan, and checks the rank order.
func matrices(c comm.Communicator) error {
	n, me := c.Size(), c.Rank()
	ne := binary.NativeEndian
	m4 := commit(datatype.Contiguous(4, datatype.Of(datatype.Double)))
	mat := func(r int) [4]float64 {
		if r%2 == 0 {
			return [4]float64{1, float64(r + 1), 0, 1}
		}
		return [4]float64{1, 0, float64(r + 1), 1}
	}
	prod := func(upto int) [4]float64 {
		acc := [4]float64{1, 0, 0, 1}
		for r := range upto {
			b := mat(r)
			acc = [4]float64{acc[0]*b[0] + acc[1]*b[2], acc[0]*b[1] + acc[1]*b[3], acc[2]*b[0] + acc[3]*b[2], acc[2]*b[1] + acc[3]*b[3]}
		}
		return acc
	}
	buf := func(m [4]float64) comm.Buffer {
		b := comm.Buffer{Data: make([]byte, 32), Count: 1, Type: m4}
		for i, v := range m {
			ne.PutUint64(b.Data[8*i:], math.Float64bits(v))
		}
		return b
	}
	read := func(b comm.Buffer) [4]float64 {
		var m [4]float64
		for i := range m {
			m[i] = math.Float64frombits(ne.Uint64(b.Data[8*i:]))
		}
		return m
	}
	out := buf([4]float64{})
	if err := c.Allreduce(buf(mat(me)), out, Matmul); err != nil {
		return fmt.Errorf("allreduce matmul: %w", err)
	}
	if got, want := read(out), prod(n); got != want {
		return fmt.Errorf("allreduce matmul: %v, want %v (rank order)", got, want)
	}
	out = buf([4]float64{})
	if err := c.Reduce(buf(mat(me)), out, Matmul, n-1); err != nil {
		return fmt.Errorf("reduce matmul: %w", err)
	}
	if got, want := read(out), prod(n); me == n-1 && got != want {
		return fmt.Errorf("reduce matmul: %v, want %v (rank order)", got, want)
	}
	out = buf([4]float64{})
	if err := c.Scan(buf(mat(me)), out, Matmul); err != nil {
		return fmt.Errorf("scan matmul: %w", err)
	}
	if got, want := read(out), prod(me+1); got != want {
		return fmt.Errorf("scan matmul: %v, want %v (rank order)", got, want)
	}
	return nil
}

// randomReductions reduces random types (the same on every rank, drawn
// from seed) with Sum, Max and Bxor, element i of rank r holding a small
// function of (r, i), and compares every element with its formula.
func randomReductions(c comm.Communicator, seed uint64, trials int) error {
	n, me := c.Size(), c.Rank()
	r := rand.New(rand.NewPCG(seed, 5))
	ints := []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Short), datatype.Of(datatype.Long),
		datatype.Of(datatype.Unsigned), datatype.Of(datatype.Int8), datatype.Of(datatype.Uint64)}
	nums := append([]*datatype.Type{datatype.Of(datatype.Double), datatype.Of(datatype.Float)}, ints...)
	val := func(rank, i int) int64 { return int64((rank+1)*(i%5) + i%3) }
	for trial := range trials {
		op := []*comm.Op{comm.Sum, comm.Max, comm.Bxor}[trial%3]
		leaves := nums
		if op == comm.Bxor {
			leaves = ints
		}
		if trial%2 == 0 { // one basic type: the case MPI can take
			leaves = leaves[trial/2%len(leaves) : trial/2%len(leaves)+1]
		}
		ty := typegen.Random(r, typegen.Options{MaxDepth: 3, MaxElements: 64, MaxExtent: 4096, Leaves: leaves})
		count := int64(r.IntN(3))
		ct, err := ddt.Commit(ty)
		if err != nil {
			return err
		}
		elems := ty.TypeMap(count)
		if overlapping(elems) {
			continue
		}
		lo, hi, err := ty.Span(count)
		if err != nil {
			continue
		}
		send := comm.Buffer{Data: make([]byte, hi-lo), Origin: -lo, Count: count, Type: ct}
		recv := comm.Buffer{Data: make([]byte, hi-lo), Origin: -lo, Count: count, Type: ct}
		for i, el := range elems {
			putNum(el.Basic, send.Data[-lo+el.Disp:], val(me, i))
		}
		if err := c.Allreduce(send, recv, op); err != nil {
			return fmt.Errorf("random type %d (%d x %s, %s): %w", trial, count, ty, op, err)
		}
		for i, el := range elems {
			want := val(0, i)
			for rk := 1; rk < n; rk++ {
				switch op {
				case comm.Sum:
					want += val(rk, i)
				case comm.Max:
					want = max(want, val(rk, i))
				case comm.Bxor:
					want ^= val(rk, i)
				}
			}
			if got := getNum(el.Basic, recv.Data[-lo+el.Disp:]); got != want {
				return fmt.Errorf("random type %d (%d x %s, %s): element %d (%s) is %d, want %d", trial, count, ty, op, i, el.Basic, got, want)
			}
		}
	}
	return nil
}

func overlapping(elems []datatype.Elem) bool {
	seen := map[int64]bool{}
	for _, e := range elems {
		for k := range e.Basic.Size() {
			if seen[e.Disp+k] {
				return true
			}
			seen[e.Disp+k] = true
		}
	}
	return false
}

// putNum and getNum write and read a small non-negative integer as a
// value of b.
func putNum(b datatype.Basic, p []byte, v int64) {
	ne := binary.NativeEndian
	switch b {
	case datatype.Double:
		ne.PutUint64(p, math.Float64bits(float64(v)))
	case datatype.Float:
		ne.PutUint32(p, math.Float32bits(float32(v)))
	default:
		for k := range b.Size() {
			p[k] = byte(v >> (8 * k))
		}
	}
}

func getNum(b datatype.Basic, p []byte) int64 {
	ne := binary.NativeEndian
	switch b {
	case datatype.Double:
		return int64(math.Float64frombits(ne.Uint64(p)))
	case datatype.Float:
		return int64(math.Float32frombits(ne.Uint32(p)))
	}
	var v uint64
	for k := range b.Size() {
		v |= uint64(p[k]) << (8 * k)
	}
	return int64(v)
}
