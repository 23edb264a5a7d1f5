//go:build ignore

// gen writes the shared safetensors corpus: one file per case and
// manifest.json, what both runtimes must make of each (see
// docs/safetensors.md). The verdicts are written here by hand, from the
// contract, not from either reader. Run from this folder:
//
//	go run gen.go
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph/onnx"
)

type corpusCase struct {
	name string
	data []byte
	want string // "ok\n" and one line a tensor, or "error: " and the message after the file name
}

// file is a safetensors file of header and body.
func file(header string, body []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(out, header...), body...)
}

func f32s(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func bytesOf(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func refuse(name string, data []byte, message string) corpusCase {
	return corpusCase{name, data, "error: " + message + "\n"}
}

func accept(name string, data []byte, tensors ...string) corpusCase {
	return corpusCase{name, data, "ok\n" + strings.Join(tensors, "")}
}

// tensor is one line of an accepted file's description: quoted name,
// dtype, shape, the bytes in hex ("-" for none).
func tensor(quoted, dtype, shape, hex string) string {
	return fmt.Sprintf("%s %s %s %s\n", quoted, dtype, shape, hex)
}

func main() {
	entry := func(dtype, shape string, begin, end int64) string {
		return fmt.Sprintf(`{"dtype": %q, "shape": %s, "data_offsets": [%d, %d]}`, dtype, shape, begin, end)
	}
	w8 := `"w": ` + entry("F32", "[2]", 0, 8)
	eight := f32s(1.5, -2)
	const hexEight = "0000c03f000000c0"

	cases := []corpusCase{
		// Files both runtimes load.
		accept("ok_basic", file(`{"__metadata__": {"format": "pt"}, "w": `+entry("F32", "[2]", 0, 8)+`, "n": `+entry("I64", "[1, 1]", 8, 16)+`}`,
			append(f32s(1.5, -2), 7, 0, 0, 0, 0, 0, 0, 0)),
			tensor(`"n"`, "I64", "[1, 1]", "0700000000000000"), tensor(`"w"`, "F32", "[2]", hexEight)),
		accept("ok_empty", file(`{}`, nil)),
		accept("ok_empty_metadata", file(`{"__metadata__":{}}`, nil)),
		accept("ok_padded", file("{"+w8+"}        ", eight), tensor(`"w"`, "F32", "[2]", hexEight)),
		accept("ok_whitespace", file("{\n\t\"w\" :\r\n {\"dtype\":\"F32\" , \"shape\" : [ 2 ] ,\"data_offsets\":[0,8]} }\n", eight),
			tensor(`"w"`, "F32", "[2]", hexEight)),
		accept("ok_scalar", file(`{"s": `+entry("F64", "[]", 0, 8)+`}`, binary.LittleEndian.AppendUint64(nil, math.Float64bits(2.5))),
			tensor(`"s"`, "F64", "[]", "0000000000000440")),
		// Zero-size tensors take no bytes, wherever they sit; the largest
		// dimensions are fine when a later one is 0.
		accept("ok_zero_size", file(`{"a": `+entry("F32", "[1]", 0, 4)+`, "z": `+entry("F32", "[0, 3]", 4, 4)+`, "b": `+entry("U8", "[1]", 4, 5)+`, "e": `+entry("BF16", "[4611686018427387904, 4611686018427387904, 0]", 5, 5)+`}`, []byte{1, 2, 3, 4, 5}),
			tensor(`"a"`, "F32", "[1]", "01020304"), tensor(`"b"`, "U8", "[1]", "05"), tensor(`"e"`, "BF16", "[4611686018427387904, 4611686018427387904, 0]", "-"), tensor(`"z"`, "F32", "[0, 3]", "-")),
		// Ranges in any order in the header: only the data's order counts.
		accept("ok_out_of_order", file(`{"b": `+entry("U8", "[2]", 2, 4)+`, "a": `+entry("U8", "[2]", 0, 2)+`}`, []byte{1, 2, 3, 4}),
			tensor(`"a"`, "U8", "[2]", "0102"), tensor(`"b"`, "U8", "[2]", "0304")),
		// Every JSON escape, surrogate pairs, raw UTF-8.
		accept("ok_escapes", file(`{"a\u003cb\u003e\u0026": `+entry("U8", "[1]", 0, 1)+`, "c\r\n\t\b\f\/\\\"": `+entry("U8", "[1]", 1, 2)+
			`, "\u00e9t\u00C9 é": `+entry("U8", "[1]", 2, 3)+`, "\ud83d\ude00\u2028": `+entry("U8", "[1]", 3, 4)+`, "nul\u0000": `+entry("U8", "[1]", 4, 5)+`}`,
			[]byte{1, 2, 3, 4, 5}),
			tensor(`"a<b>&"`, "U8", "[1]", "01"), tensor(`"c\x0d\x0a\x09\x08\x0c/\\\""`, "U8", "[1]", "02"),
			tensor(`"nul\x00"`, "U8", "[1]", "05"), tensor(`"étÉ é"`, "U8", "[1]", "03"), tensor("\"\U0001F600\u2028\"", "U8", "[1]", "04")),
		accept("ok_every_dtype", file(`{"bool": `+entry("BOOL", "[1]", 0, 1)+`, "i8": `+entry("I8", "[1]", 1, 2)+`, "u16": `+entry("U16", "[1]", 2, 4)+
			`, "f16": `+entry("F16", "[1]", 4, 6)+`, "f8a": `+entry("F8_E4M3", "[1]", 6, 7)+`, "f8b": `+entry("F8_E5M2", "[1]", 7, 8)+`}`, []byte{1, 2, 3, 4, 5, 6, 7, 8}),
			tensor(`"bool"`, "BOOL", "[1]", "01"), tensor(`"f16"`, "F16", "[1]", "0506"), tensor(`"f8a"`, "F8_E4M3", "[1]", "07"),
			tensor(`"f8b"`, "F8_E5M2", "[1]", "08"), tensor(`"i8"`, "I8", "[1]", "02"), tensor(`"u16"`, "U16", "[1]", "0304")),

		// The reproducers of issue 36: one reversed entry beside a 4 KB
		// tensor, offsets whose sizes wrap a size_t sum, an end of 2^62.
		refuse("bad_reversed", file(`{"a": `+entry("F32", "[1024]", 0, 4096)+`, "b": `+entry("F32", "[1056]", 4224, 0)+`}`, bytesOf(4096)),
			`tensor "b": data_offsets [4224, 0] run backwards`),
		// (4096 + 2 * (2^63-64) wraps to 3968.)
		refuse("bad_wrapping_sum", file(`{"a": `+entry("U8", "[4096]", 0, 4096)+`, "b": `+entry("U8", "[9223372036854775744]", 0, 9223372036854775744)+`, "c": `+entry("U8", "[9223372036854775744]", 0, 9223372036854775744)+`}`, bytesOf(4096)),
			`tensor "b": data_offsets [0, 9223372036854775744] run past the end of the data section (4096 bytes)`),
		refuse("bad_end_2_62", file(`{"a": `+entry("F32", "[1152921504606846976]", 0, 4611686018427387904)+`}`, bytesOf(64)),
			`tensor "a": data_offsets [0, 4611686018427387904] run past the end of the data section (64 bytes)`),
		// Ranges that do not tile the data section.
		refuse("bad_overlap", file(`{"a": `+entry("F32", "[2]", 0, 8)+`, "b": `+entry("F32", "[2]", 4, 12)+`}`, bytesOf(12)),
			`tensor "b": data_offsets [4, 12] overlap tensor "a"'s [0, 8]`),
		refuse("bad_alias", file(`{"b": `+entry("F32", "[2]", 0, 8)+`, "a": `+entry("F32", "[2]", 0, 8)+`}`, bytesOf(8)),
			`tensor "a": data_offsets [0, 8] overlap tensor "b"'s [0, 8]`),
		refuse("bad_zero_size_inside", file(`{"a": `+entry("F32", "[2]", 0, 8)+`, "z": `+entry("F32", "[0]", 4, 4)+`}`, bytesOf(8)),
			`tensor "z": data_offsets [4, 4] overlap tensor "a"'s [0, 8]`),
		refuse("bad_hole", file(`{"a": `+entry("F32", "[1]", 0, 4)+`, "b": `+entry("F32", "[1]", 8, 12)+`}`, bytesOf(12)),
			`bytes [4, 8) of the data section belong to no tensor`),
		refuse("bad_leading_hole", file(`{"a": `+entry("F32", "[1]", 4, 8)+`}`, bytesOf(8)),
			`bytes [0, 4) of the data section belong to no tensor`),
		refuse("bad_trailing_data", file("{"+w8+"}", bytesOf(12)), `bytes [8, 12) of the data section belong to no tensor`),
		refuse("bad_data_no_tensor", file(`{}`, bytesOf(3)), `bytes [0, 3) of the data section belong to no tensor`),
		// Duplicates: the last would win in encoding/json, silently.
		refuse("bad_duplicate_tensor", file(`{"w": `+entry("F32", "[1]", 0, 4)+`, "w": `+entry("F32", "[1]", 4, 8)+`}`, bytesOf(8)),
			`header: byte 70: key "w" appears twice`),
		refuse("bad_duplicate_metadata", file(`{"__metadata__": {}, "__metadata__": {}}`, nil), `header: byte 29: key "__metadata__" appears twice`),
		refuse("bad_duplicate_metadata_key", file(`{"__metadata__": {"a": "1", "a": "2"}}`, nil), `header: byte 36: __metadata__: key "a" appears twice`),
		refuse("bad_duplicate_field", file(`{"w": {"dtype": "F32", "dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}`, eight),
			`header: byte 31: tensor "w": field dtype appears twice`),
		refuse("bad_escaped_duplicate", file(`{"w": `+entry("U8", "[1]", 0, 1)+`, "\u0077": `+entry("U8", "[1]", 1, 2)+`}`, []byte{1, 2}),
			`header: byte 69: key "w" appears twice`),
		// Whatever follows the header's object.
		refuse("bad_garbage_after", file("{"+w8+"}xyz", eight), `header: byte 69: only whitespace may follow the header's object`),
		refuse("bad_second_object", file("{"+w8+"}{}", eight), `header: byte 69: only whitespace may follow the header's object`),
		refuse("bad_leading_space", file(" {"+w8+"}", eight), `header: byte 8: the header must begin with {`),
		refuse("bad_not_object", file(`[]`, nil), `header: byte 8: the header must begin with {`),
		refuse("bad_zero_header", file(``, nil), `header: byte 8: the header must begin with {`),
		refuse("bad_unclosed", file(`{"w": `, nil), `header: byte 14: the header ends where an object for tensor "w" was expected`),
		refuse("bad_trailing_comma", file("{"+w8+",}", eight), `header: byte 69: expected a string`),
		refuse("bad_missing_colon", file(`{"w" 1}`, nil), `header: byte 13: expected :`),
		// Strings: escapes and UTF-8.
		refuse("bad_lone_high_surrogate", file(`{"\ud800": `+entry("U8", "[1]", 0, 1)+`}`, []byte{1}), `header: byte 10: a \u escape of a lone surrogate`),
		refuse("bad_lone_low_surrogate", file(`{"\udc00": `+entry("U8", "[1]", 0, 1)+`}`, []byte{1}), `header: byte 10: a \u escape of a lone surrogate`),
		refuse("bad_high_then_char", file(`{"\ud800\u0041": `+entry("U8", "[1]", 0, 1)+`}`, []byte{1}), `header: byte 10: a \u escape of a lone surrogate`),
		refuse("bad_short_u", file(`{"\u12": `+entry("U8", "[1]", 0, 1)+`}`, []byte{1}), `header: byte 10: a \u escape without 4 hex digits`),
		refuse("bad_unknown_escape", file(`{"\x41": `+entry("U8", "[1]", 0, 1)+`}`, []byte{1}), `header: byte 10: an unknown escape in a string`),
		refuse("bad_utf8", file("{\"a\xff\": "+entry("U8", "[1]", 0, 1)+"}", []byte{1}), `header: byte 11: a string is not valid UTF-8`),
		refuse("bad_utf8_overlong", file("{\"\xc0\xaf\": "+entry("U8", "[1]", 0, 1)+"}", []byte{1}), `header: byte 10: a string is not valid UTF-8`),
		refuse("bad_utf8_surrogate", file("{\"\xed\xa0\x80\": "+entry("U8", "[1]", 0, 1)+"}", []byte{1}), `header: byte 10: a string is not valid UTF-8`),
		refuse("bad_utf8_cut", file("{\"\xe2\x82", nil), `header: byte 10: a string is not valid UTF-8`),
		refuse("bad_raw_newline", file("{\"a\nb\": "+entry("U8", "[1]", 0, 1)+"}", []byte{1}), `header: byte 11: a control character in a string (JSON needs it escaped)`),
		refuse("bad_string_cut", file(`{"abc`, nil), `header: byte 13: the header ends inside a string`),
		// Numbers: non-negative integers that fit an int64, in JSON's notation.
		refuse("bad_negative", file(`{"w": `+entry("F32", "[-1]", 0, 0)+`}`, nil), `header: byte 41: expected a non-negative integer`),
		refuse("bad_fraction", file(`{"w": `+entry("F32", "[2.0]", 0, 8)+`}`, eight), `header: byte 41: expected a non-negative integer, found a fraction or exponent`),
		refuse("bad_exponent", file(`{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8e0]}}`, eight), `header: byte 65: expected a non-negative integer, found a fraction or exponent`),
		refuse("bad_leading_zero", file(`{"w": `+entry("F32", "[02]", 0, 8)+`}`, eight), `header: byte 41: an integer with a leading zero`),
		refuse("bad_int_too_large", file(`{"w": `+entry("F32", "[9223372036854775808]", 0, 8)+`}`, eight), `header: byte 41: an integer above 9223372036854775807`),
		refuse("bad_shape_string", file(`{"w": {"dtype": "F32", "shape": "2", "data_offsets": [0, 8]}}`, eight), `header: byte 40: expected [`),
		// Fields and values of the wrong kind.
		refuse("bad_missing_offsets", file(`{"w": {"dtype": "F32", "shape": [2]}}`, eight), `header: byte 44: tensor "w" has no data_offsets`),
		refuse("bad_missing_dtype", file(`{"w": {}}`, nil), `header: byte 16: tensor "w" has no dtype`),
		refuse("bad_unknown_field", file(`{"w": {"dtype": "F32", "offsets": [0, 8]}}`, eight), `header: byte 31: tensor "w": unknown field "offsets"`),
		refuse("bad_tensor_not_object", file(`{"w": 5}`, nil), `header: byte 14: expected an object for tensor "w"`),
		refuse("bad_metadata_number", file(`{"__metadata__": {"a": 1}}`, nil), `header: byte 31: expected a string`),
		refuse("bad_metadata_array", file(`{"__metadata__": []}`, nil), `header: byte 25: expected an object of strings for __metadata__`),
		refuse("bad_dtype_number", file(`{"w": {"dtype": 1, "shape": [], "data_offsets": [0, 0]}}`, nil), `header: byte 24: expected a string`),
		// Entries checked one by one, in the header's order.
		refuse("bad_dtype", file(`{"w": `+entry("Q4", "[1]", 0, 4)+`}`, bytesOf(4)), `tensor "w": unknown dtype "Q4"`),
		refuse("bad_dtype_c64", file(`{"w": `+entry("C64", "[1]", 0, 8)+`}`, bytesOf(8)), `tensor "w": unknown dtype "C64"`),
		refuse("bad_rank", file(`{"w": `+entry("U8", "[1, 1, 1, 1, 1, 1, 1, 1, 1]", 0, 1)+`}`, bytesOf(1)), `tensor "w": rank 9 is above 8`),
		refuse("bad_shape_bytes", file(`{"w": `+entry("F32", "[4611686018427387904, 4]", 0, 8)+`}`, eight),
			`tensor "w": shape [4611686018427387904, 4] of F32 has more bytes than an int64 holds`),
		refuse("bad_shape_stride", file(`{"w": `+entry("F32", "[0, 4611686018427387904, 4]", 0, 0)+`}`, nil),
			`tensor "w": shape [0, 4611686018427387904, 4] of F32 has more bytes than an int64 holds`),
		refuse("bad_offsets_count", file(`{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 16]}}`, eight), `tensor "w": data_offsets has 3 entries, want 2`),
		refuse("bad_offsets_one", file(`{"w": {"dtype": "F32", "shape": [2], "data_offsets": [8]}}`, eight), `tensor "w": data_offsets has 1 entries, want 2`),
		refuse("bad_range", file(`{"w": `+entry("F32", "[2]", 0, 12)+`}`, eight), `tensor "w": data_offsets [0, 12] run past the end of the data section (8 bytes)`),
		refuse("bad_size", file(`{"w": `+entry("F32", "[3]", 0, 8)+`}`, eight), `tensor "w": shape [3] of F32 needs 12 bytes, data_offsets [0, 8] hold 8`),
		refuse("bad_quoted_name", file(`{"a\"\\\n": `+entry("Q4", "[1]", 0, 4)+`}`, bytesOf(4)), `tensor "a\"\\\x0a": unknown dtype "Q4"`),
		refuse("bad_first_in_header_order", file(`{"z": `+entry("Q4", "[1]", 0, 4)+`, "a": `+entry("F32", "[9]", 4, 8)+`}`, bytesOf(8)), `tensor "z": unknown dtype "Q4"`),
		// The header's length.
		refuse("bad_empty_file", nil, `0 bytes is too short for a safetensors file`),
		refuse("bad_short_file", []byte{2, 0, 0}, `3 bytes is too short for a safetensors file`),
		refuse("bad_header_past_end", append(binary.LittleEndian.AppendUint64(nil, 99), "{}"...), `header length 99 runs past the end of the file (10 bytes): not a safetensors file (wrapgen import writes the weights of an ONNX model as one)`),
		refuse("bad_header_too_long", append(binary.LittleEndian.AppendUint64(nil, 100000001), "{}"...), `header length 100000001 is above the limit of 100000000 bytes: not a safetensors file (wrapgen import writes the weights of an ONNX model as one)`),
		refuse("bad_header_huge", append(binary.LittleEndian.AppendUint64(nil, math.MaxUint64), "{}"...), `header length 18446744073709551615 is above the limit of 100000000 bytes: not a safetensors file (wrapgen import writes the weights of an ONNX model as one)`),
	}

	// What `wrapgen import -weights` writes for names JSON escapes.
	written, err := onnx.Safetensors([]onnx.Weight{
		{Name: "x<y>&z", DType: "f32", Shape: []int64{1}, Data: f32s(1)},
		{Name: "line\u2028sep\r\n", DType: "u8", Shape: []int64{2}, Data: []byte{9, 8}},
		{Name: "ünï", DType: "i16", Shape: []int64{}, Data: []byte{1, 0}},
	})
	if err != nil {
		panic(err)
	}
	cases = append(cases, accept("ok_written_by_import", written,
		tensor(`"line`+"\u2028"+`sep\x0d\x0a"`, "U8", "[2]", "0908"), tensor(`"x<y>&z"`, "F32", "[1]", "0000803f"), tensor(`"ünï"`, "I16", "[]", "0100")))

	manifest := map[string]string{}
	for _, c := range cases {
		name := c.name + ".safetensors"
		if _, dup := manifest[name]; dup {
			panic("two cases named " + name)
		}
		manifest[name] = c.want
		if err := os.WriteFile(name, c.data, 0o644); err != nil {
			panic(err)
		}
	}
	keys := make([]string, 0, len(manifest))
	for k := range manifest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile("manifest.json", append(out, '\n'), 0o644); err != nil {
		panic(err)
	}
	fmt.Println(len(keys), "cases")
}
