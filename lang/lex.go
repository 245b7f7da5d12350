package lang

import (
	"errors"
	"fmt"
	"io"
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
	tErr // the lexer failed; its error is in lexer.err
)

var tokNames = [...]string{
	tEOF: "end of file", tNewline: "end of line", tName: "name", tInt: "integer",
	tLParen: "'('", tRParen: "')'", tLBrack: "'['", tRBrack: "']'", tComma: "','", tEq: "'='",
	tErr: "an unreadable token",
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
		return fmt.Sprintf("%s %s", tokNames[t.kind], clip(t.text))
	}
	return tokNames[t.kind]
}

// clipLen is the longest token an error message repeats whole.
const clipLen = 40

// clip shortens s for an error message: a token longer than clipLen bytes
// is cut and its length given, so that no input makes an error line long.
func clip(s string) string {
	if len(s) <= clipLen {
		return s
	}
	k := clipLen
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:k], len(s))
}

func isLetter(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// lexer reads tokens one at a time from a stream, so that the memory of a
// parse is bounded by what the statements keep, never by the number of
// tokens. Newlines inside an open '(' or '[' are dropped, so a statement may
// continue over several lines. At most MaxSourceSize bytes are read.
type lexer struct {
	file      string
	r         io.Reader
	chunk     []byte // buffered input, chunk[i:] not yet consumed
	i         int
	base      int64 // offset of chunk[0]
	line      int   // current line
	lineStart int64 // offset where it starts
	depth     int   // open '(' and '['
	err       error // the first error; from then on every token is tErr
	done      bool  // EOF seen
	buf       []byte
}

func newLexer(file string, r io.Reader) *lexer {
	return &lexer{file: file, r: r, chunk: make([]byte, 0, 1<<16), line: 1}
}

func (l *lexer) off() int64 { return l.base + int64(l.i) }

func (l *lexer) pos() Pos { return Pos{l.line, int(l.off()-l.lineStart) + 1} }

func (l *lexer) fail(p Pos, format string, a ...any) token {
	if l.err == nil {
		l.err = &Error{File: l.file, Pos: p, Msg: fmt.Sprintf(format, a...)}
	}
	return token{kind: tErr, pos: p}
}

// peekByte returns the next byte without consuming it; ok is false at the
// end of the input, past MaxSourceSize bytes, or after a read error (the
// last two recorded in l.err).
func (l *lexer) peekByte() (byte, bool) {
	if l.i < len(l.chunk) {
		return l.chunk[l.i], true
	}
	if !l.refill() {
		return 0, false
	}
	return l.chunk[l.i], true
}

// refill reads the next chunk of input and reports whether it has a byte.
func (l *lexer) refill() bool {
	for !l.done && l.err == nil {
		l.base += int64(len(l.chunk))
		l.chunk, l.i = l.chunk[:cap(l.chunk)], 0
		n, err := l.r.Read(l.chunk)
		l.chunk = l.chunk[:n]
		if n > 0 {
			if l.base+int64(n) > MaxSourceSize {
				if l.base >= MaxSourceSize {
					l.fail(l.pos(), "the input is larger than %d MiB, the limit of the .ddt reader", MaxSourceSize>>20)
					l.chunk = l.chunk[:0]
					return false
				}
				l.chunk = l.chunk[:MaxSourceSize-l.base]
			}
			return true
		}
		switch {
		case err == io.EOF:
			l.done = true
		case err != nil:
			msg := err.Error()
			var pe interface{ Unwrap() error }
			if errors.As(err, &pe) && pe.Unwrap() != nil {
				msg = pe.Unwrap().Error()
			}
			l.fail(l.pos(), "read error: %s", msg)
		}
	}
	return false
}

func (l *lexer) skipByte() { l.i++ }

// maxNameLen bounds the length of a name.
const maxNameLen = 1024

// next returns the next token.
func (l *lexer) next() token {
	for {
		if l.err != nil {
			return token{kind: tErr, pos: l.err.(*Error).Pos}
		}
		p := l.pos()
		c, ok := l.peekByte()
		if !ok {
			if l.err != nil {
				continue
			}
			return token{kind: tEOF, pos: p}
		}
		switch {
		case c == '\n':
			l.skipByte()
			l.line, l.lineStart = l.line+1, l.off()
			if l.depth == 0 {
				return token{kind: tNewline, pos: p}
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.skipByte()
		case c == '#':
			for {
				c, ok := l.peekByte()
				if !ok || c == '\n' {
					break
				}
				l.skipByte()
			}
		case c == '(' || c == '[':
			k := tLParen
			if c == '[' {
				k = tLBrack
			}
			l.depth++
			l.skipByte()
			return token{kind: k, pos: p}
		case c == ')' || c == ']':
			k := tRParen
			if c == ']' {
				k = tRBrack
			}
			if l.depth > 0 {
				l.depth--
			}
			l.skipByte()
			return token{kind: k, pos: p}
		case c == ',':
			l.skipByte()
			return token{kind: tComma, pos: p}
		case c == '=':
			l.skipByte()
			return token{kind: tEq, pos: p}
		case isLetter(c) || isDigit(c) || c == '-':
			return l.word(p, c)
		default:
			return l.badChar(p, c)
		}
	}
}

// word reads a name or an integer starting with c.
func (l *lexer) word(p Pos, c byte) token {
	l.buf = l.buf[:0]
	n := 0 // bytes of the word, also past what buf keeps
	take := func() {
		b := l.chunk[l.i]
		l.i++
		if n < maxNameLen+1 {
			l.buf = append(l.buf, b)
		}
		n++
	}
	take()
	if c == '-' {
		if d, ok := l.peekByte(); !ok || !isDigit(d) {
			if l.err != nil {
				return token{kind: tErr, pos: p}
			}
			return l.fail(p, "'-' must be followed by a digit")
		}
	}
	digits := c == '-' || isDigit(c)
	for {
		d, ok := l.peekByte()
		if !ok || !isDigit(d) {
			break
		}
		take()
	}
	if d, ok := l.peekByte(); !digits || ok && isLetter(d) {
		// a word; only the alias 2int may start with a digit
		for {
			d, ok := l.peekByte()
			if !ok || !isLetter(d) && !isDigit(d) {
				break
			}
			take()
		}
		if l.err != nil {
			return token{kind: tErr, pos: p}
		}
		w := string(l.buf)
		if n > maxNameLen {
			return l.fail(p, "name %s… (%d bytes) is longer than %d bytes", w[:clipLen], n, maxNameLen)
		}
		if !isLetter(c) && w != "2int" {
			return l.fail(p, "malformed token %s", clip(w))
		}
		return token{kind: tName, text: w, pos: p}
	}
	if l.err != nil {
		return token{kind: tErr, pos: p}
	}
	text := string(l.buf)
	if n > maxNameLen {
		return l.fail(p, "integer %s… (%d digits) does not fit in 64 bits", text[:clipLen], n)
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return l.fail(p, "integer %s does not fit in 64 bits", clip(text))
	}
	return token{kind: tInt, text: text, val: v, pos: p}
}

// badChar reports the unexpected byte or character c at p.
func (l *lexer) badChar(p Pos, c byte) token {
	r, _ := utf8.DecodeRune(l.chunk[l.i:])
	if r == utf8.RuneError || c < ' ' || c == 0x7f {
		return l.fail(p, "unexpected byte %#02x", c)
	}
	return l.fail(p, "unexpected character %q", r)
}
