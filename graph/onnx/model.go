// Package onnx imports ONNX models (ModelProto files) into wrapgen's graph
// format v1: it reads the protobuf, infers every tensor's dtype and symbolic
// shape, folds shape computations at import time, turns reshapes into views
// and writes the equivalent format-v1 document, which graph.Parse then reads
// exactly as it reads a hand-written one.
package onnx

// The types below hold the subset of onnx.proto (IR version 3 to 10) that
// the importer needs. Fields not listed are skipped when reading; the ones
// the importer cannot honour (sparse tensors, external data, subgraphs,
// sequence and optional types) are kept so it can refuse them by name.

type model struct {
	irVersion int64
	opsets    map[string]int64 // domain ("" for the default one) → version
	graph     *graphProto
}

type graphProto struct {
	name         string
	nodes        []*nodeProto
	initializers []*tensorProto
	inputs       []*valueInfo
	outputs      []*valueInfo
	valueInfo    []*valueInfo
	sparseInits  int // count of sparse_initializer entries (refused)
}

type nodeProto struct {
	inputs  []string
	outputs []string
	name    string
	opType  string
	domain  string
	attrs   []*attribute
}

// Attribute types, as onnx.proto's AttributeProto.AttributeType.
const (
	attrFloat   = 1
	attrInt     = 2
	attrString  = 3
	attrTensor  = 4
	attrGraph   = 5
	attrFloats  = 6
	attrInts    = 7
	attrStrings = 8
	attrTensors = 9
	attrGraphs  = 10
	attrSparse  = 11
	attrSparses = 12
	attrTypeP   = 13
	attrTypes   = 14
)

type attribute struct {
	name    string
	typ     int64
	f       float64
	i       int64
	s       []byte
	t       *tensorProto
	floats  []float64
	ints    []int64
	strings [][]byte
	g       *graphProto // a subgraph (If's branches)
	refAttr string      // ref_attr_name: only meaningful inside functions (refused)
}

type valueInfo struct {
	name string
	typ  *typeProto
}

// typeProto is a TypeProto reduced to what the importer checks: a tensor
// type with its element type and shape, or the kind of a type it refuses.
type typeProto struct {
	kind     string // "tensor", or "sequence", "map", "optional", "sparse tensor"
	elemType int64
	hasShape bool
	dims     []dimension
}

type dimension struct {
	value    int64
	param    string
	hasValue bool
}

// TensorProto data locations.
const locationExternal = 1

type tensorProto struct {
	name       string
	dims       []int64
	dataType   int64
	floatData  []float32
	int32Data  []int32
	int64Data  []int64
	uint64Data []uint64
	doubleData []float64
	stringData [][]byte
	rawData    []byte
	hasRaw     bool
	external   bool
	segment    bool
}
