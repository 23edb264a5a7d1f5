package graph

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func stdDecode(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, assert.AnError
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
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
