package cpp

import (
	"bytes"
	"fmt"

	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/templates"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// NpyHeader is the header of .npy reading and writing the runner
// (Options.Main) includes; gen writes it beside the wrapper.
const NpyHeader = "wrapgen_npy.h"

// MainFile is the runner's source file for the wrapper whose files are
// named base (see FileBase).
func MainFile(base string) string { return base + "_main.cc" }

// mainData is what cpp_main.cc.tmpl reads: the wrapper's, and the tables
// of inputs, caller-given symbols and outputs by name.
type mainData struct {
	*fileData
	MainName                                                            string
	MainInputs, MainSymbols, MainOutputs, MainInputDocs, MainOutputDocs []string
}

// main renders base_main.cc, the generic runner of the wrapper d
// describes, and returns it with the .npy header it includes.
func (w *gen) main(d *fileData, base string) ([]emit.File, error) {
	m := &mainData{fileData: d, MainName: base + "_main"}
	for _, t := range w.g.Inputs {
		m.MainInputs = append(m.MainInputs, fmt.Sprintf("{%s, &%s::Inputs::%s},", quote.Cpp(t.Name), d.Namespace, w.n.field[t]))
		m.MainInputDocs = append(m.MainInputDocs, quote.Cpp("  "+emit.TensorDoc(t, quote.CppComment)+"\n"))
	}
	for _, s := range w.g.Symbols {
		if w.model.CallerGives(s) {
			m.MainSymbols = append(m.MainSymbols, fmt.Sprintf("{%s, &%s::Inputs::%s},", quote.Cpp(s.Name), d.Namespace, w.n.symField[s.Name]))
			m.MainInputDocs = append(m.MainInputDocs, quote.Cpp("  symbol "+quote.CppComment(s.Name)+" (-at), which no input's shape gives\n"))
		}
	}
	for i, t := range w.g.Outputs {
		m.MainOutputs = append(m.MainOutputs, fmt.Sprintf("{%s, &%s::Outputs::%s},", quote.Cpp(t.Name), d.Namespace, w.n.field[t]))
		m.MainOutputDocs = append(m.MainOutputDocs, quote.Cpp(fmt.Sprintf("  output_%d.npy: %s\n", i, emit.TensorDoc(t, quote.CppComment))))
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "cpp_main.cc.tmpl", m); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	npy, err := templates.FS.ReadFile(NpyHeader)
	if err != nil {
		panic(err) // embedded at build time
	}
	return []emit.File{{Path: MainFile(base), Content: b.Bytes()}, {Path: NpyHeader, Content: npy}}, nil
}
