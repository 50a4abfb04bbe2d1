package expression

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/expr-lang/expr/builtin"
)

// This file turns source text into segments (literal text and expression
// bodies) and translates each JUEL body into expr source. The translation is
// token by token: JUEL word operators become expr symbols, string literals are
// re-quoted, names expr would read as keywords or builtins are renamed, and
// JUEL's prefix operator "empty" becomes a call of a helper.

type tokKind uint8

const (
	tkIdent tokKind = iota
	tkNumber
	tkString
	tkPunct
)

type token struct {
	kind tokKind
	text string // name, punctuation, normalized number or decoded string
	pos  int    // byte offset in the whole source
}

// segment is literal text (body == nil) or one ${...} / #{...} expression.
type segment struct {
	text  string  // literal text, or the expression as written ("${a}")
	start int     // byte offset of an expression in the source
	body  []token // tokens between the delimiters
}

// syntaxError is a compile error at a byte offset of the source.
type syntaxError struct {
	pos int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func errAt(pos int, format string, args ...any) *syntaxError {
	return &syntaxError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

// split cuts src into literal and expression segments. A backslash before
// "${" or "#{" makes the delimiter literal, as in JUEL.
func split(src string) ([]segment, error) {
	var segs []segment
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			segs = append(segs, segment{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c == '\\' && i+2 < len(src) && isOpenDelim(src[i+1:]) {
			lit.WriteString(src[i+1 : i+3])
			i += 3
			continue
		}
		if isOpenDelim(src[i:]) {
			flush()
			body, end, err := lexBody(src, i+2)
			if err != nil {
				return nil, err
			}
			if len(body) == 0 {
				return nil, errAt(i, "empty expression")
			}
			segs = append(segs, segment{text: src[i : end+1], start: i, body: body})
			i = end + 1
			continue
		}
		lit.WriteByte(c)
		i++
	}
	flush()
	return segs, nil
}

func isOpenDelim(s string) bool {
	return len(s) >= 2 && (s[0] == '$' || s[0] == '#') && s[1] == '{'
}

// lexBody reads the tokens of an expression body starting at pos and returns
// them with the offset of the closing brace. Braces inside the body (map
// literals) nest; braces inside string literals do not count.
func lexBody(src string, pos int) ([]token, int, error) {
	var toks []token
	depth := 0
	i := pos
	for {
		for i < len(src) {
			r, w := utf8.DecodeRuneInString(src[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += w
		}
		if i >= len(src) {
			return nil, 0, errAt(pos-2, "missing closing '}' for the expression")
		}
		c := src[i]
		switch {
		case c == '}' && depth == 0:
			return toks, i, nil
		case c == '\'' || c == '"':
			s, end, err := lexString(src, i)
			if err != nil {
				return nil, 0, err
			}
			toks = append(toks, token{kind: tkString, text: s, pos: i})
			i = end
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]) && !endsOperand(toks):
			n, end, err := lexNumber(src, i)
			if err != nil {
				return nil, 0, err
			}
			toks = append(toks, token{kind: tkNumber, text: n, pos: i})
			i = end
		default:
			if r, _ := utf8.DecodeRuneInString(src[i:]); isIdentStart(r) {
				end := i
				for end < len(src) {
					r, w := utf8.DecodeRuneInString(src[end:])
					if !isIdentStart(r) && !unicode.IsDigit(r) {
						break
					}
					end += w
				}
				toks = append(toks, token{kind: tkIdent, text: src[i:end], pos: i})
				i = end
				continue
			}
			p := punct(src[i:])
			if p == "" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, 0, errAt(i, "unexpected character %q", r)
			}
			switch p {
			case "{":
				depth++
			case "}":
				depth--
			}
			toks = append(toks, token{kind: tkPunct, text: p, pos: i})
			i += len(p)
		}
	}
}

// endsOperand reports whether the last token can end an operand, so that a
// following ".5" is a (bad) property access rather than a number.
func endsOperand(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	last := toks[len(toks)-1]
	switch last.kind {
	case tkPunct:
		return last.text == ")" || last.text == "]" || last.text == "}"
	case tkIdent:
		afterDot := len(toks) > 1 && toks[len(toks)-2].kind == tkPunct && toks[len(toks)-2].text == "."
		return afterDot || !wordOperators[last.text]
	}
	return true
}

// wordOperators are JUEL's reserved words that are operators.
var wordOperators = map[string]bool{
	"eq": true, "ne": true, "lt": true, "gt": true, "le": true, "ge": true, "and": true, "or": true,
	"not": true, "div": true, "mod": true, "empty": true, "instanceof": true,
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isIdentStart matches the characters expr accepts in names, which covers
// the Java identifiers JUEL users write ('$' and '_' included).
func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }

var puncts = []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}"}

func punct(s string) string {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	return ""
}

// lexString decodes a JUEL string literal: backslash escapes the quote and
// the backslash; any other backslash stays as written.
func lexString(src string, pos int) (string, int, error) {
	quote := src[pos]
	var b strings.Builder
	for i := pos + 1; i < len(src); i++ {
		c := src[i]
		switch {
		case c == quote:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\'' || src[i+1] == '"' || src[i+1] == '\\'):
			b.WriteByte(src[i+1])
			i++
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errAt(pos, "unterminated string literal")
}

// lexNumber reads an integer or floating literal and returns it in a form
// expr parses ("1." becomes "1.0", ".5" becomes "0.5").
func lexNumber(src string, pos int) (string, int, error) {
	i := pos
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	intPart := src[pos:i]
	if intPart == "" {
		intPart = "0"
	}
	frac, exp := "", ""
	float := false
	// A dot followed by a name is a property access on an integer, not a fraction.
	if i < len(src) && src[i] == '.' && !(i+1 < len(src) && isIdentStartByte(src[i+1])) {
		float = true
		j := i + 1
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		frac = src[i+1 : j]
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		k := j
		for k < len(src) && isDigit(src[k]) {
			k++
		}
		if k == j {
			return "", 0, errAt(pos, "malformed number %q", src[pos:k])
		}
		float = true
		exp = "e" + src[i+1:k]
		i = k
	}
	if i < len(src) {
		if r, _ := utf8.DecodeRuneInString(src[i:]); isIdentStart(r) || float && src[i] == '.' {
			return "", 0, errAt(pos, "malformed number %q", src[pos:i+1])
		}
	}
	if !float {
		return intPart, i, nil
	}
	if frac == "" {
		frac = "0"
	}
	return intPart + "." + frac + exp, i, nil
}

func isIdentStartByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf
}

// Names starting with reservedPrefix are the translation's own (helpers and
// renamed identifiers); sources may not use them.
const reservedPrefix = "__juel_"

// wordOps maps JUEL's word operators to expr's symbols.
var wordOps = map[string]string{
	"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">=",
	"and": "&&", "or": "||", "not": "!", "div": "/", "mod": "%",
	"true": "true", "false": "false", "null": "nil",
}

// exprWords are names expr's lexer or parser treats specially; identifiers
// spelled like them are renamed before expr sees them.
var exprWords = map[string]bool{
	"in": true, "matches": true, "contains": true, "startsWith": true, "endsWith": true,
	"let": true, "if": true, "else": true, "nil": true, "not": true, "and": true, "or": true,
}

func needsRename(name string) bool {
	if exprWords[name] || strings.ContainsRune(name, '$') {
		return true
	}
	_, isBuiltin := builtin.Index[name]
	return isBuiltin
}

// span maps a rune offset of the translated text back to the source.
type span struct {
	out int // rune offset in the translated text
	pos int // byte offset in the source
}

// translation is the expr source of one JUEL body.
type translation struct {
	text    string
	runes   int // length of text in runes
	spans   []span
	renamed map[string]string // expr name → JUEL name
	names   []string          // top-level names, in order of first use
}

type translator struct {
	toks    []token
	match   []int // index of the matching bracket, -1 for other tokens
	b       strings.Builder
	runes   int
	tr      translation
	inName  map[string]bool
	aliases map[string]string // JUEL name → expr name
}

func translate(toks []token) (*translation, error) {
	t := &translator{toks: toks, inName: map[string]bool{}, aliases: map[string]string{}}
	if err := t.matchBrackets(); err != nil {
		return nil, err
	}
	if err := t.emitRange(0, len(toks)); err != nil {
		return nil, err
	}
	t.tr.text, t.tr.runes = t.b.String(), t.runes
	return &t.tr, nil
}

var closing = map[string]string{"(": ")", "[": "]", "{": "}"}

// maxNesting bounds brackets inside brackets plus chained prefix operators:
// deeper expressions are not written by people, and expr's parser (and the
// translation of empty) would take time quadratic in the depth.
const maxNesting = 100

// matchBrackets pairs the brackets and enforces maxNesting.
func (t *translator) matchBrackets() error {
	t.match = make([]int, len(t.toks))
	var stack []int
	prefixes := 0 // prefix operators in a row
	for i, tk := range t.toks {
		t.match[i] = -1
		if t.isPrefixOp(i) {
			prefixes++
		} else {
			prefixes = 0
		}
		if len(stack)+prefixes > maxNesting {
			return errAt(tk.pos, "expression nested too deeply (more than %d levels)", maxNesting)
		}
		if tk.kind != tkPunct {
			continue
		}
		switch tk.text {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			if len(stack) == 0 {
				return errAt(tk.pos, "unexpected %q", tk.text)
			}
			open := stack[len(stack)-1]
			if closing[t.toks[open].text] != tk.text {
				return errAt(tk.pos, "unexpected %q", tk.text)
			}
			stack = stack[:len(stack)-1]
			t.match[open], t.match[i] = i, open
		}
	}
	if len(stack) > 0 {
		open := t.toks[stack[len(stack)-1]]
		return errAt(open.pos, "%q is not closed", open.text)
	}
	return nil
}

func (t *translator) is(i int, kind tokKind, text string) bool {
	return i >= 0 && i < len(t.toks) && t.toks[i].kind == kind && t.toks[i].text == text
}

func (t *translator) emit(s string, pos int) {
	if t.b.Len() > 0 {
		t.b.WriteByte(' ')
		t.runes++
	}
	t.tr.spans = append(t.tr.spans, span{out: t.runes, pos: pos})
	t.b.WriteString(s)
	t.runes += utf8.RuneCountInString(s)
}

func (t *translator) emitRange(lo, hi int) error {
	for i := lo; i < hi; {
		tk := t.toks[i]
		if tk.kind == tkIdent && tk.text == "empty" && !t.is(i-1, tkPunct, ".") && !t.isMapKey(i) {
			end, err := t.operandEnd(i + 1)
			if err != nil {
				return err
			}
			t.emit(fnEmpty+"(", tk.pos)
			if err := t.emitRange(i+1, end); err != nil {
				return err
			}
			t.emit(")", tk.pos)
			i = end
			continue
		}
		if err := t.emitToken(i); err != nil {
			return err
		}
		i++
	}
	return nil
}

// isPrefixOp reports whether token i is a unary prefix operator.
func (t *translator) isPrefixOp(i int) bool {
	if t.is(i-1, tkPunct, ".") {
		return false // a property name such as order.empty
	}
	if t.is(i, tkPunct, "-") {
		return !endsOperand(t.toks[:i])
	}
	return t.is(i, tkPunct, "!") || t.is(i, tkIdent, "not") || t.is(i, tkIdent, "empty")
}

// operandEnd returns the end of the unary operand starting at token i: prefix
// operators, then a primary, then property, index and call suffixes.
func (t *translator) operandEnd(i int) (int, error) {
	for i < len(t.toks) && t.isPrefixOp(i) {
		i++
	}
	if i >= len(t.toks) {
		return 0, errAt(t.toks[len(t.toks)-1].pos, "missing operand for \"empty\"")
	}
	switch tk := t.toks[i]; {
	case t.match[i] > i:
		i = t.match[i] + 1
	case tk.kind == tkIdent || tk.kind == tkNumber || tk.kind == tkString:
		i++
	default:
		return 0, errAt(tk.pos, "unexpected %q after \"empty\"", tk.text)
	}
	for i < len(t.toks) {
		switch {
		case t.is(i, tkPunct, "."):
			i += 2
		case t.is(i, tkPunct, "[") || t.is(i, tkPunct, "("):
			i = t.match[i] + 1
		default:
			return i, nil
		}
	}
	return min(i, len(t.toks)), nil
}

func (t *translator) emitToken(i int) error {
	tk := t.toks[i]
	switch tk.kind {
	case tkNumber:
		t.emit(tk.text, tk.pos)
	case tkString:
		t.emit(strconv.Quote(tk.text), tk.pos)
	case tkPunct:
		if tk.text == "." && (i+1 >= len(t.toks) || t.toks[i+1].kind != tkIdent) {
			return errAt(tk.pos, "expected a property name after '.'")
		}
		t.emit(tk.text, tk.pos)
	case tkIdent:
		return t.emitIdent(i)
	}
	return nil
}

func (t *translator) emitIdent(i int) error {
	tk := t.toks[i]
	name := tk.text
	if strings.HasPrefix(name, reservedPrefix) {
		return errAt(tk.pos, "the name %q is reserved", name)
	}
	if t.is(i-1, tkPunct, ".") {
		// A property or method name: expr accepts any name here, and word
		// operators are plain names (order.empty).
		t.emit(name, tk.pos)
		return nil
	}
	if t.isMapKey(i) {
		t.emit(strconv.Quote(name), tk.pos)
		return nil
	}
	if op, ok := wordOps[name]; ok {
		t.emit(op, tk.pos)
		return nil
	}
	if name == "instanceof" {
		return errAt(tk.pos, "operator \"instanceof\" is not supported")
	}
	if !t.inName[name] {
		t.inName[name] = true
		t.tr.names = append(t.tr.names, name)
	}
	if needsRename(name) {
		alias, ok := t.aliases[name]
		if !ok {
			alias = fmt.Sprintf("%sid%d_", reservedPrefix, len(t.aliases))
			t.aliases[name] = alias
			if t.tr.renamed == nil {
				t.tr.renamed = map[string]string{}
			}
			t.tr.renamed[alias] = name
		}
		name = alias
	}
	t.emit(name, tk.pos)
	return nil
}

// isMapKey reports whether the name at i is a key of a map literal
// ({a: 1}): expr would read it as a string, so it is emitted as one.
func (t *translator) isMapKey(i int) bool {
	if !t.is(i+1, tkPunct, ":") || !(t.is(i-1, tkPunct, "{") || t.is(i-1, tkPunct, ",")) {
		return false
	}
	depth := 0
	for j := i - 1; j >= 0; j-- {
		if t.toks[j].kind != tkPunct {
			continue
		}
		switch t.toks[j].text {
		case ")", "]", "}":
			depth++
		case "(", "[":
			if depth == 0 {
				return false
			}
			depth--
		case "{":
			if depth == 0 {
				return true
			}
			depth--
		}
	}
	return false
}

// sourcePos maps a rune offset of the translated text to a source offset.
func (tr *translation) sourcePos(out int) int {
	pos := 0
	for _, s := range tr.spans {
		if s.out > out {
			break
		}
		pos = s.pos
	}
	return pos
}
