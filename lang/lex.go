package lang

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Pos is a position in a source file: 1-based line and column, the column
// counted in bytes.
type Pos struct {
	Line, Col int
}

// String formats p as "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tName
	tInt
	tLParen
	tRParen
	tLBrack
	tRBrack
	tComma
	tEq
)

var tokNames = [...]string{
	tEOF: "end of file", tNewline: "end of line", tName: "name", tInt: "integer",
	tLParen: "'('", tRParen: "')'", tLBrack: "'['", tRBrack: "']'", tComma: "','", tEq: "'='",
}

type token struct {
	kind tokKind
	text string
	val  int64 // tInt
	pos  Pos
}

func (t token) describe() string {
	switch t.kind {
	case tName, tInt:
		return fmt.Sprintf("%s %s", tokNames[t.kind], t.text)
	}
	return tokNames[t.kind]
}

func isLetter(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// lex splits src into tokens. Newlines inside an open '(' or '[' are
// dropped, so a statement may continue over several lines.
func lex(file string, src []byte) ([]token, error) {
	var toks []token
	line, lineStart := 1, 0
	depth := 0
	i := 0
	errAt := func(p Pos, format string, a ...any) error {
		return &Error{File: file, Pos: p, Msg: fmt.Sprintf(format, a...)}
	}
	for i < len(src) {
		c := src[i]
		p := Pos{line, i - lineStart + 1}
		switch {
		case c == '\n':
			if depth == 0 {
				toks = append(toks, token{kind: tNewline, pos: p})
			}
			i++
			line, lineStart = line+1, i
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '(' || c == '[':
			k := tLParen
			if c == '[' {
				k = tLBrack
			}
			depth++
			toks = append(toks, token{kind: k, pos: p})
			i++
		case c == ')' || c == ']':
			k := tRParen
			if c == ']' {
				k = tRBrack
			}
			if depth > 0 {
				depth--
			}
			toks = append(toks, token{kind: k, pos: p})
			i++
		case c == ',':
			toks = append(toks, token{kind: tComma, pos: p})
			i++
		case c == '=':
			toks = append(toks, token{kind: tEq, pos: p})
			i++
		case isLetter(c) || isDigit(c) || c == '-':
			j := i
			if c == '-' {
				j++
				if j >= len(src) || !isDigit(src[j]) {
					return nil, errAt(p, "'-' must be followed by a digit")
				}
			}
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j == i || j < len(src) && isLetter(src[j]) {
				// a word; only the alias 2int may start with a digit
				for j < len(src) && (isLetter(src[j]) || isDigit(src[j])) {
					j++
				}
				w := string(src[i:j])
				if !isLetter(c) && w != "2int" {
					return nil, errAt(p, "malformed token %s", w)
				}
				toks = append(toks, token{kind: tName, text: w, pos: p})
				i = j
				continue
			}
			text := string(src[i:j])
			v, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, errAt(p, "integer %s does not fit in 64 bits", text)
			}
			toks = append(toks, token{kind: tInt, text: text, val: v, pos: p})
			i = j
		default:
			r, _ := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError {
				return nil, errAt(p, "unexpected byte %#02x", c)
			}
			return nil, errAt(p, "unexpected character %q", r)
		}
	}
	toks = append(toks, token{kind: tEOF, pos: Pos{line, len(src) - lineStart + 1}})
	return toks, nil
}
