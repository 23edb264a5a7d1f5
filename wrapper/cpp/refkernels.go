package cpp

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/templates"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// RefKernelsDir is the folder, beside the wrapper, that holds wrapgen's C++
// reference kernels (their files include "../wrapgen_runtime.h").
const RefKernelsDir = "wgref"

// RefKernelFiles returns every file of the C++ reference kernels, under
// RefKernelsDir, sorted by path.
func RefKernelFiles() []emit.File {
	var files []emit.File
	err := fs.WalkDir(templates.FS, "wgref", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.FS.ReadFile(p)
		files = append(files, emit.File{Path: path.Join(RefKernelsDir, strings.TrimPrefix(p, "wgref/")), Content: data})
		return err
	})
	if err != nil {
		panic(err) // embedded at build time
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files
}

// refKernels fills what the templates need for the class RefKernels: its
// methods' declarations and definitions, each packing its arguments into
// a wgref::Call.
func (w *gen) refKernels(d *fileData) {
	d.Ref = true
	var kernelNames []string
	for ki, k := range w.model.Kernels {
		kernelNames = append(kernelNames, quote.Cpp(k.Name))
		decl := &d.Kernels[ki]
		method := w.n.kernel[k.Name]
		lead := "  wrapgen::Status " + method
		decl.RefParamLines = (&emit.List{Open: "(", Close: ")", Items: emit.Texts(decl.params), Fill: true, Hug: true}).Format("  ", "    ", len(lead), len(" override;"))
		lead = "wrapgen::Status RefKernels::" + method
		def := lead + (&emit.List{Open: "(", Close: ")", Items: emit.Texts(decl.params), Fill: true, Hug: true}).Format("", "    ", len(lead), len(" {"))
		d.RefMethods = append(d.RefMethods, def+" {")
		d.RefMethods = append(d.RefMethods, w.refBody(ki, k)...)
		d.RefMethods = append(d.RefMethods, "}", "")
	}
	if n := len(d.RefMethods); n > 0 {
		d.RefMethods = d.RefMethods[:n-1]
	}
	d.RefKernelNames = list("const char* const kRefKernelNames[] = ", append(kernelNames, "nullptr"), 1)
	w.callLayouts(d)
}

// callLayouts fills the rows of the op table's kernel layouts (emit.CallOf's,
// by kernel number), which wrapgen::ProgramFrame::Prepare reads: each
// kernel's operand quintuples on lines of their own under its name, its
// attribute names, and its wrapgen::CallLayout.
func (w *gen) callLayouts(d *fileData) {
	operands, attrNames := 0, 0
	for _, k := range w.model.Kernels {
		l := emit.CallOf(k)
		var items []string
		for _, o := range l.Operands {
			after := 0
			if o.AfterList {
				after = 1
			}
			kind := 0
			if o.Role == emit.RoleAttr {
				kind = int(o.Kind)
			}
			items = append(items, fmt.Sprintf("%d, %d, %d, %d, %d,", o.Role, o.Index, kind, o.At, after))
		}
		d.CallOperands = append(d.CallOperands, "// "+quote.CppComment(k.Name))
		for len(items) > 0 {
			n := min(len(items), 6)
			d.CallOperands = append(d.CallOperands, strings.Join(items[:n], "  "))
			items = items[n:]
		}
		for _, a := range k.Attrs {
			d.CallAttrNames = append(d.CallAttrNames, quote.Cpp(a.Name)+",")
		}
		d.CallLayouts = append(d.CallLayouts, fmt.Sprintf("{%s, %d, %d, %d, %d, %d},", quote.Cpp(k.Name), operands, len(l.Operands), attrNames, len(k.Attrs), l.ListAt))
		operands += len(l.Operands)
		attrNames += len(k.Attrs)
	}
}

// refBody is the body of kernel number ki's RefKernels method.
func (w *gen) refBody(ki int, k *graph.Kernel) []string {
	var outs, ins, attrs []string
	variadic, scratch := false, false
	for _, o := range emit.CallOf(k).Operands {
		switch o.Role {
		case emit.RoleOutput:
			outs = append(outs, fmt.Sprintf("out%d", o.Index))
		case emit.RoleScratch:
			scratch = true
		case emit.RoleInputs:
			variadic = true
		case emit.RoleInput:
			ins = append(ins, fmt.Sprintf("in%d", o.Index))
		case emit.RoleAttr:
			a := k.Attrs[o.Index]
			attrs = append(attrs, fmt.Sprintf("%s(%s, %s)", attrMaker(o.Kind), quote.Cpp(a.Name), w.n.attr[k.Name][o.Index]))
		}
	}
	st := []string{fmt.Sprintf("if (kernels_[%d] == nullptr) return NoRefKernel(%d);", ki, ki)}
	array := func(decl string, items []string) {
		lead := "  " + decl + " = "
		st = append(st, decl+" = "+(&emit.List{Open: "{", Close: "}", Items: emit.Texts(items), Fill: true, Hug: true}).Format("", "    ", len(lead), 1)+";")
	}
	if len(outs) > 0 {
		array(fmt.Sprintf("const wrapgen::Tensor ref_outs[%d]", len(outs)), outs)
	}
	if len(ins) > 0 {
		array(fmt.Sprintf("const wrapgen::Tensor ref_ins[%d]", len(ins)), ins)
	}
	if len(attrs) > 0 {
		array(fmt.Sprintf("const wgref::Attr ref_attrs[%d]", len(attrs)), attrs)
	}
	st = append(st, "wgref::Call ref_call;", fmt.Sprintf("ref_call.kernel = kRefKernelNames[%d];", ki))
	if len(outs) > 0 {
		st = append(st, "ref_call.outputs = ref_outs;", fmt.Sprintf("ref_call.num_outputs = %d;", len(outs)))
	}
	switch {
	case variadic:
		st = append(st, "ref_call.inputs = ins.data();", "ref_call.num_inputs = static_cast<int>(ins.size());")
	case len(ins) > 0:
		st = append(st, "ref_call.inputs = ref_ins;", fmt.Sprintf("ref_call.num_inputs = %d;", len(ins)))
	}
	if len(attrs) > 0 {
		st = append(st, "ref_call.attrs = ref_attrs;", fmt.Sprintf("ref_call.num_attrs = %d;", len(attrs)))
	}
	if scratch {
		st = append(st, "ref_call.scratch = scratch.data;", "ref_call.scratch_bytes = scratch.bytes;")
	}
	st = append(st, "ref_call.prepared = tRefPrepared;", "ref_call.threads = threads_.load(std::memory_order_relaxed);", fmt.Sprintf("return kernels_[%d](ref_call);", ki))
	for i, s := range st {
		st[i] = "  " + strings.ReplaceAll(s, "\n", "\n  ")
	}
	return st
}

// attrMaker is the function of the generated source that makes a
// wgref::Attr of that kind.
func attrMaker(k graph.AttrKind) string {
	switch k {
	case graph.AttrInt:
		return "IntAttr"
	case graph.AttrFloat:
		return "FloatAttr"
	case graph.AttrBool:
		return "BoolAttr"
	case graph.AttrString:
		return "StringAttr"
	default:
		return "IntsAttr"
	}
}
