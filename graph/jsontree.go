package graph

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonNode is one JSON value with its byte offset, keeping object members in
// the order written (attributes are passed to kernels in that order, and
// duplicate names must be reported, which map decoding would hide).
//
// Children are held by value, so a scalar costs no allocation of its own: a
// large graph has millions of them.
type jsonNode struct {
	kind    jsonKind
	boolean bool
	off     int64
	str     string       // a string's value, or a number's text
	kids    []jsonMember // an object's members; an array's elements (with no key)
}

type jsonMember struct {
	key    string
	keyOff int64
	val    jsonNode
}

// num is a number's text.
func (n *jsonNode) num() json.Number { return json.Number(n.str) }

// elem is an array's i-th element.
func (n *jsonNode) elem(i int) *jsonNode { return &n.kids[i].val }

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonObject
	jsonArray
	jsonString
	jsonNumber
	jsonBool
)

func (k jsonKind) String() string {
	return [...]string{"null", "an object", "an array", "a string", "a number", "a boolean"}[k]
}

// lineIndex converts byte offsets into 1-based line and column.
type lineIndex []int64 // offsets of line starts

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, int64(i+1))
		}
	}
	return idx
}

func (li lineIndex) pos(off int64) (line, col int) {
	i := sort.Search(len(li), func(i int) bool { return li[i] > off }) - 1
	return i + 1, int(off-li[i]) + 1
}

// parseJSON reads data into a tree. On malformed input it returns the byte
// offset of the problem and a *jsonError, which names the place.
//
// Beyond encoding/json it refuses what a graph can never mean: invalid UTF-8
// and lone UTF-16 surrogates in strings (encoding/json turns both into
// U+FFFD, silently changing a name) and a key given twice in one object
// (encoding/json keeps the last; in a graph it is always a mistake). Every
// object is checked here, so no decoder of a field can forget to.
//
// It is a hand-written scanner rather than encoding/json's Token API: that
// API allocates an interface per token and was a third of the time spent
// loading a 100k-op graph.
func parseJSON(data []byte) (*jsonNode, int64, error) {
	// One immutable copy of the input: strings without escapes are slices
	// of it instead of a small allocation each (a large graph has about a
	// million), which the garbage collector need not scan.
	s := &jsonScanner{data: data, text: string(data)}
	s.skipSpace()
	var root jsonNode
	if err := s.value(0, &root); err != nil {
		je := asJSONError(err, s.pos)
		return nil, je.off, je
	}
	s.skipSpace()
	if s.pos < len(data) {
		return nil, int64(s.pos), &jsonError{off: int64(s.pos), msg: "unexpected data after the top-level value", first: -1}
	}
	return &root, 0, nil
}

// jsonError is a problem in the JSON text: where it is (byte offset and the
// path of keys and indices leading to it) and what it is.
type jsonError struct {
	off   int64
	path  []string // innermost first, as the error travels up
	msg   string
	first int64 // for a duplicate key, where it was first given; else -1
}

func (e *jsonError) Error() string { return e.msg }

// place is the path to the problem: `ops[2].inplace`, `tensors["a b"]`.
func (e *jsonError) place() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		seg := e.path[i]
		if b.Len() > 0 && seg[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// asJSONError gives err (from the scanner, at pos) its offset if it has none.
func asJSONError(err error, pos int) *jsonError {
	if je, ok := err.(*jsonError); ok {
		return je
	}
	return &jsonError{off: int64(pos), msg: err.Error(), first: -1}
}

// within records that err happened inside member key (or element index i
// when key is "" and isKey false) of the container being scanned.
func within(err error, pos int, object bool, key string, i int) error {
	je := asJSONError(err, pos)
	switch {
	case !object:
		je.path = append(je.path, "["+strconv.Itoa(i)+"]")
	case isPlainKey(key):
		je.path = append(je.path, key)
	default:
		je.path = append(je.path, "["+strconv.Quote(key)+"]")
	}
	return je
}

// isPlainKey reports whether key reads clearly after a dot in a place.
func isPlainKey(key string) bool {
	if key == "" {
		return false
	}
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack
// (encoding/json uses the same limit).
const maxJSONDepth = 10_000

type jsonScanner struct {
	data []byte
	text string // data as a string, which strings are cut from
	pos  int
	buf  []byte // scratch for strings with escapes
	// Members and elements are gathered on this stack and copied out at
	// the closing bracket.
	stack []jsonMember
	slab  []jsonMember // where kidsOf cuts containers' members from
}

// kidsOf copies the members above base on the stack into memory cut from a
// slab: millions of small containers then cost a few allocations, not one
// each.
func (s *jsonScanner) kidsOf(base int) []jsonMember {
	n := len(s.stack) - base
	if n > len(s.slab) {
		if n > jsonSlab/8 {
			return append([]jsonMember(nil), s.stack[base:]...)
		}
		s.slab = make([]jsonMember, jsonSlab)
	}
	out := s.slab[:n:n]
	s.slab = s.slab[n:]
	copy(out, s.stack[base:])
	return out
}

// jsonSlab is how many members a slab holds.
const jsonSlab = 4096

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonScanner) eof() error { return fmt.Errorf("unexpected end of file") }

func (s *jsonScanner) invalid(context string) error {
	return fmt.Errorf("invalid character %s %s", quoteChar(s.data[s.pos]), context)
}

func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return strconv.Quote(string(rune(c)))
	}
	return "'" + string(c) + "'"
}

// value scans the value at s.pos into n.
func (s *jsonScanner) value(depth int, n *jsonNode) error {
	if s.pos >= len(s.data) {
		return s.eof()
	}
	if depth > maxJSONDepth {
		return fmt.Errorf("nested too deeply (more than %d levels)", maxJSONDepth)
	}
	start := s.pos
	n.off = int64(start)
	switch c := s.data[s.pos]; {
	case c == '{':
		n.kind = jsonObject
		return s.container(depth, n, '}')
	case c == '[':
		n.kind = jsonArray
		return s.container(depth, n, ']')
	case c == '"':
		str, err := s.str()
		n.kind, n.str = jsonString, str
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		if err := s.number(); err != nil {
			return err
		}
		n.kind = jsonNumber
		n.str = s.text[start:s.pos]
		return nil
	case c == 't':
		n.kind, n.boolean = jsonBool, true
		return s.literal("true")
	case c == 'f':
		n.kind = jsonBool
		return s.literal("false")
	case c == 'n':
		n.kind = jsonNull
		return s.literal("null")
	}
	return s.invalid("looking for beginning of value")
}

func (s *jsonScanner) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return s.eof()
		}
		if s.data[s.pos] != word[i] {
			return s.invalid("in literal " + word)
		}
		s.pos++
	}
	return nil
}

// container scans an object or array (s.pos on its opening bracket) into
// n.kids.
func (s *jsonScanner) container(depth int, n *jsonNode, closing byte) error {
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == closing {
		s.pos++
		return nil
	}
	base := len(s.stack)
	err := s.members(depth, n, closing, base)
	s.stack = s.stack[:base]
	return err
}

// members scans the members or elements of a container onto the stack
// (above base) and copies them into n at the closing bracket.
func (s *jsonScanner) members(depth int, n *jsonNode, closing byte, base int) error {
	object := closing == '}'
	var m jsonMember
	for i := 0; ; i++ {
		m = jsonMember{}
		if object {
			if s.pos >= len(s.data) {
				return s.eof()
			}
			if s.data[s.pos] != '"' {
				return s.invalid("looking for beginning of object key string")
			}
			m.keyOff = int64(s.pos)
			key, err := s.str()
			if err != nil {
				return err
			}
			m.key = key
			s.skipSpace()
			if s.pos >= len(s.data) {
				return s.eof()
			}
			if s.data[s.pos] != ':' {
				return s.invalid("after object key")
			}
			s.pos++
			s.skipSpace()
		}
		if err := s.value(depth+1, &m.val); err != nil {
			return within(err, s.pos, object, m.key, i)
		}
		s.stack = append(s.stack, m)
		s.skipSpace()
		if s.pos >= len(s.data) {
			return s.eof()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case closing:
			if object {
				if err := s.checkUniqueKeys(base); err != nil {
					return err
				}
			}
			s.pos++
			n.kids = s.kidsOf(base)
			return nil
		default:
			if object {
				return s.invalid("after object key:value pair")
			}
			return s.invalid("after array element")
		}
	}
}

// checkUniqueKeys refuses an object (its members above base on the stack)
// that gives a key twice, naming the second.
func (s *jsonScanner) checkUniqueKeys(base int) error {
	ms := s.stack[base:]
	dup := func(first, second *jsonMember) error {
		return &jsonError{off: second.keyOff, msg: fmt.Sprintf("key %q is given twice", second.key), first: first.keyOff}
	}
	// Most objects have a few members: comparing pairs costs less than a map.
	if len(ms) <= 16 {
		for i := 1; i < len(ms); i++ {
			for j := 0; j < i; j++ {
				if ms[i].key == ms[j].key {
					return dup(&ms[j], &ms[i])
				}
			}
		}
		return nil
	}
	seen := make(map[string]int, len(ms))
	for i := range ms {
		if j, ok := seen[ms[i].key]; ok {
			return dup(&ms[j], &ms[i])
		}
		seen[ms[i].key] = i
	}
	return nil
}

// number scans a JSON number at s.pos, checking its grammar.
func (s *jsonScanner) number() error {
	d := s.data
	if d[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		start := s.pos
		for s.pos < len(d) && d[s.pos] >= '0' && d[s.pos] <= '9' {
			s.pos++
		}
		return s.pos - start
	}
	if s.pos >= len(d) {
		return s.eof()
	}
	if d[s.pos] == '0' {
		s.pos++
	} else if digits() == 0 {
		return s.invalid("in numeric literal")
	}
	if s.pos < len(d) && d[s.pos] == '.' {
		s.pos++
		if s.pos >= len(d) {
			return s.eof()
		}
		if digits() == 0 {
			return s.invalid("after decimal point in numeric literal")
		}
	}
	if s.pos < len(d) && (d[s.pos] == 'e' || d[s.pos] == 'E') {
		s.pos++
		if s.pos < len(d) && (d[s.pos] == '+' || d[s.pos] == '-') {
			s.pos++
		}
		if s.pos >= len(d) {
			return s.eof()
		}
		if digits() == 0 {
			return s.invalid("in exponent of numeric literal")
		}
	}
	return nil
}

// str scans a JSON string at s.pos (on its opening quote); keys are
// cut from the input. Invalid UTF-8 and lone surrogates are refused.
func (s *jsonScanner) str() (string, error) {
	d := s.data
	s.pos++
	start := s.pos
	for s.pos < len(d) {
		c := d[s.pos]
		switch {
		case c == '"':
			v := s.text[start:s.pos]
			s.pos++
			return v, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return s.slowStr(start)
		case c < 0x20:
			return "", s.invalid("in string literal")
		}
		s.pos++
	}
	return "", s.eof()
}

func (s *jsonScanner) slowStr(start int) (string, error) {
	d := s.data
	b := append(s.buf[:0], d[start:s.pos]...)
	for s.pos < len(d) {
		c := d[s.pos]
		switch {
		case c == '"':
			s.pos++
			s.buf = b
			return string(b), nil
		case c < 0x20:
			return "", s.invalid("in string literal")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", fmt.Errorf("invalid UTF-8 byte %#02x in string (JSON text must be UTF-8)", c)
			}
			b = append(b, d[s.pos:s.pos+size]...)
			s.pos += size
		case c != '\\':
			b = append(b, c)
			s.pos++
		default:
			s.pos++
			if s.pos >= len(d) {
				return "", s.eof()
			}
			switch e := d[s.pos]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := s.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					escape := s.pos - 5 // the backslash
					lone := fmt.Errorf("lone UTF-16 surrogate \\u%04x in string (it encodes no character)", r)
					if r >= 0xdc00 || s.pos+2 >= len(d) || d[s.pos+1] != '\\' || d[s.pos+2] != 'u' {
						s.pos = escape
						return "", lone
					}
					s.pos += 2
					lo, err := s.hex4()
					if err != nil {
						return "", err
					}
					if r = utf16.DecodeRune(r, lo); r == unicode.ReplacementChar {
						s.pos = escape
						return "", lone
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", s.invalid("in string escape code")
			}
			s.pos++
		}
	}
	return "", s.eof()
}

// hex4 reads the four hex digits after \u; s.pos is on the 'u' and is left
// on the last digit.
func (s *jsonScanner) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		s.pos++
		if s.pos >= len(s.data) {
			return 0, s.eof()
		}
		c := s.data[s.pos]
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, s.invalid("in \\u hexadecimal character escape")
		}
	}
	return r, nil
}
