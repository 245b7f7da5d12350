package lang

import (
	"errors"
	"fmt"
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

// Parse parses the .ddt source src and returns its type, the value of its
// last statement. name is the file name used in error messages. Errors are
// of type *Error.
func Parse(name string, src []byte) (*datatype.Type, error) {
	f, err := ParseFile(name, src)
	if err != nil {
		return nil, err
	}
	return f.Type, nil
}

// ParseFile parses the .ddt source src into a File. name is the file name
// used in error messages. Errors are of type *Error.
func ParseFile(name string, src []byte) (*File, error) {
	toks, err := lex(name, src)
	if err != nil {
		return nil, err
	}
	p := &parser{file: name, toks: toks, bound: map[string]Binding{}, later: map[string]Pos{}}
	stmts, err := p.parseStmts()
	if err != nil {
		return nil, err
	}
	for _, s := range stmts {
		if s.name != "" {
			if _, ok := p.later[s.name]; !ok {
				p.later[s.name] = s.namePos
			}
		}
	}
	f := &File{Name: name}
	var last *datatype.Type
	for _, s := range stmts {
		if s.name != "" {
			if datatype.Predefined(s.name) != nil {
				return nil, p.errf(s.namePos, "cannot bind %s: it is a predefined type", s.name)
			}
			if b, ok := p.bound[s.name]; ok {
				return nil, p.errf(s.namePos, "%s is already bound at %v", s.name, b.Pos)
			}
		}
		t, err := p.evalType(s.expr)
		if err != nil {
			return nil, err
		}
		if s.name != "" {
			b := Binding{Name: s.name, Pos: s.namePos, Type: t}
			p.bound[s.name] = b
			f.Bindings = append(f.Bindings, b)
		}
		last = t
	}
	if last == nil {
		return nil, p.errf(toks[len(toks)-1].pos, "no type: the file has no statement")
	}
	f.Type = last
	return f, nil
}

// maxNesting bounds the nesting of parentheses and brackets, so that no
// input can exhaust the stack.
const maxNesting = 1000

type stmt struct {
	name    string // "" for an unnamed expression
	namePos Pos
	expr    *node
}

type nodeKind uint8

const (
	nInt   nodeKind = iota
	nList           // [ ... ]
	nCall           // CONSTRUCTOR( ... )
	nIdent          // NAME or WORD
)

type node struct {
	kind nodeKind
	pos  Pos
	val  int64  // nInt
	text string // nInt, nIdent, nCall (constructor name)
	list []*node
	args []arg
	end  Pos // nList, nCall: position of the closing bracket
}

type arg struct {
	key    string // "" for a positional argument
	keyPos Pos
	val    *node
}

type parser struct {
	file  string
	toks  []token
	i     int
	depth int
	bound map[string]Binding // the names bound so far
	later map[string]Pos     // every name the file binds -> first binding
}

func (p *parser) errf(pos Pos, format string, a ...any) *Error {
	return &Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) expect(k tokKind, context string) (token, error) {
	t := p.next()
	if t.kind != k {
		return t, p.errf(t.pos, "expected %s %s, found %s", tokNames[k], context, t.describe())
	}
	return t, nil
}

func (p *parser) parseStmts() ([]stmt, error) {
	var stmts []stmt
	for {
		t := p.peek()
		switch t.kind {
		case tEOF:
			return stmts, nil
		case tNewline:
			p.next()
			continue
		}
		var s stmt
		if t.kind == tName && p.toks[p.i+1].kind == tEq {
			s.name, s.namePos = t.text, t.pos
			p.i += 2
		}
		e, err := p.parseValue()
		if err != nil {
			return nil, err
		}
		if e.kind != nCall && e.kind != nIdent {
			return nil, p.errf(e.pos, "a statement must be a type expression, not %s", e.describe())
		}
		s.expr = e
		if t := p.next(); t.kind != tNewline && t.kind != tEOF {
			return nil, p.errf(t.pos, "unexpected %s after the statement", t.describe())
		}
		stmts = append(stmts, s)
	}
}

func (n *node) describe() string {
	switch n.kind {
	case nInt:
		return "an integer"
	case nList:
		return "a list"
	case nCall:
		return "a type (" + n.text + "(...))"
	}
	return "the name " + n.text
}

func (p *parser) parseValue() (*node, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return &node{kind: nInt, pos: t.pos, val: t.val, text: t.text}, nil
	case tLBrack:
		if err := p.enter(t.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		n := &node{kind: nList, pos: t.pos}
		if p.peek().kind == tRBrack {
			n.end = p.next().pos
			return n, nil
		}
		for {
			v, err := p.parseValue()
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, v)
			c := p.next()
			if c.kind == tRBrack {
				n.end = c.pos
				return n, nil
			}
			if c.kind != tComma {
				return nil, p.errf(c.pos, "expected ',' or ']' in the list opened at %v, found %s", t.pos, c.describe())
			}
		}
	case tName:
		if p.peek().kind != tLParen {
			return &node{kind: nIdent, pos: t.pos, text: t.text}, nil
		}
		open := p.next()
		if err := p.enter(open.pos); err != nil {
			return nil, err
		}
		defer p.leave()
		n := &node{kind: nCall, pos: t.pos, text: t.text}
		if p.peek().kind == tRParen {
			n.end = p.next().pos
			return n, nil
		}
		for {
			var a arg
			if k := p.peek(); k.kind == tName && p.toks[p.i+1].kind == tEq {
				a.key, a.keyPos = k.text, k.pos
				p.i += 2
			}
			v, err := p.parseValue()
			if err != nil {
				return nil, err
			}
			if a.key == "" {
				a.keyPos = v.pos
			}
			a.val = v
			n.args = append(n.args, a)
			c := p.next()
			if c.kind == tRParen {
				n.end = c.pos
				return n, nil
			}
			if c.kind != tComma {
				return nil, p.errf(c.pos, "expected ',' or ')' in the arguments of %s at %v, found %s", t.text, t.pos, c.describe())
			}
		}
	}
	return nil, p.errf(t.pos, "expected a value, found %s", t.describe())
}

func (p *parser) enter(pos Pos) error {
	p.depth++
	if p.depth > maxNesting {
		return p.errf(pos, "nested more than %d levels deep", maxNesting)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// Kinds of constructor parameters.
type kind uint8

const (
	kInt kind = iota
	kInts
	kType
	kTypes
	kOrder
	kDistribs
	kDargs
)

type param struct {
	name string
	kind kind
}

var ctors = map[string][]param{
	"contiguous":     {{"count", kInt}, {"oldtype", kType}},
	"vector":         {{"count", kInt}, {"blocklength", kInt}, {"stride", kInt}, {"oldtype", kType}},
	"hvector":        {{"count", kInt}, {"blocklength", kInt}, {"stride", kInt}, {"oldtype", kType}},
	"indexed":        {{"blocklengths", kInts}, {"displacements", kInts}, {"oldtype", kType}},
	"hindexed":       {{"blocklengths", kInts}, {"displacements", kInts}, {"oldtype", kType}},
	"indexed_block":  {{"blocklength", kInt}, {"displacements", kInts}, {"oldtype", kType}},
	"hindexed_block": {{"blocklength", kInt}, {"displacements", kInts}, {"oldtype", kType}},
	"struct":         {{"blocklengths", kInts}, {"displacements", kInts}, {"types", kTypes}},
	"subarray":       {{"sizes", kInts}, {"subsizes", kInts}, {"starts", kInts}, {"order", kOrder}, {"oldtype", kType}},
	"darray": {{"size", kInt}, {"rank", kInt}, {"gsizes", kInts}, {"distribs", kDistribs},
		{"dargs", kDargs}, {"psizes", kInts}, {"order", kOrder}, {"oldtype", kType}},
	"resized": {{"oldtype", kType}, {"lb", kInt}, {"extent", kInt}},
	"dup":     {{"oldtype", kType}},
}

// lists of a constructor that must have equal lengths
var sameLength = map[string][]string{
	"indexed":  {"blocklengths", "displacements"},
	"hindexed": {"blocklengths", "displacements"},
	"struct":   {"blocklengths", "displacements", "types"},
	"subarray": {"sizes", "subsizes", "starts"},
	"darray":   {"gsizes", "distribs", "dargs", "psizes"},
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

func (p *parser) evalType(n *node) (*datatype.Type, error) {
	switch n.kind {
	case nIdent:
		if t := datatype.Predefined(n.text); t != nil {
			return t, nil
		}
		if b, ok := p.bound[n.text]; ok {
			return b.Type, nil
		}
		if at, ok := p.later[n.text]; ok {
			return nil, p.errf(n.pos, "%s is used before it is bound (at %v)", n.text, at)
		}
		if _, ok := ctors[n.text]; ok {
			return nil, p.errf(n.pos, "constructor %s needs arguments in parentheses", n.text)
		}
		return nil, p.errf(n.pos, "undefined type name %s", n.text)
	case nCall:
		return p.evalCall(n)
	}
	return nil, p.errf(n.pos, "expected a type, found %s", n.describe())
}

func (p *parser) evalCall(n *node) (*datatype.Type, error) {
	params, ok := ctors[n.text]
	if !ok {
		if datatype.Predefined(n.text) != nil {
			return nil, p.errf(n.pos, "%s is a predefined type, not a constructor", n.text)
		}
		return nil, p.errf(n.pos, "unknown constructor %s", n.text)
	}
	vals := make([]*node, len(params))
	keyed := false
	npos := 0
	for _, a := range n.args {
		if a.key == "" {
			if keyed {
				return nil, p.errf(a.val.pos, "%s: positional argument after a keyword argument", n.text)
			}
			if npos >= len(params) {
				return nil, p.errf(a.val.pos, "%s: too many arguments: %d, want %d (%s)",
					n.text, len(n.args), len(params), paramList(params))
			}
			vals[npos] = a.val
			npos++
			continue
		}
		keyed = true
		j := -1
		for k, pr := range params {
			if pr.name == a.key {
				j = k
			}
		}
		if j < 0 {
			return nil, p.errf(a.keyPos, "%s: unknown keyword %s (the arguments are %s)", n.text, a.key, paramList(params))
		}
		if vals[j] != nil {
			return nil, p.errf(a.keyPos, "%s: argument %s given twice", n.text, a.key)
		}
		vals[j] = a.val
	}
	var missing []string
	for j, v := range vals {
		if v == nil {
			missing = append(missing, params[j].name)
		}
	}
	if len(missing) > 0 {
		return nil, p.errf(n.pos, "%s: missing %s: %d arguments given, want %d (%s)",
			n.text, strings.Join(missing, ", "), len(n.args), len(params), paramList(params))
	}
	args := map[string]*argVal{}
	for j, pr := range params {
		v, err := p.evalArg(n.text, pr, vals[j])
		if err != nil {
			return nil, err
		}
		args[pr.name] = v
	}
	if names := sameLength[n.text]; names != nil {
		first := args[names[0]]
		for _, nm := range names[1:] {
			if a := args[nm]; a.n != first.n {
				return nil, p.errf(a.pos, "%s: %d %s but %d %s", n.text, a.n, nm, first.n, names[0])
			}
		}
	}
	t, err := build(n.text, args)
	if err != nil {
		msg := err.Error()
		var ae *datatype.ArgError
		if !errors.As(err, &ae) {
			msg = n.text + ": " + msg
		}
		return nil, &Error{File: p.file, Pos: n.pos, Msg: msg, Err: err}
	}
	return t, nil
}

func paramList(ps []param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.name)
	}
	return strings.Join(s, ", ")
}

func (p *parser) evalArg(ctor string, pr param, v *node) (*argVal, error) {
	a := &argVal{pos: v.pos}
	wrong := func(want string) error {
		return p.errf(v.pos, "%s: %s must be %s, not %s", ctor, pr.name, want, v.describe())
	}
	list := func(want string, elem func(e *node) error) error {
		if v.kind != nList {
			return wrong(want)
		}
		a.n = len(v.list)
		for _, e := range v.list {
			if err := elem(e); err != nil {
				return err
			}
		}
		return nil
	}
	wrongElem := func(e *node, want string) error {
		return p.errf(e.pos, "%s: the elements of %s must be %s, not %s", ctor, pr.name, want, e.describe())
	}
	var err error
	switch pr.kind {
	case kInt:
		if v.kind != nInt {
			return nil, wrong("an integer")
		}
		a.i = v.val
	case kInts:
		a.ints = []int64{}
		err = list("a list of integers", func(e *node) error {
			if e.kind != nInt {
				return wrongElem(e, "integers")
			}
			a.ints = append(a.ints, e.val)
			return nil
		})
	case kType:
		if v.kind != nIdent && v.kind != nCall {
			return nil, wrong("a type")
		}
		a.t, err = p.evalType(v)
	case kTypes:
		a.ts = []*datatype.Type{}
		err = list("a list of types", func(e *node) error {
			if e.kind != nIdent && e.kind != nCall {
				return wrongElem(e, "types")
			}
			t, err := p.evalType(e)
			a.ts = append(a.ts, t)
			return err
		})
	case kOrder:
		switch {
		case v.kind == nIdent && v.text == "C":
			a.order = datatype.OrderC
		case v.kind == nIdent && v.text == "Fortran":
			a.order = datatype.OrderFortran
		case v.kind == nIdent:
			return nil, p.errf(v.pos, "%s: order must be C or Fortran, not %s", ctor, v.text)
		default:
			return nil, wrong("C or Fortran")
		}
	case kDistribs:
		err = list("a list of distributions (block, cyclic, none)", func(e *node) error {
			if e.kind != nIdent {
				return wrongElem(e, "block, cyclic or none")
			}
			switch e.text {
			case "block":
				a.distribs = append(a.distribs, datatype.DistributeBlock)
			case "cyclic":
				a.distribs = append(a.distribs, datatype.DistributeCyclic)
			case "none":
				a.distribs = append(a.distribs, datatype.DistributeNone)
			default:
				return p.errf(e.pos, "%s: unknown distribution %s (want block, cyclic or none)", ctor, e.text)
			}
			return nil
		})
	case kDargs:
		a.ints = []int64{}
		err = list("a list of integers or default", func(e *node) error {
			switch {
			case e.kind == nInt:
				a.ints = append(a.ints, e.val)
			case e.kind == nIdent && e.text == "default":
				a.ints = append(a.ints, datatype.DefaultDarg)
			case e.kind == nIdent:
				return p.errf(e.pos, "%s: unknown distribution argument %s (want an integer or default)", ctor, e.text)
			default:
				return wrongElem(e, "integers or default")
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// build calls the datatype constructor.
func build(ctor string, a map[string]*argVal) (*datatype.Type, error) {
	old := func() *datatype.Type { return a["oldtype"].t }
	switch ctor {
	case "contiguous":
		return datatype.Contiguous(a["count"].i, old())
	case "vector":
		return datatype.Vector(a["count"].i, a["blocklength"].i, a["stride"].i, old())
	case "hvector":
		return datatype.HVector(a["count"].i, a["blocklength"].i, a["stride"].i, old())
	case "indexed":
		return datatype.Indexed(a["blocklengths"].ints, a["displacements"].ints, old())
	case "hindexed":
		return datatype.HIndexed(a["blocklengths"].ints, a["displacements"].ints, old())
	case "indexed_block":
		return datatype.IndexedBlock(a["blocklength"].i, a["displacements"].ints, old())
	case "hindexed_block":
		return datatype.HIndexedBlock(a["blocklength"].i, a["displacements"].ints, old())
	case "struct":
		return datatype.Struct(a["blocklengths"].ints, a["displacements"].ints, a["types"].ts)
	case "subarray":
		return datatype.Subarray(a["sizes"].ints, a["subsizes"].ints, a["starts"].ints, a["order"].order, old())
	case "darray":
		return datatype.Darray(a["size"].i, a["rank"].i, a["gsizes"].ints, a["distribs"].distribs,
			a["dargs"].ints, a["psizes"].ints, a["order"].order, old())
	case "resized":
		return datatype.Resized(old(), a["lb"].i, a["extent"].i)
	case "dup":
		return datatype.Dup(old())
	}
	return nil, fmt.Errorf("unknown constructor %s", ctor)
}
