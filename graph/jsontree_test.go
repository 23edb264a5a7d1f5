package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plain turns a tree into what encoding/json decodes (with UseNumber), so the
// scanner can be checked against the standard library.
func plain(n *jsonNode) any {
	switch n.kind {
	case jsonObject:
		m := map[string]any{}
		for i := range n.kids {
			m[n.kids[i].key] = plain(&n.kids[i].val)
		}
		return m
	case jsonArray:
		out := []any{}
		for i := range n.kids {
			out = append(out, plain(n.elem(i)))
		}
		return out
	case jsonString:
		return n.str
	case jsonNumber:
		return n.num()
	case jsonBool:
		return n.boolean
	}
	return nil
}

// stdDecode is the oracle: encoding/json, plus the refusals the scanner adds
// (invalid UTF-8, lone surrogates, duplicate keys), checked here
// independently over encoding/json's tokens.
func stdDecode(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, assert.AnError
	}
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	if err := strictTokens(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// strictTokens walks valid JSON's tokens, refusing a key given twice in one
// object and a string whose raw text has a lone surrogate escape.
func strictTokens(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []*frame
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if s, ok := tok.(string); ok {
			raw := data[before:dec.InputOffset()]
			if err := loneSurrogate(raw[bytes.IndexByte(raw, '"'):]); err != nil {
				return err
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				top := stack[n-1]
				if top.keys[s] {
					return fmt.Errorf("duplicate key %q", s)
				}
				top.keys[s] = true
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]bool{}})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the enclosing object wants a key next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
}

// loneSurrogate checks the escapes of a raw string literal (from its opening
// quote) for a UTF-16 surrogate that is not part of a high-low pair.
func loneSurrogate(raw []byte) error {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32)
		return rune(v), err == nil
	}
	for i := 1; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // a one-letter escape
			continue
		}
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if lo, ok := hex4(i + 6); !ok || lo < 0xdc00 || lo > 0xdfff {
				return fmt.Errorf("lone surrogate at %d", i)
			}
			i += 11
		case r >= 0xdc00 && r <= 0xdfff:
			return fmt.Errorf("lone surrogate at %d", i)
		default:
			i += 5
		}
	}
	return nil
}

// checkAgainstStd fails if the scanner and encoding/json disagree on data.
func checkAgainstStd(t *testing.T, data []byte) {
	t.Helper()
	want, stdErr := stdDecode(data)
	root, off, err := parseJSON(data)
	if stdErr != nil {
		require.Error(t, err, "encoding/json rejects %q (%v) but the scanner accepts it", data, stdErr)
		assert.LessOrEqual(t, off, int64(len(data)))
		return
	}
	require.NoError(t, err, "input %q", data)
	assert.Equal(t, want, plain(root), "input %q", data)
}

var jsonCases = []string{
	`{}`, `[]`, `{"a": [1, -2, 3.5e+3, 0, -0.0, 1E-2], "b": {"c": null, "d": true, "e": false}}`,
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800 x"`, `"\ud800\u0041"`,
	"\"bad utf8 \xff\xfe here\"", "\"ok é ✓\"", `  [ 1 , 2 ]  `,
	`{"a": 1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{1: 2}`, `01`, `1.`, `1e`, `-`, `.5`, `+1`,
	`tru`, `nul`, `[`, `{"a":`, `"abc`, "\"ctl \x01\"", `"\x"`, `"\u12G4"`, `[1] [2]`, `{} x`,
	`[1e5, 123456789012345678901234567890]`, `{"a": {"a": {"a": []}}}`, ``, `   `,
	// Refused beyond encoding/json: invalid UTF-8, lone surrogates,
	// duplicate keys at any depth.
	`"\udc00"`, `"\ud800\ud800"`, `"x\ud800"`, `"\\ud800"`, "\"\xc3\x28\"", "{\"\xff\": 1}", "\"\xed\xa0\x80\"",
	`{"a": 1, "a": 2}`, `{"a": 1, "b": {"c": [], "c": []}}`, `[{"x": 1}, {"x": 1}]`, `{"a": {"a": 1}}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":3}`,
}

func TestScannerMatchesStandardLibrary(t *testing.T) {
	for _, c := range jsonCases {
		checkAgainstStd(t, []byte(c))
	}
	files, err := filepath.Glob(filepath.Join(sharedGraphs, "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		checkAgainstStd(t, data)
	}
}

func TestScannerPositions(t *testing.T) {
	_, off, err := parseJSON([]byte("{\n  \"a\": [1, 2,, 3]\n}"))
	require.Error(t, err)
	line, col := newLineIndex([]byte("{\n  \"a\": [1, 2,, 3]\n}")).pos(off)
	assert.Equal(t, [2]int{2, 14}, [2]int{line, col})
	assert.Contains(t, err.Error(), "invalid character ','")

	_, _, err = parseJSON([]byte(strings.Repeat("[", maxJSONDepth+5)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested too deeply")
}

func FuzzScanner(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("[")) > 1000 || bytes.Count(data, []byte("{")) > 1000 {
			return // encoding/json's own depth limit would differ in message only
		}
		checkAgainstStd(t, data)
	})
}
