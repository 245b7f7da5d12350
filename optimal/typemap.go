package optimal

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/ddtlab/ddt/internal/recon"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxDisp bounds the absolute value of every displacement the package accepts
// in a type map or a tree, so that differences of two displacements never
// overflow int64.
const MaxDisp = recon.MaxDisp

// Elem is one entry of a type map: a basic type, named as in the .ddt
// language (for example "int" or "double"), at a byte displacement.
type Elem struct {
	Type string
	Disp int64
}

// TypeMap is an ordered sequence of basic types and displacements (seed 000,
// section III). Order matters; displacements may repeat and be negative.
type TypeMap []Elem

// String formats m in the TYPEMAP text format read by ParseTypeMap: one
// "BASICTYPE DISPLACEMENT" line per element.
func (m TypeMap) String() string {
	var b strings.Builder
	for _, e := range m {
		b.WriteString(e.Type)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(e.Disp, 10))
		b.WriteByte('\n')
	}
	return b.String()
}

// Equal reports whether m and o have the same elements in the same order.
func (m TypeMap) Equal(o TypeMap) bool {
	if len(m) != len(o) {
		return false
	}
	for i := range m {
		if m[i] != o[i] {
			return false
		}
	}
	return true
}

// Sizer gives the size in bytes of a basic type. It is consulted only by the
// contiguous leaf constructor (seed 001), which describes count adjacent
// elements of one basic type.
type Sizer interface {
	// Size returns the size in bytes of the named basic type and whether
	// the type is known.
	Size(name string) (int64, bool)
}

// SizeTable is a Sizer backed by a map from type name to size in bytes.
type SizeTable map[string]int64

// Size implements Sizer.
func (t SizeTable) Size(name string) (int64, bool) {
	s, ok := t[name]
	return s, ok
}

// DefaultSizes returns the sizes of the predefined MPI basic types on x86-64
// Linux (LP64), named as in the .ddt language.
func DefaultSizes() SizeTable {
	t := SizeTable{}
	add := func(size int64, names ...string) {
		for _, n := range names {
			t[n] = size
		}
	}
	add(1, "char", "signed_char", "unsigned_char", "byte", "c_bool", "int8_t", "uint8_t")
	add(2, "short", "unsigned_short", "int16_t", "uint16_t")
	add(4, "int", "unsigned", "float", "wchar", "int32_t", "uint32_t")
	add(8, "long", "unsigned_long", "long_long", "unsigned_long_long", "double",
		"int64_t", "uint64_t", "aint", "offset", "count", "c_float_complex", "c_complex")
	add(16, "long_double", "c_double_complex")
	add(32, "c_long_double_complex")
	return t
}

// validTypeName reports whether s can name a basic type in the tree notation
// and in TYPEMAP files: letters, digits and underscores, not all digits.
func validTypeName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	digits := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			digits = false
		default:
			return false
		}
	}
	return !digits
}

// ErrTooLong is wrapped by the errors of ParseTypeMap and Reconstruct for a
// type map longer than MaxLen.
var ErrTooLong = fmt.Errorf("more than %d elements, the limit of exact reconstruction (its time grows as n^3)", MaxLen)

// MaxMapLen is the longest type map ParseTypeMap reads and
// ReconstructLarge accepts: 2^20 elements.
const MaxMapLen = 1 << 20

// ErrMapTooLong is wrapped by the errors of ParseTypeMap and
// ReconstructLarge for a type map longer than MaxMapLen.
var ErrMapTooLong = fmt.Errorf("more than %d elements, the limit of reconstruction", MaxMapLen)

// MaxTypeMapBytes is the most bytes ParseTypeMap reads: 64 MiB, room for
// MaxMapLen elements with comments.
const MaxTypeMapBytes = 64 << 20

// ParseTypeMap reads a type map in the TYPEMAP text format: one element per
// line as "BASICTYPE DISPLACEMENT" (for example "int 0"), with blank lines
// and '#' comments (to the end of the line) ignored. Errors name the line.
//
// Since no longer map can be reconstructed, it reads at most MaxMapLen
// elements and MaxTypeMapBytes bytes: a longer input is an error as soon as
// the limit is passed, without reading the rest. (Reconstruct, the exact
// algorithm, takes maps of up to MaxLen elements; ReconstructLarge more.)
func ParseTypeMap(r io.Reader) (TypeMap, error) {
	var m TypeMap
	lr := &io.LimitedReader{R: r, N: MaxTypeMapBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	fail := func(format string, a ...any) (TypeMap, error) {
		if lr.N <= 0 {
			return nil, fmt.Errorf("typemap: input larger than %d MiB", MaxTypeMapBytes>>20)
		}
		return nil, fmt.Errorf("typemap line %d: %s", line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return fail("want \"BASICTYPE DISPLACEMENT\", got %d fields", len(f))
		}
		if !validTypeName(f[0]) {
			return fail("invalid basic type name %s", clipQ(f[0]))
		}
		d, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return fail("invalid displacement %s", clipQ(f[1]))
		}
		if d > MaxDisp || d < -MaxDisp {
			return fail("displacement %d out of range ±2^61", d)
		}
		if len(m) == MaxMapLen {
			return nil, fmt.Errorf("typemap line %d: %w", line, ErrMapTooLong)
		}
		m = append(m, Elem{Type: f[0], Disp: d})
	}
	line++
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fail("line longer than 1 MiB")
		}
		return fail("%v", err)
	}
	if lr.N <= 0 {
		return fail("")
	}
	return m, nil
}

// clipQ quotes s for an error message, cut to 40 bytes.
func clipQ(s string) string {
	if len(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:40]), len(s))
}

// checkMap validates a type map given to Reconstruct.
func checkMap(m TypeMap) error { return checkMapLen(m, MaxLen, ErrTooLong) }

// checkMapLen validates a type map of at most limit elements (else tooLong).
func checkMapLen(m TypeMap, limit int, tooLong error) error {
	if len(m) == 0 {
		return errors.New("optimal: empty type map")
	}
	if len(m) > limit {
		return fmt.Errorf("optimal: type map of %d elements: %w", len(m), tooLong)
	}
	for i, e := range m {
		if !validTypeName(e.Type) {
			return fmt.Errorf("optimal: element %d: invalid basic type name %q", i, e.Type)
		}
		if e.Disp > MaxDisp || e.Disp < -MaxDisp {
			return fmt.Errorf("optimal: element %d: displacement %d out of range ±2^61", i, e.Disp)
		}
	}
	return nil
}

// addOK returns a+b and whether the sum stays within ±MaxDisp.
func addOK(a, b int64) (int64, bool) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, false
	}
	s := a + b
	return s, s <= MaxDisp && s >= -MaxDisp
}

// mulOK returns a*b and whether the product stays within ±MaxDisp
// (internal/recon's, whose MaxDisp is this one).
func mulOK(a, b int64) (int64, bool) { return recon.MulOK(a, b) }
