# Makes models whose sizes the data decides, laid out as ONNX node tests
# (model.onnx, test_data_set_0/input_<i>.pb, output_<i>.pb), the expected
# outputs computed by numpy:  /usr/bin/python3 make.py   (Debian's python3-onnx)
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(name, model, inputs, outputs):
    os.makedirs(os.path.join(name, "test_data_set_0"), exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(name, "model.onnx"))
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, a in enumerate(arrays):
            with open(os.path.join(name, "test_data_set_0", "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a)).SerializeToString())


def topk_of_kept():
    """A detector's candidate selection: scores above a threshold are kept
    (NonZero, GatherND: a run-time size), then the top min(3, kept) of them
    (TopK whose K is that minimum, folded symbolically at import)."""
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(v)))
    g = helper.make_graph(
        [
            c("thr", np.float32(0.5)), c("cap", np.array([3], np.int64)), c("zero", np.int64(0)), c("one", np.array([1], np.int64)),
            helper.make_node("Greater", ["scores", "thr"], ["mask"]),
            helper.make_node("NonZero", ["mask"], ["nz"]),
            helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
            helper.make_node("GatherND", ["scores", "idx"], ["kept"]),
            helper.make_node("Shape", ["kept"], ["kshape"]),
            helper.make_node("Gather", ["kshape", "zero"], ["n"], axis=0),
            helper.make_node("Unsqueeze", ["n", "zero1"], ["n1"]),
            helper.make_node("Concat", ["cap", "n1"], ["both"], axis=0),
            helper.make_node("ReduceMin", ["both"], ["k0"], keepdims=0),
            helper.make_node("Reshape", ["k0", "one"], ["k"]),
            helper.make_node("TopK", ["kept", "k"], ["top", "topi"]),
        ],
        "topk_of_kept",
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["n_scores"])],
        [helper.make_tensor_value_info("top", TensorProto.FLOAT, [None]), helper.make_tensor_value_info("topi", TensorProto.INT64, [None])],
        initializer=[numpy_helper.from_array(np.array([0], np.int64), "zero1")],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    scores = np.array([0.9, 0.1, 0.7, 0.6, 0.2, 0.95, 0.55], np.float32)
    kept = scores[scores > 0.5]
    order = np.argsort(-kept, kind="stable")[: min(3, len(kept))]
    save("topk_of_kept", model, [scores], [kept[order], order.astype(np.int64)])


topk_of_kept()


def loop_of_kept():
    """A Loop over the rows of x whose body keeps each row's positive
    entries (NonZero: a run-time size set in every iteration) and adds
    their sum to a carried total."""
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(v)))
    body = helper.make_graph(
        [
            c("zero_f", np.float32(0)),
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("Greater", ["row", "zero_f"], ["pos"]),
            helper.make_node("NonZero", ["pos"], ["nz"]),
            helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0]),
            helper.make_node("GatherND", ["row", "idx"], ["kept"]),
            helper.make_node("ReduceSum", ["kept"], ["s"], keepdims=0),
            helper.make_node("Add", ["total_in", "s"], ["total_out"]),
            helper.make_node("Identity", ["cond"], ["cond_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("total_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("total_out", TensorProto.FLOAT, [])],
    )
    g = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["shape"]),
            c("zero", np.int64(0)),
            helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
            c("total0", np.float32(0)),
            helper.make_node("Loop", ["rows", "", "total0"], ["total"], body=body),
        ],
        "loop_of_kept",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 5])],
        [helper.make_tensor_value_info("total", TensorProto.FLOAT, [])],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    total = np.float32(0)
    for row in x:
        total = np.float32(total + row[row > 0].sum(dtype=np.float32))
    save("loop_of_kept", model, [x], [total])


loop_of_kept()
