package wgrt

// DType is an element type.
type DType uint8

// The element types of graph format v1.
const (
	Bool DType = iota
	I8
	U8
	I16
	U16
	I32
	U32
	I64
	U64
	F16
	BF16
	F32
	F64
	C64
	C128
	F8E4M3FN
	F8E5M2
)

var dtypeNames = [...]string{"bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
	"f16", "bf16", "f32", "f64", "c64", "c128", "f8e4m3fn", "f8e5m2"}

var dtypeSizes = [...]int{1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8, 8, 16, 1, 1}

// Size is the number of bytes of one element.
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return "dtype(?)"
}
