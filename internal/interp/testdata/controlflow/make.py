# Makes the control-flow models the interp tests run, each a folder laid out
# as an ONNX node test (model.onnx, test_data_set_0/input_<i>.pb and the
# expected output_<i>.pb), the expected outputs from an independent
# reference: PyTorch for the scripted model, numpy loops for the others.
#   /usr/bin/python3 make.py   (Debian's python3-torch and python3-onnx)
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
torch.manual_seed(0)


def save(name, model, inputs, outputs):
    os.makedirs(os.path.join(name, "test_data_set_0"), exist_ok=True)
    if isinstance(model, onnx.ModelProto):
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(name, "model.onnx"))
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, a in enumerate(arrays):
            t = numpy_helper.from_array(np.asarray(a))
            with open(os.path.join(name, "test_data_set_0", "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(t.SerializeToString())


class Scripted(torch.nn.Module):
    """A scripted recurrence: a Loop over the sequence carrying the state
    and reading the step number, and an If on a static size."""

    def __init__(self, features=6, hidden=8):
        super().__init__()
        self.hidden = hidden
        self.wx = torch.nn.Linear(features, hidden)
        self.wh = torch.nn.Linear(hidden, hidden)

    def forward(self, x):
        h = torch.zeros(x.size(0), self.hidden)
        for t in range(x.size(1)):
            h = torch.tanh(self.wx(x[:, t]) + self.wh(h) + 0.1 * t)
        if x.size(2) > 4:
            h = h * 2.0
        return h


def scripted_loop():
    m = torch.jit.script(Scripted().eval())
    x = torch.randn(3, 5, 6)
    os.makedirs("scripted_loop", exist_ok=True)
    torch.onnx.export(m, (x,), "scripted_loop/model.onnx", input_names=["x"], output_names=["h"],
                      dynamic_axes={"x": {0: "batch", 1: "seq"}, "h": {0: "batch"}}, opset_version=17)
    with torch.no_grad():
        h = m(x)
    save("scripted_loop", None, [x.numpy()], [h.numpy()])


class ScriptedIf(torch.nn.Module):
    """Conditions computed from data, as torchvision's batched_nms tests
    boxes.numel() == 0: the branches' outputs differ in size (an empty
    constant or the kept indices, whose else branch also reduces the kept
    scores, empty when none is kept), or agree (y)."""

    def forward(self, scores):
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        if keep.numel() == 0:
            out = torch.empty((0,), dtype=torch.int64)
        else:
            best = scores[keep].max()
            out = keep * 2 + (best > 0.9).long()
        if scores.sum() > 0:
            y = scores * 2.0
        else:
            y = scores - 1.0
        return out, y


def scripted_if():
    m = torch.jit.script(ScriptedIf().eval())
    for name, scores in (("scripted_if_kept", torch.tensor([0.2, 0.95, -0.3, 0.7, 0.1])),
                         ("scripted_if_none", torch.tensor([0.2, -0.4, 0.3, -0.7]))):
        os.makedirs(name, exist_ok=True)
        torch.onnx.export(m, (scores,), name + "/model.onnx", input_names=["scores"], output_names=["kept", "y"],
                          dynamic_axes={"scores": {0: "n"}}, opset_version=17)
        with torch.no_grad():
            out, y = m(scores)
        save(name, None, [scores.numpy()], [out.numpy(), y.numpy()])


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def loop_swap_scan():
    """A Loop of constant trip count 4: carried a and b swap and grow (a
    body output that is another carried value), the iteration number
    feeds the data, and a scan output stacks a*i."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
            helper.make_node("Add", ["b_in", "fi"], ["a_out"]),
            helper.make_node("Identity", ["a_in"], ["b_out"]),
            helper.make_node("Mul", ["a_in", "fi"], ["scan"]),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         f32("a_in", [2, 3]), f32("b_in", [2, 3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), f32("a_out", [2, 3]), f32("b_out", [2, 3]), f32("scan", [2, 3])],
    )
    g = helper.make_graph(
        [
            helper.make_node("Constant", [], ["M"], value=numpy_helper.from_array(np.array(4, np.int64))),
            helper.make_node("Constant", [], ["cond"], value=numpy_helper.from_array(np.array(True))),
            helper.make_node("Loop", ["M", "cond", "a0", "b0"], ["a", "b", "scans"], body=body),
        ],
        "loop_swap_scan",
        [f32("a0", [2, 3]), f32("b0", [2, 3])],
        [f32("a", [2, 3]), f32("b", [2, 3]), f32("scans", [4, 2, 3])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    a0 = rng.standard_normal((2, 3)).astype(np.float32)
    b0 = rng.standard_normal((2, 3)).astype(np.float32)
    a, b, scans = a0.copy(), b0.copy(), []
    for i in range(4):
        scans.append(a * np.float32(i))
        a, b = b + np.float32(i), a
    save("loop_swap_scan", model, [a0, b0], [a, b, np.stack(scans)])


def loop_nested():
    """A Loop over a symbolic size (the input's first dimension) whose body
    runs a Loop of 3: out = sum over rows r and k<3 of x[r] * (k + 1)."""
    inner = helper.make_graph(
        [
            helper.make_node("Cast", ["k"], ["fk"], to=TensorProto.FLOAT),
            helper.make_node("Add", ["fk", "one"], ["k1"]),
            helper.make_node("Mul", ["row", "k1"], ["t"]),
            helper.make_node("Add", ["acc_in2", "t"], ["acc_out2"]),
            helper.make_node("Identity", ["c2"], ["c2_out"]),
        ],
        "inner",
        [helper.make_tensor_value_info("k", TensorProto.INT64, []), helper.make_tensor_value_info("c2", TensorProto.BOOL, []), f32("acc_in2", [4])],
        [helper.make_tensor_value_info("c2_out", TensorProto.BOOL, []), f32("acc_out2", [4])],
    )
    outer = helper.make_graph(
        [
            helper.make_node("Gather", ["x", "r"], ["row"], axis=0),
            helper.make_node("Loop", ["three", "", "acc_in"], ["acc_out"], body=inner),
            helper.make_node("Identity", ["c"], ["c_out"]),
        ],
        "outer",
        [helper.make_tensor_value_info("r", TensorProto.INT64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, []), f32("acc_in", [4])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), f32("acc_out", [4])],
    )
    g = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
            helper.make_node("Loop", ["rows", "", "acc0"], ["acc"], body=outer),
        ],
        "loop_nested",
        [f32("x", ["n", 4])],
        [f32("acc", [4])],
        initializer=[numpy_helper.from_array(np.array(0, np.int64), "zero"), numpy_helper.from_array(np.array(3, np.int64), "three"),
                     numpy_helper.from_array(np.array(1, np.float32), "one"), numpy_helper.from_array(np.zeros(4, np.float32), "acc0")],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((5, 4)).astype(np.float32)
    acc = np.zeros(4, np.float32)
    for r in range(5):
        for k in range(3):
            acc = acc + x[r] * np.float32(k + 1)
    save("loop_nested", model, [x], [acc])


def scan_directions():
    """A Scan (opset 16) with a forward and a reversed scan input (the
    second along axis 1), a running-sum state, and scan outputs stacked
    forward along axis 0 and reversed along axis 1."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "u"], ["s1"]),
            helper.make_node("Mul", ["s1", "v"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["y"]),
            helper.make_node("Sub", ["u", "v"], ["z"]),
        ],
        "body",
        [f32("s_in", [2]), f32("u", [2]), f32("v", [2])],
        [f32("s_out", [2]), f32("y", [2]), f32("z", [2])],
    )
    g = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs", "ws"], ["s", "ys", "zs"], body=body, num_scan_inputs=2,
                          scan_input_axes=[0, 1], scan_input_directions=[0, 1], scan_output_axes=[0, 1], scan_output_directions=[0, 1])],
        "scan_directions",
        [f32("s0", [2]), f32("xs", [5, 2]), f32("ws", [2, 5])],
        [f32("s", [2]), f32("ys", [5, 2]), f32("zs", [2, 5])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    s0 = rng.standard_normal(2).astype(np.float32)
    xs = rng.standard_normal((5, 2)).astype(np.float32)
    ws = rng.standard_normal((2, 5)).astype(np.float32)
    s, ys, zs = s0.copy(), np.zeros((5, 2), np.float32), np.zeros((2, 5), np.float32)
    for t in range(5):
        u, v = xs[t], ws[:, 4 - t]
        s = (s + u) * v
        ys[t] = s
        zs[:, 4 - t] = u - v
    save("scan_directions", model, [s0, xs, ws], [s, ys, zs])


scripted_loop()
scripted_if()
loop_swap_scan()
loop_nested()
scan_directions()
