// Package wgrt is the runtime that wrapgen-generated Go wrappers use: tensor
// views over byte buffers, pools allocated per device, the checks a
// wrapper runs on its inputs, and Frame, which runs a wrapper's Program
// (the plan as tables: see docs/generated-code.md in wrapgen), stopping
// between ops when a context ends (ExecContext). It reads params from
// safetensors files and tensors from NumPy's .npy files, and writes .npy
// (LoadNpy, SaveNpy).
//
// wrapgen writes a copy of this package into the user's tree (gen -runtime
// DIR), so generated code depends on it and the standard library only,
// never on wrapgen. Edit the copy at your own risk: wrapgen overwrites it.
package wgrt
