package lang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// Error is a parse or evaluation error of a .ddt file at a position. Err is
// the underlying error when there is one (a *datatype.ArgError for an
// argument the constructor rejects).
type Error struct {
	File string
	Pos  Pos
	Msg  string
	Err  error
}

// Error formats e as "file:line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Unwrap returns the underlying error, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Binding is a name bound by a statement of a file.
type Binding struct {
	Name string
	Pos  Pos // where the name is bound
	Type *datatype.Type
}

// File is a parsed .ddt file: its bindings in order and its type, the value
// of the last statement.
type File struct {
	Name     string
	Bindings []Binding
	Type     *datatype.Type
}

// Lookup returns the type bound to name in f, or nil.
func (f *File) Lookup(name string) *datatype.Type {
	for _, b := range f.Bindings {
		if b.Name == name {
			return b.Type
		}
	}
	return nil
}

// MaxSourceSize is the largest .ddt source the parser reads: 8 MiB, room
// for lists of about a million displacements. The limit is checked while
// reading, so a larger or endless input (a device, a pipe) is refused after
// MaxSourceSize bytes without holding them. It also bounds the memory of a
// parse: the densest source ("1,1,1,...") makes 4 Mi list entries, which
// parse and build in about 100 MB.
const MaxSourceSize = 8 << 20

// MaxCalls is the most constructor calls one source may make. Each builds a
// type that the file keeps, so the limit bounds the memory of a parse (a
// few hundred bytes per call) independently of how compact the text is.
const MaxCalls = 1 << 18

// Parse parses the .ddt source src and returns its type, the value of its
// last statement. name is the file name used in error messages. Errors are
// of type *Error.
func Parse(name string, src []byte) (*datatype.Type, error) {
	return ParseReader(name, bytes.NewReader(src))
}

// ParseReader is Parse reading the source from r, at most MaxSourceSize
// bytes. It reads only as far as the first error.
func ParseReader(name string, r io.Reader) (*datatype.Type, error) {
	f, err := parseFile(name, r)
	if err != nil {
		return nil, err
	}
	return f.Type, nil
}

// ParseFile parses the .ddt source src into a File. name is the file name
// used in error messages. Errors are of type *Error.
func ParseFile(name string, src []byte) (*File, error) {
	return parseFile(name, bytes.NewReader(src))
}

// parseFile parses and evaluates one statement at a time: the parser holds
// the bindings and the arguments of the constructor calls still open, never
// a syntax tree of the file.
func parseFile(name string, r io.Reader) (*File, error) {
	p := &parser{file: name, lx: newLexer(name, r), bound: map[string]Binding{}}
	f := &File{Name: name}
	var last *datatype.Type
	for {
		t := p.peek()
		switch t.kind {
		case tEOF:
			if last == nil {
				return nil, p.errf(t.pos, "no type: the file has no statement")
			}
			f.Type = last
			return f, nil
		case tNewline:
			p.next()
			continue
		}
		p.cur = ""
		if t.kind == tName && p.peek2().kind == tEq {
			if datatype.Predefined(t.text) != nil {
				return nil, p.errf(t.pos, "cannot bind %s: it is a predefined type", t.text)
			}
			if b, ok := p.bound[t.text]; ok {
				return nil, p.errf(t.pos, "%s is already bound at %v", t.text, b.Pos)
			}
			p.cur, p.curPos = t.text, t.pos
			p.next()
			p.next()
		}
		ty, err := p.typeExpr(func(desc string) error {
			return p.errf(p.peek().pos, "a statement must be a type expression, not %s", desc)
		})
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tNewline && t.kind != tEOF {
			return nil, p.unexpected(t, "unexpected %s after the statement", t.describe())
		}
		if p.cur != "" {
			b := Binding{Name: p.cur, Pos: p.curPos, Type: ty}
			p.bound[p.cur] = b
			f.Bindings = append(f.Bindings, b)
		}
		last = ty
	}
}

// maxNesting bounds the nesting of parentheses and brackets, so that no
// input can exhaust the stack.
const maxNesting = 1000

type parser struct {
	file   string
	lx     *lexer
	ahead  [2]token // lookahead
	nahead int
	depth  int
	calls  int
	bound  map[string]Binding // the names bound so far
	cur    string             // the name the current statement binds, or ""
	curPos Pos
}

func (p *parser) errf(pos Pos, format string, a ...any) *Error {
	return &Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

// unexpected is errf for an error about token t, or the lexer's error if t
// is the token the lexer failed on.
func (p *parser) unexpected(t token, format string, a ...any) error {
	if t.kind == tErr {
		return p.lx.err
	}
	return p.errf(t.pos, format, a...)
}

func (p *parser) fill(n int) {
	for p.nahead < n {
		p.ahead[p.nahead] = p.lx.next()
		p.nahead++
	}
}

func (p *parser) peek() token { p.fill(1); return p.ahead[0] }

func (p *parser) peek2() token { p.fill(2); return p.ahead[1] }

func (p *parser) next() token {
	p.fill(1)
	t := p.ahead[0]
	if t.kind == tEOF || t.kind == tErr {
		return t
	}
	p.ahead[0] = p.ahead[1]
	p.nahead--
	return t
}

// describeValue describes the value that starts at the next token for an
// error message ("an integer", "a list", ...), or "" if no value starts
// there.
func (p *parser) describeValue() string {
	t := p.peek()
	switch t.kind {
	case tInt:
		return "an integer"
	case tLBrack:
		return "a list"
	case tName:
		if p.peek2().kind == tLParen {
			return "a type (" + clip(t.text) + "(...))"
		}
		return "the name " + clip(t.text)
	}
	return ""
}

// wrongValue returns the error for a value of the wrong kind at the next
// token: wrong(description), or a syntax error if no value starts there.
func (p *parser) wrongValue(wrong func(desc string) error) error {
	if d := p.describeValue(); d != "" {
		return wrong(d)
	}
	t := p.peek()
	return p.unexpected(t, "expected a value, found %s", t.describe())
}

// isTypeValue reports whether a type expression (a name or a call) starts
// at the next token.
func (p *parser) isTypeValue() bool { return p.peek().kind == tName }

// typeExpr reads and evaluates a type expression; a value of another kind
// is reported by wrong.
func (p *parser) typeExpr(wrong func(desc string) error) (*datatype.Type, error) {
	if !p.isTypeValue() {
		return nil, p.wrongValue(wrong)
	}
	t := p.next()
	if p.peek().kind == tLParen {
		return p.call(t)
	}
	return p.ident(t)
}

// ident evaluates the type name t.
func (p *parser) ident(t token) (*datatype.Type, error) {
	if ty := datatype.Predefined(t.text); ty != nil {
		return ty, nil
	}
	if b, ok := p.bound[t.text]; ok {
		return b.Type, nil
	}
	if t.text == p.cur {
		return nil, p.errf(t.pos, "%s is used before it is bound (at %v)", t.text, p.curPos)
	}
	if _, ok := datatype.LookupConstructor(t.text); ok {
		return nil, p.errf(t.pos, "constructor %s needs arguments in parentheses", t.text)
	}
	if at, ok := p.boundLater(t.text); ok {
		return nil, p.errf(t.pos, "%s is used before it is bound (at %v)", t.text, at)
	}
	return nil, p.errf(t.pos, "undefined type name %s", clip(t.text))
}

// boundLater reads the rest of the input for a statement that binds name
// and returns its position. It consumes the input, so it serves only to
// explain an error.
func (p *parser) boundLater(name string) (Pos, bool) {
	start := false
	for {
		t := p.next()
		switch t.kind {
		case tEOF, tErr:
			return Pos{}, false
		case tNewline:
			start = true
			continue
		case tName:
			if start && t.text == name && p.peek().kind == tEq {
				return t.pos, true
			}
		}
		start = false
	}
}

func (p *parser) enter(pos Pos) error {
	p.depth++
	if p.depth > maxNesting {
		return p.errf(pos, "nested more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// call reads the arguments of the constructor named by t, whose '(' is
// the next token, and builds the type.
func (p *parser) call(t token) (*datatype.Type, error) {
	ctor := t.text
	k, ok := datatype.LookupConstructor(ctor)
	if !ok {
		if datatype.Predefined(ctor) != nil {
			return nil, p.errf(t.pos, "%s is a predefined type, not a constructor", ctor)
		}
		return nil, p.errf(t.pos, "unknown constructor %s", clip(ctor))
	}
	if p.calls++; p.calls > MaxCalls {
		return nil, p.errf(t.pos, "more than %d constructor calls in one file", MaxCalls)
	}
	open := p.next()
	if err := p.enter(open.pos); err != nil {
		return nil, err
	}
	defer p.leave()
	params := k.Params
	args := make([]*argVal, len(params))
	keyed := false
	npos, nargs := 0, 0
	if p.peek().kind == tRParen {
		p.next()
	} else {
		for {
			j := npos
			if k := p.peek(); k.kind == tName && p.peek2().kind == tEq {
				keyed = true
				j = -1
				for i, pr := range params {
					if pr.Name == k.text {
						j = i
					}
				}
				if j < 0 {
					return nil, p.errf(k.pos, "%s: unknown keyword %s (the arguments are %s)", ctor, clip(k.text), paramList(params))
				}
				if args[j] != nil {
					return nil, p.errf(k.pos, "%s: argument %s given twice", ctor, k.text)
				}
				p.next()
				p.next()
			} else {
				if keyed {
					return nil, p.unexpected(k, "%s: positional argument after a keyword argument", ctor)
				}
				if npos >= len(params) {
					return nil, p.unexpected(k, "%s: too many arguments, want %d (%s)", ctor, len(params), paramList(params))
				}
				npos++
			}
			v, err := p.arg(ctor, params[j])
			if err != nil {
				return nil, err
			}
			args[j] = v
			nargs++
			c := p.next()
			if c.kind == tRParen {
				break
			}
			if c.kind != tComma {
				return nil, p.unexpected(c, "expected ',' or ')' in the arguments of %s at %v, found %s", ctor, t.pos, c.describe())
			}
		}
	}
	var missing []string
	for j, v := range args {
		if v == nil {
			missing = append(missing, params[j].Name)
		}
	}
	if len(missing) > 0 {
		return nil, p.errf(t.pos, "%s: missing %s: %d arguments given, want %d (%s)",
			ctor, strings.Join(missing, ", "), nargs, len(params), paramList(params))
	}
	// every list of a constructor has the same length: the C binding's count
	var first *argVal
	var firstName string
	for j, pr := range params {
		if !pr.Kind.IsList() {
			continue
		}
		if first == nil {
			first, firstName = args[j], pr.Name
		} else if a := args[j]; a.n != first.n {
			return nil, p.errf(a.pos, "%s: %d %s but %d %s", ctor, a.n, pr.Name, first.n, firstName)
		}
	}
	ty, err := k.Build(argsOf(params, args))
	if err != nil {
		msg := err.Error()
		var ae *datatype.ArgError
		if !errors.As(err, &ae) {
			msg = ctor + ": " + msg
		}
		return nil, &Error{File: p.file, Pos: t.pos, Msg: msg, Err: err}
	}
	return ty, nil
}

// chunked accumulates a list in fixed-size pieces, so that reading a long
// list allocates its length once more at the end instead of the garbage of
// repeated doubling.
type chunked[T any] struct {
	full [][]T
	last []T
	n    int
}

const chunkLen = 1 << 14

func (c *chunked[T]) add(v T) {
	if len(c.last) == chunkLen {
		c.full = append(c.full, c.last)
		c.last = nil
	}
	if c.last == nil {
		c.last = make([]T, 0, min(chunkLen, max(8, 2*c.n)))
	}
	c.last = append(c.last, v)
	c.n++
}

// slice returns the elements in one slice of exactly their number
// (non-nil even when empty).
func (c *chunked[T]) slice() []T {
	s := make([]T, 0, c.n)
	for _, f := range c.full {
		s = append(s, f...)
	}
	return append(s, c.last...)
}

// argVal is an evaluated argument.
type argVal struct {
	pos      Pos
	i        int64
	ints     []int64
	t        *datatype.Type
	ts       []*datatype.Type
	order    datatype.Order
	distribs []datatype.Distrib
	n        int // list length
}

// arg reads and evaluates the argument for parameter pr of ctor.
func (p *parser) arg(ctor string, pr datatype.Param) (*argVal, error) {
	a := &argVal{pos: p.peek().pos}
	wrong := func(want string) func(string) error {
		return func(desc string) error {
			return p.errf(a.pos, "%s: %s must be %s, not %s", ctor, pr.Name, want, desc)
		}
	}
	wrongElem := func(want string) error {
		pos := p.peek().pos
		return p.wrongValue(func(desc string) error {
			return p.errf(pos, "%s: the elements of %s must be %s, not %s", ctor, pr.Name, want, desc)
		})
	}
	// list reads a list, calling elem for each element.
	list := func(want string, elem func() error) error {
		if p.peek().kind != tLBrack {
			return p.wrongValue(wrong(want))
		}
		open := p.next()
		if err := p.enter(open.pos); err != nil {
			return err
		}
		defer p.leave()
		if p.peek().kind == tRBrack {
			p.next()
			return nil
		}
		for {
			if err := elem(); err != nil {
				return err
			}
			a.n++
			c := p.next()
			if c.kind == tRBrack {
				return nil
			}
			if c.kind != tComma {
				return p.unexpected(c, "expected ',' or ']' in the list opened at %v, found %s", open.pos, c.describe())
			}
		}
	}
	var err error
	switch pr.Kind {
	case datatype.ArgCount, datatype.ArgInt, datatype.ArgAint:
		if p.peek().kind != tInt {
			return nil, p.wrongValue(wrong("an integer"))
		}
		a.i = p.next().val
	case datatype.ArgCounts, datatype.ArgInts, datatype.ArgAints:
		var ints chunked[int64]
		err = list("a list of integers", func() error {
			if p.peek().kind != tInt {
				return wrongElem("integers")
			}
			ints.add(p.next().val)
			return nil
		})
		a.ints = ints.slice()
	case datatype.ArgType:
		a.t, err = p.typeExpr(wrong("a type"))
	case datatype.ArgTypes:
		var ts chunked[*datatype.Type]
		err = list("a list of types", func() error {
			if !p.isTypeValue() {
				return wrongElem("types")
			}
			t, err := p.typeExpr(nil)
			ts.add(t)
			return err
		})
		a.ts = ts.slice()
	case datatype.ArgOrder:
		t := p.peek()
		if t.kind != tName || p.peek2().kind == tLParen {
			return nil, p.wrongValue(wrong("C or Fortran"))
		}
		p.next()
		switch t.text {
		case "C":
			a.order = datatype.OrderC
		case "Fortran":
			a.order = datatype.OrderFortran
		default:
			return nil, p.errf(t.pos, "%s: order must be C or Fortran, not %s", ctor, clip(t.text))
		}
	case datatype.ArgDistribs:
		err = list("a list of distributions (block, cyclic, none)", func() error {
			e := p.peek()
			if e.kind != tName || p.peek2().kind == tLParen {
				return wrongElem("block, cyclic or none")
			}
			p.next()
			switch e.text {
			case "block":
				a.distribs = append(a.distribs, datatype.DistributeBlock)
			case "cyclic":
				a.distribs = append(a.distribs, datatype.DistributeCyclic)
			case "none":
				a.distribs = append(a.distribs, datatype.DistributeNone)
			default:
				return p.errf(e.pos, "%s: unknown distribution %s (want block, cyclic or none)", ctor, clip(e.text))
			}
			return nil
		})
	case datatype.ArgDargs:
		a.ints = []int64{}
		err = list("a list of integers or default", func() error {
			e := p.peek()
			switch {
			case e.kind == tInt:
				a.ints = append(a.ints, p.next().val)
			case e.kind == tName && p.peek2().kind != tLParen:
				p.next()
				if e.text != "default" {
					return p.errf(e.pos, "%s: unknown distribution argument %s (want an integer or default)", ctor, clip(e.text))
				}
				a.ints = append(a.ints, datatype.DefaultDarg)
			default:
				return wrongElem("integers or default")
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// argsOf collects the evaluated arguments into the constructor's Args.
func argsOf(params []datatype.Param, vals []*argVal) datatype.Args {
	var a datatype.Args
	for j, pr := range params {
		v := vals[j]
		switch pr.Kind {
		case datatype.ArgCount, datatype.ArgInt, datatype.ArgAint:
			a.SetInt(pr, v.i)
		case datatype.ArgCounts, datatype.ArgInts, datatype.ArgAints, datatype.ArgDargs:
			a.SetInts(pr, v.ints)
		case datatype.ArgOrder:
			a.Order = v.order
		case datatype.ArgDistribs:
			a.Distribs = v.distribs
		case datatype.ArgType:
			a.Types = []*datatype.Type{v.t}
		case datatype.ArgTypes:
			a.Types = v.ts
		}
	}
	return a
}

func paramList(ps []datatype.Param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Name)
	}
	return strings.Join(s, ", ")
}
