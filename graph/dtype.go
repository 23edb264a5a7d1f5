package graph

// DType is an element type of format v1.
type DType string

var dtypeSizes = map[DType]int64{
	"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4,
	"i64": 8, "u64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
	"c64": 8, "c128": 16, "f8e4m3fn": 1, "f8e5m2": 1,
}

// DTypes lists every dtype of format v1, in the spec's order.
var DTypes = []DType{"bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
	"f16", "bf16", "f32", "f64", "c64", "c128", "f8e4m3fn", "f8e5m2"}

// Size is the number of bytes of one element.
func (d DType) Size() int64 { return dtypeSizes[d] }

// Valid reports whether d is a dtype of format v1.
func (d DType) Valid() bool { _, ok := dtypeSizes[d]; return ok }

func (d DType) String() string { return string(d) }
