// Package sigexp reproduces seed 004 Table 1 (`ddt sig --experiment`): the
// paper's signature-hash operators and package sig's on the paper's three
// signature families, counting collisions.
package sigexp

import (
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

// SignatureSet is a test set of seed 004 §3.2: the three signature
// families
//
//	(4) n : α_i                              count n of a basic type
//	(5) m : (1 : α_i, (n−1) : α_j)           count m of a struct of n members
//	(6) 1 : α_i, m : (1 : α_i, (n−1) : α_j)  a struct holding count m of a struct
//
// for all basic types α_i, α_j in Basics, 1 ≤ n ≤ MaxCount in family (4),
// and 1 ≤ n ≤ MaxMembers, 1 ≤ m ≤ MaxRepeat in families (5) and (6). Every
// signature is counted once, however many family members produce it.
type SignatureSet struct {
	Name       string
	Basics     []datatype.Basic
	MaxCount   int64 // largest n of family (4)
	MaxMembers int64 // largest n of families (5) and (6)
	MaxRepeat  int64 // largest m of families (5) and (6)
}

// c89 are the 13 basic C types of MPI-1 that ddt has (MPI_PACKED is not a
// basic type here; MPI_LONG_LONG_INT stands in for it).
var c89 = []datatype.Basic{datatype.Char, datatype.Short, datatype.Int, datatype.Long,
	datatype.UnsignedChar, datatype.UnsignedShort, datatype.Unsigned, datatype.UnsignedLong,
	datatype.Float, datatype.Double, datatype.LongDouble, datatype.Byte, datatype.LongLong}

func allBasics() []datatype.Basic {
	b := make([]datatype.Basic, datatype.NumBasic)
	for i := range b {
		b[i] = datatype.Basic(i)
	}
	return b
}

// DefaultSets are the sets RunExperiment uses when given none: one the size
// of the paper's (4,576 signatures; the paper tested 4,625 but does not give
// its n and m), a larger one on the same 13 types, and one on all basic types.
func DefaultSets() []SignatureSet {
	return []SignatureSet{
		{Name: "paper", Basics: c89, MaxCount: 64, MaxMembers: 4, MaxRepeat: 4},
		{Name: "large", Basics: c89, MaxCount: 4096, MaxMembers: 16, MaxRepeat: 64},
		{Name: "all types", Basics: allBasics(), MaxCount: 1024, MaxMembers: 8, MaxRepeat: 32},
	}
}

// maxSignatures bounds the size of one set (memory: 8 bytes a signature per
// operator being evaluated).
const maxSignatures = 50_000_000

func (s SignatureSet) check() error {
	if len(s.Basics) == 0 {
		return fmt.Errorf("sig: set %q has no basic types", s.Name)
	}
	seen := map[datatype.Basic]bool{}
	for _, b := range s.Basics {
		if int(b) >= datatype.NumBasic || seen[b] {
			return fmt.Errorf("sig: set %q: bad or repeated basic type %d", s.Name, b)
		}
		seen[b] = true
	}
	if s.MaxCount < 1 || s.MaxMembers < 1 || s.MaxRepeat < 1 {
		return fmt.Errorf("sig: set %q: MaxCount, MaxMembers and MaxRepeat must be positive", s.Name)
	}
	k := int64(len(s.Basics))
	if s.MaxCount > maxSignatures || s.MaxMembers > maxSignatures || s.MaxRepeat > maxSignatures ||
		s.MaxCount*k+2*k*k*s.MaxMembers*s.MaxRepeat > maxSignatures {
		return fmt.Errorf("sig: set %q has more than %d signatures", s.Name, maxSignatures)
	}
	return nil
}

// sigExpr is one member of a family: kind 4, 5 or 6, with its parameters.
type sigExpr struct {
	kind int8
	i, j datatype.Basic
	n, m int64
}

// each calls fn once for every distinct signature of s. Families (5) and
// (6) with i ≠ j and n ≥ 2 are all distinct (the first run of α_i has length
// 1 in (5) and 2 in (6), the runs of α_j have length n−1 and there are m of
// them); every other member is uniform, N copies of α_i, and is kept once.
func (s SignatureSet) each(fn func(sigExpr)) {
	type ukey struct {
		b datatype.Basic
		n int64
	}
	uniform := map[ukey]bool{}
	uni := func(e sigExpr, b datatype.Basic, n int64) {
		if k := (ukey{b, n}); !uniform[k] {
			uniform[k] = true
			fn(e)
		}
	}
	for _, i := range s.Basics {
		for n := int64(1); n <= s.MaxCount; n++ {
			uni(sigExpr{4, i, i, n, 1}, i, n)
		}
	}
	for _, i := range s.Basics {
		for _, j := range s.Basics {
			for n := int64(1); n <= s.MaxMembers; n++ {
				for m := int64(1); m <= s.MaxRepeat; m++ {
					e5, e6 := sigExpr{5, i, j, n, m}, sigExpr{6, i, j, n, m}
					if i == j || n == 1 {
						uni(e5, i, n*m)
						uni(e6, i, 1+n*m)
						continue
					}
					fn(e5)
					fn(e6)
				}
			}
		}
	}
}

// runs is the signature of e as runs (basic type, length), adjacent runs
// of one type merged.
func (e sigExpr) runs(yield func(b datatype.Basic, n int64)) {
	var cur datatype.Basic
	var cn int64
	emit := func(b datatype.Basic, n int64) {
		if n == 0 {
			return
		}
		if cn > 0 && b == cur {
			cn += n
			return
		}
		if cn > 0 {
			yield(cur, cn)
		}
		cur, cn = b, n
	}
	if e.kind == 4 {
		emit(e.i, e.n)
	} else {
		if e.kind == 6 {
			emit(e.i, 1)
		}
		for range e.m {
			emit(e.i, 1)
			emit(e.j, e.n-1)
		}
	}
	if cn > 0 {
		yield(cur, cn)
	}
}

// hv is a hash value (α, n) of an operator under test; x caches x^n for
// ours.
type hv struct {
	h, x uint64
	n    int64
}

// Operator is a hash operator pair of seed 004 §3, (α, n) ⊕ (β, m) =
// (α + (β ≪ n), n + m), with the codes of the basic types.
type Operator struct {
	Operator1, Operator2, Operand string
	// Paper holds the percentages seed 004 Table 1 reports for this
	// operator, when it reports them.
	Paper *Cell

	code    func(b datatype.Basic) uint64
	combine func(a, b hv) hv
	fold    func(acc hv, b datatype.Basic, n int64) hv // acc followed by n × b, element by element
}

func (o *Operator) leaf(b datatype.Basic) hv { return hv{h: o.code(b), x: base, n: 1} }

// tree evaluates e as a type tree would be: by ⊕ on whole parts and
// repeat by doubling.
func (o *Operator) tree(e sigExpr) uint64 {
	rep := func(a hv, c int64) hv {
		r := hv{x: 1}
		first := true
		for c > 0 {
			if c&1 != 0 {
				if first {
					r, first = a, false
				} else {
					r = o.combine(r, a)
				}
			}
			c >>= 1
			if c > 0 {
				a = o.combine(a, a)
			}
		}
		return r
	}
	cat := func(a, b hv) hv {
		if a.n == 0 {
			return b
		}
		if b.n == 0 {
			return a
		}
		return o.combine(a, b)
	}
	i := o.leaf(e.i)
	if e.kind == 4 {
		return rep(i, e.n).h
	}
	s := rep(cat(i, rep(o.leaf(e.j), e.n-1)), e.m)
	if e.kind == 6 {
		s = cat(i, s)
	}
	return s.h
}

// flat evaluates e element by element from the left, the definition
// f(α_1, …, α_N) = ((α_1 ⊕ α_2) ⊕ …) ⊕ α_N, a run at a time.
func (o *Operator) flat(e sigExpr) uint64 {
	acc := hv{x: 1}
	e.runs(func(b datatype.Basic, n int64) { acc = o.fold(acc, b, n) })
	return acc.h
}

// rot32 is the paper's 32-bit operator: + is xor or addition modulo 2^32,
// β ≪ n is a left rotation by r·n bits.
func rot32(xor bool, r int, operand string, code func(datatype.Basic) uint64, paper *Cell) Operator {
	plus := func(a, b uint32) uint32 { return a + b }
	name := "+"
	if xor {
		plus = func(a, b uint32) uint32 { return a ^ b }
		name = "xor"
	}
	shl := func(v uint32, n int64) uint32 { return bits.RotateLeft32(v, int(n%32)*r%32) }
	o := Operator{Operator1: name, Operator2: fmt.Sprintf("rotate %d", r), Operand: operand, Paper: paper, code: code}
	o.combine = func(a, b hv) hv {
		return hv{h: uint64(plus(uint32(a.h), shl(uint32(b.h), a.n))), n: a.n + b.n}
	}
	o.fold = func(acc hv, b datatype.Basic, n int64) hv {
		c := uint32(code(b))
		h := uint32(acc.h)
		// r is odd, so 32 consecutive terms rotate c by every amount once
		if q := n / 32; q > 0 {
			var cycle uint32
			for s := range 32 {
				cycle = plus(cycle, bits.RotateLeft32(c, s))
			}
			if xor {
				if q%2 == 1 {
					h ^= cycle
				}
			} else {
				h += uint32(q) * cycle
			}
		}
		for k := n / 32 * 32; k < n; k++ {
			h = plus(h, shl(c, acc.n+k))
		}
		return hv{h: uint64(h), n: acc.n + n}
	}
	return o
}

// ours is this package's operator, with the fold by the closed form of the
// geometric series, code·x^n·(x^c − 1)/(x − 1), independent of repeat.
func ours() Operator {
	inv := uint64(1) // 1/(x − 1) = (x − 1)^(p−2)
	for a, e := base-1, uint64(prime-2); e > 0; e >>= 1 {
		if e&1 == 1 {
			inv = mulmod(inv, a)
		}
		a = mulmod(a, a)
	}
	return Operator{
		Operator1: "+ mod 2^61-1", Operator2: "× x^n", Operand: "random 61-bit",
		code: sig.Code,
		combine: func(a, b hv) hv {
			return hv{h: addmod(a.h, mulmod(b.h, a.x)), x: mulmod(a.x, b.x), n: a.n + b.n}
		},
		fold: func(acc hv, b datatype.Basic, n int64) hv {
			xn := powx(n)
			s := mulmod(mulmod(sig.Code(b), acc.x), mulmod((xn+prime-1)%prime, inv))
			return hv{h: addmod(acc.h, s), x: mulmod(acc.x, xn), n: acc.n + n}
		},
	}
}

// Operators are the operators of the experiment: the paper's four operator
// pairs with small codes (the basic type's index + 1, below 32) and with
// medium ones (fixed random 16-bit codes), then ours.
func Operators() []Operator {
	small := func(b datatype.Basic) uint64 { return uint64(b) + 1 }
	r := rand.New(rand.NewPCG(4, 1999))
	var med [datatype.NumBasic]uint64
	used := map[uint64]bool{0: true}
	for i := range med {
		for used[med[i]] {
			med[i] = uint64(r.IntN(1 << 16))
		}
		used[med[i]] = true
	}
	medium := func(b datatype.Basic) uint64 { return med[b] }
	p := func(c, d float64) *Cell { return &Cell{Collisions: c, Duplicates: d} }
	return []Operator{
		rot32(true, 1, "small", small, p(57.4, 13.4)),
		rot32(true, 3, "small", small, p(48.9, 10.5)),
		rot32(false, 1, "small", small, p(24.9, 11.5)),
		rot32(false, 3, "small", small, p(29.4, 10.3)),
		rot32(true, 1, "medium", medium, p(45.6, 9.8)),
		rot32(true, 3, "medium", medium, nil),
		rot32(false, 1, "medium", medium, p(1.2, 0.58)),
		rot32(false, 3, "medium", medium, nil),
		ours(),
	}
}

// Cell is the result of one operator on one set, in percent.
type Cell struct {
	// Collisions is the share of signatures whose hash equals that of
	// another signature of the set.
	Collisions float64
	// Duplicates is the share of distinct hash values that two or more
	// signatures share.
	Duplicates float64
	// Inconsistent is the share of signatures whose hash computed from the
	// type tree (⊕ on whole parts, repeat by doubling) differs from the
	// element-by-element definition. It must be 0: otherwise a correct
	// program is reported as erroneous. It is 0 for xor, but not for + mod
	// 2^32 with rotation, for which (α + β) ≪ n = (α ≪ n) + (β ≪ n), property
	// (3) of seed 004, fails when the sum carries out of bit 31.
	Inconsistent float64
}

// Row is one operator's results, one Cell per set.
type Row struct {
	Operator Operator
	Cells    []Cell
}

// Table is the result of Experiment.
type Table struct {
	Sets       []SignatureSet
	Signatures []int // distinct signatures per set
	Rows       []Row
	Elapsed    time.Duration
}

// Experiment reproduces seed 004 Table 1: for every operator of Operators
// and every set (DefaultSets if none are given) it hashes every signature
// of the set, from the left as the paper defines f, and counts collisions
// and duplicated hash values; it also hashes each signature from its tree
// and counts disagreements. Hash values alone are compared (not element
// counts), as in the paper. Operators run in parallel.
func Experiment(sets ...SignatureSet) (*Table, error) {
	start := time.Now()
	if len(sets) == 0 {
		sets = DefaultSets()
	}
	for _, s := range sets {
		if err := s.check(); err != nil {
			return nil, err
		}
	}
	ops := Operators()
	t := &Table{Sets: sets, Signatures: make([]int, len(sets)), Rows: make([]Row, len(ops))}
	for i := range ops {
		t.Rows[i] = Row{Operator: ops[i], Cells: make([]Cell, len(sets))}
	}
	type job struct{ op, set int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for j := range jobs {
				o := &ops[j.op]
				var hs []uint64
				bad := 0
				sets[j.set].each(func(e sigExpr) {
					h := o.flat(e)
					if o.tree(e) != h {
						bad++
					}
					hs = append(hs, h)
				})
				c := tally(hs)
				c.Inconsistent = percent(bad, len(hs))
				mu.Lock()
				t.Rows[j.op].Cells[j.set] = c
				t.Signatures[j.set] = len(hs)
				mu.Unlock()
			}
		})
	}
	for s := range sets {
		for o := range ops {
			jobs <- job{o, s}
		}
	}
	close(jobs)
	wg.Wait()
	t.Elapsed = time.Since(start)
	return t, nil
}

// tally counts collisions and duplicates among the hashes of distinct
// signatures.
func tally(hs []uint64) Cell {
	slices.Sort(hs)
	colliding, values, dupValues := 0, 0, 0
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j] == hs[i] {
			j++
		}
		values++
		if j-i > 1 {
			colliding += j - i
			dupValues++
		}
		i = j
	}
	return Cell{Collisions: percent(colliding, len(hs)), Duplicates: percent(dupValues, values)}
}

func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Render writes t as a text table: one line per operator, for every set
// its collisions and duplicates in percent (and, where nonzero, the
// percentage of signatures hashed inconsistently), then the paper's
// figures.
func (t *Table) Render(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %-9s %-14s", "operator1", "operator2", "operand")
	for i, s := range t.Sets {
		fmt.Fprintf(&b, " | %-21s", fmt.Sprintf("%s (%d)", s.Name, t.Signatures[i]))
	}
	fmt.Fprintf(&b, " | %s\n", "Table 1 (4625)")
	fmt.Fprintf(&b, "%-14s %-9s %-14s", "", "", "")
	for range t.Sets {
		fmt.Fprintf(&b, " | %6s %6s %7s", "coll%", "dup%", "incons%")
	}
	fmt.Fprintf(&b, " | %6s %6s\n", "coll%", "dup%")
	for _, r := range t.Rows {
		o := r.Operator
		fmt.Fprintf(&b, "%-14s %-9s %-14s", o.Operator1, o.Operator2, o.Operand)
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " | %6s %6s %7s", pct(c.Collisions), pct(c.Duplicates), pct(c.Inconsistent))
		}
		if o.Paper != nil {
			fmt.Fprintf(&b, " | %6s %6s\n", pct(o.Paper.Collisions), pct(o.Paper.Duplicates))
		} else {
			fmt.Fprintf(&b, " | %6s %6s\n", "-", "-")
		}
	}
	fmt.Fprintf(&b, "coll%%: signatures whose hash another signature shares; dup%%: hash values shared;\n"+
		"incons%%: signatures whose hash from the type tree differs from the element-by-element hash (%.1fs)\n",
		t.Elapsed.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// String is t rendered as by Render.
func (t *Table) String() string {
	var b strings.Builder
	_ = t.Render(&b)
	return b.String()
}

// pct formats a percentage compactly: "0" for exactly zero, three
// significant figures otherwise.
func pct(v float64) string {
	if v == 0 {
		return "0"
	}
	if v < 0.01 {
		return fmt.Sprintf("%.0e", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// RunExperiment runs Experiment on sets (DefaultSets if none; about ten
// seconds on two cores) and writes the table to w.
func RunExperiment(w io.Writer, sets ...SignatureSet) error {
	t, err := Experiment(sets...)
	if err != nil {
		return err
	}
	return t.Render(w)
}
