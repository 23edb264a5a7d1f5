package ident

// GoKeywords are Go's keywords and the predeclared identifiers a generated
// parameter or local must not shadow.
var GoKeywords = Set(
	"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface",
	"map", "package", "range", "return", "select", "struct", "switch", "type", "var",
	"any", "append", "bool", "byte", "cap", "clear", "close", "complex", "copy",
	"delete", "error", "false", "float32", "float64", "imag", "int", "int8",
	"int16", "int32", "int64", "iota", "len", "make", "max", "min", "new", "nil",
	"panic", "print", "println", "real", "recover", "rune", "string", "true",
	"uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
)

// CppKeywords are the C++17 keywords and alternative tokens, plus names
// from the standard library that generated code uses unqualified.
var CppKeywords = Set(
	"alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
	"bool", "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t",
	"class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
	"const_cast", "continue", "co_await", "co_return", "co_yield", "decltype",
	"default", "delete", "do", "double", "dynamic_cast", "else", "enum",
	"explicit", "export", "extern", "false", "float", "for", "friend", "goto",
	"if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
	"not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
	"protected", "public", "register", "reinterpret_cast", "requires", "return",
	"short", "signed", "sizeof", "static", "static_assert", "static_cast",
	"struct", "switch", "template", "this", "thread_local", "throw", "true",
	"try", "typedef", "typeid", "typename", "union", "unsigned", "using",
	"virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
	"int64_t", "size_t", "std", "NULL", "assert", "errno",
)

// GoVetMethods are the method names go vet's stdmethods check holds to a
// standard signature (io.ByteReader's ReadByte, fmt.Formatter's Format,
// gob's GobEncode, ...; the list of golang.org/x/tools's stdmethods), and
// those fmt calls by name (String, Error): a generated method with other
// parameters (a kernel's) cannot take one and stay vet-clean.
var GoVetMethods = Set(
	"As", "Format", "GobDecode", "GobEncode", "Is", "MarshalJSON", "MarshalXML",
	"ReadByte", "ReadFrom", "ReadRune", "Scan", "Seek", "UnmarshalJSON",
	"UnmarshalXML", "UnreadByte", "UnreadRune", "Unwrap", "WriteByte", "WriteTo",
	"String", "Error", "GoString",
)
