package wgrt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The header of a safetensors file is read by a parser of its own rather
// than encoding/json, which takes the last of duplicate keys and turns
// invalid UTF-8 into U+FFFD: docs/safetensors.md refuses both. The C++
// runtime's detail::SafetensorsHeader (wrapgen_runtime.cc) is this parser
// check for check, so the two refuse the same files with the same
// messages.

// safetensorsMaxRank is the largest rank a safetensors tensor may have:
// the C++ runtime's kMaxRank, so that a file loads in both runtimes or in
// neither.
const safetensorsMaxRank = 8

// safetensorsEntry is one tensor of a header as written, before any check
// of its values. At most safetensorsMaxRank+1 dimensions and 3 offsets are
// kept; rank and numOffsets count them all.
type safetensorsEntry struct {
	name       string
	dtype      string
	shape      []int64
	rank       int
	offsets    []int64
	numOffsets int
	index      int // position in the header
}

// safetensorsHeader parses b[pos:end], the header of a file whose bytes are
// b; errors give positions in the file.
type safetensorsHeader struct {
	b        []byte
	pos, end int
}

func (p *safetensorsHeader) fail(format string, args ...any) error {
	return fmt.Errorf("header: byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// expected reports that what is missing at the current position.
func (p *safetensorsHeader) expected(what string) error {
	if p.pos >= p.end {
		return p.fail("the header ends where %s was expected", what)
	}
	return p.fail("expected %s", what)
}

func (p *safetensorsHeader) peek() int {
	if p.pos < p.end {
		return int(p.b[p.pos])
	}
	return -1
}

// space skips JSON whitespace.
func (p *safetensorsHeader) space() {
	for p.pos < p.end {
		switch p.b[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// parse reads the whole header: an object of tensors and at most one
// __metadata__, then only whitespace.
func (p *safetensorsHeader) parse() ([]safetensorsEntry, error) {
	if p.peek() != '{' {
		return nil, p.fail("the header must begin with {")
	}
	p.pos++
	var entries []safetensorsEntry
	seen := map[string]bool{}
	p.space()
	if p.peek() == '}' {
		p.pos++
	} else {
		for {
			p.space()
			at := p.pos
			name, err := p.string()
			if err != nil {
				return nil, err
			}
			if seen[name] {
				p.pos = at
				return nil, p.fail("key %s appears twice", quoteName(name))
			}
			seen[name] = true
			p.space()
			if p.peek() != ':' {
				return nil, p.expected(":")
			}
			p.pos++
			p.space()
			if name == "__metadata__" {
				err = p.metadata()
			} else {
				var e safetensorsEntry
				e, err = p.tensor(name)
				e.index = len(entries)
				entries = append(entries, e)
			}
			if err != nil {
				return nil, err
			}
			p.space()
			if p.peek() == ',' {
				p.pos++
				continue
			}
			if p.peek() != '}' {
				return nil, p.expected(", or }")
			}
			p.pos++
			break
		}
	}
	p.space()
	if p.pos != p.end {
		return nil, p.fail("only whitespace may follow the header's object")
	}
	return entries, nil
}

// metadata reads __metadata__: an object of strings.
func (p *safetensorsHeader) metadata() error {
	if p.peek() != '{' {
		return p.expected("an object of strings for __metadata__")
	}
	p.pos++
	p.space()
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	seen := map[string]bool{}
	for {
		p.space()
		at := p.pos
		key, err := p.string()
		if err != nil {
			return err
		}
		if seen[key] {
			p.pos = at
			return p.fail("__metadata__: key %s appears twice", quoteName(key))
		}
		seen[key] = true
		p.space()
		if p.peek() != ':' {
			return p.expected(":")
		}
		p.pos++
		p.space()
		if _, err := p.string(); err != nil {
			return err
		}
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != '}' {
			return p.expected(", or }")
		}
		p.pos++
		return nil
	}
}

// tensor reads one tensor's object: dtype, shape and data_offsets, each
// exactly once, and nothing else.
func (p *safetensorsHeader) tensor(name string) (safetensorsEntry, error) {
	e := safetensorsEntry{name: name}
	if p.peek() != '{' {
		return e, p.expected("an object for tensor " + quoteName(name))
	}
	p.pos++
	var hasDType, hasShape, hasOffsets bool
	p.space()
	if p.peek() == '}' {
		p.pos++
	} else {
		for {
			p.space()
			at := p.pos
			field, err := p.string()
			if err != nil {
				return e, err
			}
			p.space()
			if p.peek() != ':' {
				return e, p.expected(":")
			}
			p.pos++
			p.space()
			twice := false
			switch field {
			case "dtype":
				twice, hasDType = hasDType, true
				if !twice {
					e.dtype, err = p.string()
				}
			case "shape":
				twice, hasShape = hasShape, true
				if !twice {
					e.shape, e.rank, err = p.uints(safetensorsMaxRank + 1)
				}
			case "data_offsets":
				twice, hasOffsets = hasOffsets, true
				if !twice {
					e.offsets, e.numOffsets, err = p.uints(3)
				}
			default:
				p.pos = at
				return e, p.fail("tensor %s: unknown field %s", quoteName(name), quoteName(field))
			}
			if twice {
				p.pos = at
				return e, p.fail("tensor %s: field %s appears twice", quoteName(name), field)
			}
			if err != nil {
				return e, err
			}
			p.space()
			if p.peek() == ',' {
				p.pos++
				continue
			}
			if p.peek() != '}' {
				return e, p.expected(", or }")
			}
			p.pos++
			break
		}
	}
	switch {
	case !hasDType:
		return e, p.fail("tensor %s has no dtype", quoteName(name))
	case !hasShape:
		return e, p.fail("tensor %s has no shape", quoteName(name))
	case !hasOffsets:
		return e, p.fail("tensor %s has no data_offsets", quoteName(name))
	}
	return e, nil
}

// uints reads an array of non-negative integers, keeping the first keep of
// them and counting all.
func (p *safetensorsHeader) uints(keep int) ([]int64, int, error) {
	if p.peek() != '[' {
		return nil, 0, p.expected("[")
	}
	p.pos++
	vals := []int64{}
	n := 0
	p.space()
	if p.peek() == ']' {
		p.pos++
		return vals, 0, nil
	}
	for {
		p.space()
		v, err := p.uint()
		if err != nil {
			return nil, 0, err
		}
		if n < keep {
			vals = append(vals, v)
		}
		n++
		p.space()
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != ']' {
			return nil, 0, p.expected(", or ]")
		}
		p.pos++
		return vals, n, nil
	}
}

// uint reads a non-negative integer in JSON's notation (no leading zeros,
// no fraction, no exponent) that fits an int64.
func (p *safetensorsHeader) uint() (int64, error) {
	start := p.pos
	if c := p.peek(); c < '0' || c > '9' {
		return 0, p.expected("a non-negative integer")
	}
	var v int64
	for p.pos < p.end && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
		if v == 0 && p.pos > start {
			p.pos = start
			return 0, p.fail("an integer with a leading zero")
		}
		d := int64(p.b[p.pos] - '0')
		if v > (maxInt64-d)/10 {
			p.pos = start
			return 0, p.fail("an integer above 9223372036854775807")
		}
		v = v*10 + d
		p.pos++
	}
	if c := p.peek(); c == '.' || c == 'e' || c == 'E' {
		p.pos = start
		return 0, p.fail("expected a non-negative integer, found a fraction or exponent")
	}
	return v, nil
}

const maxInt64 = int64(^uint64(0) >> 1)

// string reads a JSON string: every escape JSON has, \u with surrogate
// pairs, and UTF-8 text; control characters must be escaped.
func (p *safetensorsHeader) string() (string, error) {
	if p.peek() != '"' {
		return "", p.expected("a string")
	}
	p.pos++
	var s []byte
	for {
		if p.pos >= p.end {
			return "", p.fail("the header ends inside a string")
		}
		c := p.b[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(s), nil
		case c < 0x20:
			return "", p.fail("a control character in a string (JSON needs it escaped)")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			s = utf8.AppendRune(s, r)
		case c < 0x80:
			s = append(s, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.b[p.pos:p.end])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail("a string is not valid UTF-8")
			}
			s = append(s, p.b[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// escape reads the escape at the current backslash.
func (p *safetensorsHeader) escape() (rune, error) {
	if p.pos+1 >= p.end {
		return 0, p.fail("the header ends inside a string")
	}
	c := p.b[p.pos+1]
	if c != 'u' {
		r, ok := map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]
		if !ok {
			return 0, p.fail("an unknown escape in a string")
		}
		p.pos += 2
		return r, nil
	}
	r, ok := p.hex4(p.pos + 2)
	if !ok {
		return 0, p.fail("a \\u escape without 4 hex digits")
	}
	if r >= 0xdc00 && r <= 0xdfff {
		return 0, p.fail("a \\u escape of a lone surrogate")
	}
	if r < 0xd800 || r > 0xdbff {
		p.pos += 6
		return r, nil
	}
	if p.pos+7 >= p.end || p.b[p.pos+6] != '\\' || p.b[p.pos+7] != 'u' {
		return 0, p.fail("a \\u escape of a lone surrogate")
	}
	lo, ok := p.hex4(p.pos + 8)
	if !ok || lo < 0xdc00 || lo > 0xdfff {
		return 0, p.fail("a \\u escape of a lone surrogate")
	}
	p.pos += 12
	return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), nil
}

// hex4 reads the 4 hex digits at i.
func (p *safetensorsHeader) hex4(i int) (rune, bool) {
	if i+4 > p.end {
		return 0, false
	}
	var r rune
	for _, c := range p.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// quoteName quotes a name for a message: in double quotes, with " and \
// escaped and control bytes as \xHH (the C++ runtime quotes the same way).
func quoteName(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(c)&15, 16))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// dimsText is a shape for a message: [2, 3].
func dimsText(d []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	b.WriteByte(']')
	return b.String()
}
