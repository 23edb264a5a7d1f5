"""Record a PyTorch model's eager aten ops as a wrapgen format-v1 graph.

Runs the model twice (batch 2 and 3) under a TorchDispatchMode, names every
tensor (weights and the input as graph inputs in1.., results t.., views v..),
and writes every size, stride, offset and int attribute that differs between
the two runs as an affine expression in `batch`.

    /usr/bin/python3 record_torch.py densenet121 out.json
    /usr/bin/python3 record_torch.py --pointwise-traits densenet121 out.json

--pointwise-traits adds a "kernels" object with may_alias pairs for the
pointwise aten kernels it calls (docs/kernel-traits.md): what lets the
planner run them in place.
"""
import json
import sys

import torch
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

DTYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
          torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
          torch.bool: "bool", torch.complex64: "c64", torch.complex128: "c128"}


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = {}      # id(tensor) -> name
        self.keep = []       # keeps recorded tensors alive so ids stay unique
        self.tensors = {}    # name -> raw description
        self.order = []
        self.inputs = []
        self.ops = []
        self.storages = {}   # storage data_ptr -> owner name
        self.n = 0
        # Inputs (the model's input, then weights and buffers) are named on
        # first use, so unused buffers (num_batches_tracked) stay out.

    def fresh(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def describe(self, t):
        return {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "strides": list(t.stride())}

    def define(self, t, prefix, storage_owner):
        d = self.describe(t)
        ptr = t.storage().data_ptr()
        if not storage_owner and ptr in self.storages and t.numel() > 0:
            name = self.fresh("v")
            d = {"view_of": self.storages[ptr], "shape": list(t.shape), "strides": list(t.stride())}
            if t.storage_offset():
                d["offset"] = t.storage_offset()
        else:
            name = self.fresh(prefix)
            if t.numel() > 0 and ptr:
                self.storages[ptr] = name
        self.tensors[name] = d
        self.order.append(name)
        self.names[id(t)] = name
        self.keep.append(t)
        return name

    def name_of(self, t):
        n = self.names.get(id(t))
        if n is None:  # made outside the mode: the model's input, a weight or a buffer
            n = self.define(t, "in", storage_owner=True)
            self.inputs.append(n)
        return n

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        schema = func._schema
        if func.overloadpacket.__name__ in ("detach", "alias") and id(args[0]) in self.names:
            # Autograd's bookkeeping: the same memory and layout, no new name.
            self.names[id(out)] = self.names[id(args[0])]
            self.keep.append(out)
            return out
        kernel = func.overloadpacket.__name__
        if func._overloadname != "default":
            kernel += "_" + func._overloadname
        ins, attrs = [], {}
        mutated = []
        for i, a in enumerate(schema.arguments):
            if i < len(args):
                v = args[i]
            elif a.name in kwargs:
                v = kwargs[a.name]
            else:
                continue
            if isinstance(v, torch.Tensor):
                ins.append(self.name_of(v))
                if a.alias_info is not None and a.alias_info.is_write:
                    mutated.append(v)
            elif isinstance(v, (list, tuple)) and v and all(isinstance(x, torch.Tensor) for x in v):
                ins.extend(self.name_of(x) for x in v)
            elif isinstance(v, bool):
                attrs[a.name] = v
            elif isinstance(v, int):
                attrs[a.name] = v
            elif isinstance(v, float):
                attrs[a.name] = v
            elif isinstance(v, str):
                attrs[a.name] = v
            elif isinstance(v, (list, tuple)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                attrs[a.name] = list(v)
        flat, _ = tree_flatten(out)
        outs = []
        op = {"kernel": kernel, "inputs": ins, "outputs": outs}
        for t in flat:
            if not isinstance(t, torch.Tensor):
                continue
            src = next((m for m in mutated if m is t), None)
            if src is not None:
                old = self.names[id(t)]
                if "view_of" in self.tensors[old] or old in self.inputs:
                    op.setdefault("mutates", []).append(old)
                    continue
                # The result takes over the mutated tensor's storage.
                del self.names[id(t)]
                new = self.fresh("t")
                d = self.describe(t)
                self.tensors[new] = d
                self.order.append(new)
                self.names[id(t)] = new
                ptr = t.storage().data_ptr()
                if self.storages.get(ptr) == old:
                    self.storages[ptr] = new
                    for v in self.tensors.values():
                        if v.get("view_of") == old:
                            pass  # views keep naming the old tensor, still valid
                outs.append(new)
                op.setdefault("inplace", {})[new] = old
            elif any(same_layout(t, a) for a in args if isinstance(a, torch.Tensor)):
                # A view equal to its input (a full slice): the same name.
                a = next(a for a in args if isinstance(a, torch.Tensor) and same_layout(t, a))
                self.names[id(t)] = self.names[id(a)]
                self.keep.append(t)
                op["returns_input"] = True
            elif id(t) in self.names:
                # The op returned its input itself (dropout in eval, alias):
                # nothing is computed, the name stays.
                op["returns_input"] = True
            else:
                outs.append(self.define(t, "t", storage_owner=False))
        if attrs:
            op["attrs"] = attrs
        # A view op's outputs are views: not kernel calls at all in the
        # recorded graph when every output aliases an input.
        self.ops.append(op)
        return out


def same_layout(a, b):
    return (a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
            and a.storage_offset() == b.storage_offset() and a.storage().data_ptr() == b.storage().data_ptr())


def record(model, make_input, batch, grad):
    torch.manual_seed(0)
    x = make_input(batch)
    # Attention models record with autograd on, which keeps torch from its
    # fused inference-only attention kernel (one opaque op); the rest in
    # no_grad, so autograd adds no clones.
    with torch.set_grad_enabled(grad):
        # Parameters must be the very tensors the model uses, so name those.
        rec = Recorder()
        rec.name_of(x)
        with rec:
            y = model(x)
    flat, _ = tree_flatten(y)
    outputs = [rec.names[id(t)] for t in flat if isinstance(t, torch.Tensor)]
    return rec, outputs


def affine(v2, v3):
    if v2 == v3:
        return v2
    a = v3 - v2
    b = v2 - 2 * a
    s = "batch" if a == 1 else "%d*batch" % a
    if b > 0:
        s += "+%d" % b
    elif b < 0:
        s += "-%d" % -b
    return s


def merge(x2, x3, path):
    if isinstance(x2, bool) or isinstance(x2, (str, float)) or x2 is None:
        if x2 != x3:
            raise SystemExit("runs differ at %s: %r vs %r" % (path, x2, x3))
        return x2
    if isinstance(x2, int):
        return affine(x2, x3)
    if isinstance(x2, list):
        if len(x2) != len(x3):
            raise SystemExit("runs differ at %s: lengths %d vs %d" % (path, len(x2), len(x3)))
        return [merge(a, b, "%s[%d]" % (path, i)) for i, (a, b) in enumerate(zip(x2, x3))]
    if isinstance(x2, dict):
        if list(x2) != list(x3):
            raise SystemExit("runs differ at %s: keys %s vs %s" % (path, list(x2), list(x3)))
        return {k: merge(x2[k], x3[k], path + "." + k) for k in x2}
    raise SystemExit("unexpected %r at %s" % (x2, path))


def attr_exprs(op):
    """Int attributes that vary become {"expr": ...}."""
    for k, v in list(op.get("attrs", {}).items()):
        if isinstance(v, str) and "batch" in v:
            op["attrs"][k] = {"expr": v}
        elif isinstance(v, list):
            op["attrs"][k] = [{"expr": e} if isinstance(e, str) and "batch" in e else e for e in v]


# may_alias pairs of pointwise aten kernels: each output element is computed
# from the same element of these inputs (batch and layer norm in inference,
# softmax from its row, which it reads before writing).
POINTWISE = {
    "native_batch_norm": [[0, 0]], "native_layer_norm": [[0, 0]], "_softmax": [[0, 0]],
    "add_Tensor": [[0, 0], [0, 1]], "mul_Tensor": [[0, 0], [0, 1]], "sub_Tensor": [[0, 0], [0, 1]],
    "div_Tensor": [[0, 0], [0, 1]], "gelu": [[0, 0]], "relu": [[0, 0]], "sigmoid": [[0, 0]],
    "hardsigmoid": [[0, 0]], "silu": [[0, 0]], "hardswish": [[0, 0]], "clone": [[0, 0]],
    "masked_fill_Scalar": [[0, 0]],
}


def pointwise_traits(ops):
    fewest = {}
    for op in ops:
        fewest[op["kernel"]] = min(fewest.get(op["kernel"], len(op["inputs"])), len(op["inputs"]))
    return {k: {"may_alias": [p for p in POINTWISE[k] if p[1] < fewest[k]]}
            for k in sorted(fewest) if k in POINTWISE}


MODELS = {
    "vit_b_16": lambda: torchvision.models.vit_b_16(),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(),
    "resnet18": lambda: torchvision.models.resnet18(),
    "densenet121": lambda: torchvision.models.densenet121(),
    "resnet50": lambda: torchvision.models.resnet50(),
    "efficientnet_b0": lambda: torchvision.models.efficientnet_b0(),
    "mobilenet_v3_large": lambda: torchvision.models.mobilenet_v3_large(),
    "inception_v3": lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=False),
    "regnet_y_400mf": lambda: torchvision.models.regnet_y_400mf(),
    "squeezenet1_1": lambda: torchvision.models.squeezenet1_1(),
}


def bert_like():
    """A BERT-base-like encoder (4 layers, hidden 256, seq 128), explicit ops."""
    class Layer(torch.nn.Module):
        def __init__(self, h, heads):
            super().__init__()
            self.h, self.heads = h, heads
            self.qkv = torch.nn.Linear(h, 3 * h)
            self.proj = torch.nn.Linear(h, h)
            self.ln1 = torch.nn.LayerNorm(h)
            self.ff1 = torch.nn.Linear(h, 4 * h)
            self.ff2 = torch.nn.Linear(4 * h, h)
            self.ln2 = torch.nn.LayerNorm(h)

        def forward(self, x):
            b, s, h = x.shape
            q, k, v = self.qkv(x).split(h, dim=-1)
            q = q.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
            k = k.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
            v = v.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
            a = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, dim=-1)
            o = (a @ v).transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.proj(o))
            return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([Layer(256, 4) for _ in range(4)])

        def forward(self, x):
            for l in self.layers:
                x = l(x)
            return x
    return Bert().eval(), (lambda b: torch.randn(b, 128, 256))


def main():
    args = sys.argv[1:]
    traits = "--pointwise-traits" in args
    name, path = [a for a in args if a != "--pointwise-traits"]
    if name == "bert_like":
        model, make_input = bert_like()
    else:
        model = MODELS[name]().eval()
        size = 299 if name == "inception_v3" else 224
        make_input = lambda b: torch.randn(b, 3, size, size)
    grad = name in ("vit_b_16",)
    runs = [record(model, make_input, b, grad) for b in (2, 3)]
    docs = []
    for rec, outputs in runs:
        docs.append({"tensors": {n: rec.tensors[n] for n in rec.order}, "inputs": rec.inputs,
                     "outputs": outputs, "ops": rec.ops})
    merged = merge(docs[0], docs[1], "graph")
    for op in merged["ops"]:
        attr_exprs(op)
    for t in merged["tensors"].values():
        shape, strides = t["shape"], t.get("strides")
        if strides is not None and "view_of" not in t and all(isinstance(d, int) for d in shape):
            want, n = [], 1
            for d in reversed(shape):
                want.insert(0, n)
                n *= d
            if strides == want:
                del t["strides"]
    # Drop ops all of whose outputs are views: they compute nothing.
    ops = []
    for op in merged["ops"]:
        if op.pop("returns_input", False) and not op["outputs"]:
            continue
        if op["outputs"] and all("view_of" in merged["tensors"][o] for o in op["outputs"]) and "mutates" not in op:
            continue
        ops.append(op)
    g = {"name": name, "symbols": {"batch": {"hint": 1, "min": 1}}, "tensors": merged["tensors"],
         "inputs": merged["inputs"], "outputs": merged["outputs"], "ops": ops}
    if traits:
        g["kernels"] = pointwise_traits(ops)
    with open(path, "w") as f:
        json.dump(g, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
