package interp

import (
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// PrepareWeights gives every op whose kernel prepares its constant inputs
// (prep: wgref.Prepare packs GEMM weights into panels) what it prepared,
// once: each later Run hands it to the op's kernel as Call.Prepared. It
// runs after BindParams, through wgrt.Frame.Prepare, as a generated
// wrapper's NewRunner does: only ops whose attributes are constants are
// prepared. The prepared memory is the model's; PreparedBytes reports it.
func (m *Model) PrepareWeights(prep wgrt.PrepareFunc) error {
	for i := range m.calls {
		m.calls[i].Prepared = nil
	}
	if err := m.f.Prepare(&m.prog, m.opTable(), prep); err != nil {
		return err
	}
	for i, v := range m.f.Prepared() {
		m.calls[i].Prepared = v
	}
	return nil
}

// PreparedBytes is the memory PrepareWeights allocated for the kernels.
func (m *Model) PreparedBytes() int { return m.f.PreparedBytes() }

// opTable is the tables' op rows and the kernels' layouts as wgrt reads
// them (a generated wrapper declares the same as data).
func (m *Model) opTable() *wgrt.OpTable {
	ops := &wgrt.OpTable{Floats: m.t.Floats, Strings: m.t.Strings}
	for _, k := range m.model.Kernels {
		l := wgrt.CallLayout{Kernel: k.Name, ListAt: m.layouts[k.Name].ListAt}
		for _, o := range m.layouts[k.Name].Operands {
			l.Operands = append(l.Operands, wgrt.Operand{Role: wgrt.OperandRole(o.Role), Index: o.Index, Kind: wgrt.AttrKind(o.Kind), At: o.At, AfterList: o.AfterList})
		}
		for _, a := range k.Attrs {
			l.AttrNames = append(l.AttrNames, a.Name)
		}
		ops.Kernels = append(ops.Kernels, l)
	}
	for _, row := range m.t.OpArgs {
		ops.Start = append(ops.Start, int32(len(ops.Args)))
		ops.Args = append(ops.Args, int32s(row)...)
	}
	ops.Start = append(ops.Start, int32(len(ops.Args)))
	return ops
}
