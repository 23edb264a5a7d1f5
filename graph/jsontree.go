package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
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
func parseJSON(data []byte) (*jsonNode, int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &treeParser{dec: dec, data: data}
	root, err := p.value()
	if err != nil {
		return nil, p.errOffset(err), p.describe(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, p.start(), fmt.Errorf("unexpected data after the top-level value")
	}
	return root, 0, nil
}

type treeParser struct {
	dec  *json.Decoder
	data []byte
}

// start is the offset of the next token: the decoder's offset past
// separators and white space.
func (p *treeParser) start() int64 {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *treeParser) errOffset(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return max(se.Offset-1, 0)
	}
	return p.start()
}

func (p *treeParser) describe(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("unexpected end of file")
	}
	return err
}

func (p *treeParser) value() (*jsonNode, error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	n := &jsonNode{off: off}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n.kind = jsonObject
			for p.dec.More() {
				keyOff := p.start()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, jsonMember{key, keyOff, val})
			}
		case '[':
			n.kind = jsonArray
			for p.dec.More() {
				el, err := p.value()
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, el)
			}
		}
		if _, err := p.dec.Token(); err != nil { // closing delimiter
			return nil, err
		}
	case string:
		n.kind, n.str = jsonString, v
	case json.Number:
		n.kind, n.num = jsonNumber, v
	case bool:
		n.kind, n.boolean = jsonBool, v
	case nil:
		n.kind = jsonNull
	}
	return n, nil
}
