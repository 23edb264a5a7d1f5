"""Records torchvision models as wrapgen format v1 graphs (aten ops seen by a
TorchDispatchMode, weights as inputs, batch symbolic), with may_alias traits
for the pointwise kernels. Run with Debian's python3 (python3-torch,
python3-torchvision):  /usr/bin/python3 record.py efficientnet_b0 ...
Models are built with random weights: only shapes and the op sequence matter."""
import json
import sys

import torch
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode

BATCH = 13  # a size no CNN feature map has: every 13 in an activation's dim 0 is the batch
DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.int64: "i64", torch.int32: "i32",
          torch.uint8: "u8", torch.bool: "bool", torch.float64: "f64", torch.int8: "i8"}
POINTWISE = {
    "native_batch_norm": [[0, 0]], "native_layer_norm": [[0, 0]], "_softmax": [[0, 0]],
    "add_Tensor": [[0, 0], [0, 1]], "mul_Tensor": [[0, 0], [0, 1]], "sub_Tensor": [[0, 0], [0, 1]],
    "div_Tensor": [[0, 0], [0, 1]], "gelu": [[0, 0]], "relu": [[0, 0]], "sigmoid": [[0, 0]],
    "hardsigmoid": [[0, 0]], "silu": [[0, 0]], "hardswish": [[0, 0]], "clone": [[0, 0]],
    "masked_fill_Scalar": [[0, 0]],
}


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.tensors, self.ops, self.inputs = {}, [], []
        self.name_of = {}  # id(tensor) -> current name
        self.keep = []     # keeps recorded tensors alive so ids stay unique
        self.batchy = set()  # names whose dim 0 is the batch

    def new_name(self, prefix):
        return f"{prefix}{len(self.tensors) + 1}"

    def layout(self, t, batchy):
        shape = list(t.shape)
        strides = list(t.stride())
        if batchy and shape and shape[0] == BATCH:
            shape[0] = "batch"
            strides = [s if i == 0 else s for i, s in enumerate(strides)]
        return shape, strides

    def describe(self, t, batchy, view_of=None, base=None):
        shape, strides = self.layout(t, batchy)
        d = {}
        if view_of is None:
            d["dtype"] = DTYPES[t.dtype]
        else:
            d["view_of"] = view_of
            off = t.storage_offset() - base.storage_offset()
            if off:
                d["offset"] = off
        d["shape"] = shape
        d["strides"] = strides
        return d

    def name(self, t, as_input=True):
        n = self.name_of.get(id(t))
        if n is None:
            n = self.new_name("in")
            self.tensors[n] = self.describe(t, len(self.inputs) == 0)
            if len(self.inputs) == 0:
                self.batchy.add(n)
            self.inputs.append(n)
            self.name_of[id(t)] = n
            self.keep.append(t)
        return n

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        schema = func._schema
        flat_in = []
        attrs = {}
        for a, v in zip(schema.arguments, list(args) + [kwargs.get(x.name) for x in schema.arguments[len(args):]]):
            if isinstance(v, torch.Tensor):
                flat_in.append((a, v))
            elif isinstance(v, (list, tuple)) and v and all(isinstance(x, torch.Tensor) for x in v):
                flat_in.extend((a, x) for x in v)
            elif isinstance(v, (bool, int, float, str)) and not isinstance(v, torch.dtype):
                attrs[a.name] = v
            elif isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
                attrs[a.name] = list(v)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        outs = [o for o in outs if isinstance(o, torch.Tensor)]
        in_names = [self.name(v) for _, v in flat_in]
        batchy = any(n in self.batchy for n in in_names)
        rets = schema.returns
        is_view = all(r.alias_info is not None and not r.alias_info.is_write for r in rets) and rets
        if is_view:  # views are tensors, not ops
            base = flat_in[0][1]
            for o in outs:
                n = self.new_name("v")
                self.tensors[n] = self.describe(o, batchy, view_of=self.name_of[id(base)], base=base)
                self.name_of[id(o)] = n
                self.keep.append(o)
                if batchy:
                    self.batchy.add(n)
            return out
        kernel = schema.name.split("::")[-1] + ("_" + schema.overload_name if schema.overload_name else "")
        op = {"kernel": kernel, "inputs": in_names, "outputs": []}
        inplace = {}
        for i, o in enumerate(outs):
            n = self.new_name("t")
            written = rets[i].alias_info is not None and rets[i].alias_info.is_write if i < len(rets) else False
            if written:
                src = next(v for _, v in flat_in if v is o or (v.data_ptr() == o.data_ptr() and v.shape == o.shape))
                self.tensors[n] = self.describe(o, batchy)
                inplace[n] = self.name_of[id(src)]
            else:
                self.tensors[n] = self.describe(o, batchy)
            self.name_of[id(o)] = n
            self.keep.append(o)
            op["outputs"].append(n)
            if batchy:
                self.batchy.add(n)
        if inplace:
            op["inplace"] = inplace
        if attrs:
            op["attrs"] = attrs
        self.ops.append(op)
        return out


def record(name):
    model = getattr(torchvision.models, name)().eval()
    size = 299 if name.startswith("inception") else 224
    x = torch.randn(BATCH, 3, size, size)
    rec = Recorder()
    with torch.no_grad():
        rec.name(x)  # the first input: its dim 0 is the batch
        with rec:
            y = model(x)
    if isinstance(y, tuple):
        y = y[0]
    out = rec.name_of[id(y)]
    # Drop inputs no op reads (buffers such as num_batches_tracked).
    used = {n for op in rec.ops for n in op["inputs"]}
    for t in rec.tensors.values():
        if "view_of" in t:
            used.add(t["view_of"])
    inputs = [n for n in rec.inputs if n in used]
    tensors = {k: v for k, v in rec.tensors.items() if not (k in rec.inputs and k not in used)}
    kernels = {op["kernel"] for op in rec.ops}
    traits = {k: {"may_alias": [p for p in POINTWISE[k] if all(p[1] < len(op["inputs"]) for op in rec.ops if op["kernel"] == k)]}
              for k in sorted(kernels) if k in POINTWISE}
    g = {"name": name, "symbols": {"batch": {"hint": 1, "min": 1}}, "tensors": tensors,
         "inputs": inputs, "outputs": [out], "ops": rec.ops, "kernels": traits}
    return g


if __name__ == "__main__":
    for name in sys.argv[1:]:
        g = record(name)
        with open(f"{name}.json", "w") as f:
            json.dump(g, f, separators=(",", ":"))
            f.write("\n")
        print(name, len(g["ops"]), "ops", len(g["tensors"]), "tensors")
