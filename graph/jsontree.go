package graph

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonNode is one JSON value with its byte offset, keeping object members in
// the order written (attributes are passed to kernels in that order, and
// duplicate names must be reported, which map decoding would hide).
type jsonNode struct {
	kind    jsonKind
	off     int64
	members []jsonMember // objects
	elems   []*jsonNode  // arrays
	str     string       // strings
	num     json.Number  // numbers
	boolean bool
}

type jsonMember struct {
	key    string
	keyOff int64
	val    *jsonNode
}

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
// offset of the problem and a message.
//
// It is a hand-written scanner rather than encoding/json's Token API: that
// API allocates an interface per token and was a third of the time spent
// loading a 100k-op graph.
func parseJSON(data []byte) (*jsonNode, int64, error) {
	s := &jsonScanner{data: data}
	s.skipSpace()
	root, err := s.value(0)
	if err != nil {
		return nil, int64(s.pos), err
	}
	s.skipSpace()
	if s.pos < len(data) {
		return nil, int64(s.pos), fmt.Errorf("unexpected data after the top-level value")
	}
	return root, 0, nil
}

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the stack
// (encoding/json uses the same limit).
const maxJSONDepth = 10_000

type jsonScanner struct {
	data     []byte
	pos      int
	slab     []jsonNode   // nodes are allocated in chunks
	interned [1024]string // object keys and small numbers repeat
	buf      []byte       // scratch for strings with escapes
	// Members and elements are gathered on these stacks and copied out at
	// the closing bracket, so each object or array allocates once.
	memberStack []jsonMember
	elemStack   []*jsonNode
}

func (s *jsonScanner) node(kind jsonKind, off int) *jsonNode {
	if len(s.slab) == 0 {
		s.slab = make([]jsonNode, 1024)
	}
	n := &s.slab[0]
	s.slab = s.slab[1:]
	n.kind, n.off = kind, int64(off)
	return n
}

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

// intern returns b as a string, shared with an earlier equal one when it is
// still in the small cache. A bounded cache, not a map: under "tensors"
// every key is a new name, and a growing map cost more than it saved.
func (s *jsonScanner) intern(b []byte) string {
	if len(b) > 24 {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &s.interned[h%uint32(len(s.interned))]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
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

func (s *jsonScanner) value(depth int) (*jsonNode, error) {
	if s.pos >= len(s.data) {
		return nil, s.eof()
	}
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested too deeply (more than %d levels)", maxJSONDepth)
	}
	start := s.pos
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		str, err := s.str(false)
		if err != nil {
			return nil, err
		}
		n := s.node(jsonString, start)
		n.str = str
		return n, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := s.number(); err != nil {
			return nil, err
		}
		n := s.node(jsonNumber, start)
		if s.pos-start <= 4 {
			n.num = json.Number(s.intern(s.data[start:s.pos]))
		} else {
			n.num = json.Number(s.data[start:s.pos])
		}
		return n, nil
	case c == 't':
		return s.literal("true", jsonBool, true)
	case c == 'f':
		return s.literal("false", jsonBool, false)
	case c == 'n':
		return s.literal("null", jsonNull, false)
	}
	return nil, s.invalid("looking for beginning of value")
}

func (s *jsonScanner) literal(word string, kind jsonKind, v bool) (*jsonNode, error) {
	start := s.pos
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			return nil, s.eof()
		}
		if s.data[s.pos] != word[i] {
			return nil, s.invalid("in literal " + word)
		}
		s.pos++
	}
	n := s.node(kind, start)
	n.boolean = v
	return n, nil
}

func (s *jsonScanner) object(depth int) (*jsonNode, error) {
	n := s.node(jsonObject, s.pos)
	s.pos++ // {
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return n, nil
	}
	base := len(s.memberStack)
	defer func() { s.memberStack = s.memberStack[:base] }()
	for {
		if s.pos >= len(s.data) {
			return nil, s.eof()
		}
		if s.data[s.pos] != '"' {
			return nil, s.invalid("looking for beginning of object key string")
		}
		keyOff := s.pos
		key, err := s.str(true)
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.eof()
		}
		if s.data[s.pos] != ':' {
			return nil, s.invalid("after object key")
		}
		s.pos++
		s.skipSpace()
		val, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		s.memberStack = append(s.memberStack, jsonMember{key, int64(keyOff), val})
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.eof()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case '}':
			s.pos++
			n.members = append([]jsonMember(nil), s.memberStack[base:]...)
			return n, nil
		default:
			return nil, s.invalid("after object key:value pair")
		}
	}
}

func (s *jsonScanner) array(depth int) (*jsonNode, error) {
	n := s.node(jsonArray, s.pos)
	s.pos++ // [
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return n, nil
	}
	base := len(s.elemStack)
	defer func() { s.elemStack = s.elemStack[:base] }()
	for {
		el, err := s.value(depth + 1)
		if err != nil {
			return nil, err
		}
		s.elemStack = append(s.elemStack, el)
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.eof()
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case ']':
			s.pos++
			n.elems = append([]*jsonNode(nil), s.elemStack[base:]...)
			return n, nil
		default:
			return nil, s.invalid("after array element")
		}
	}
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
// interned. Invalid UTF-8 becomes U+FFFD, as encoding/json does.
func (s *jsonScanner) str(key bool) (string, error) {
	d := s.data
	s.pos++
	start := s.pos
	for s.pos < len(d) {
		c := d[s.pos]
		switch {
		case c == '"':
			var v string
			if key {
				v = s.intern(d[start:s.pos])
			} else {
				v = string(d[start:s.pos])
			}
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
			b = utf8.AppendRune(b, r) // RuneError for invalid bytes
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
					r2 := unicode.ReplacementChar
					if s.pos+2 < len(d) && d[s.pos+1] == '\\' && d[s.pos+2] == 'u' {
						save := s.pos
						s.pos += 2
						lo, err := s.hex4()
						if err != nil {
							return "", err
						}
						if dec := utf16.DecodeRune(r, lo); dec != unicode.ReplacementChar {
							r2 = dec
						} else {
							s.pos = save
						}
					}
					r = r2
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
