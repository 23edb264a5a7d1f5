# Makes a Loop whose carried value grows by one row per iteration
# (out = torch.cat([out, row[None]]), as Keypoint R-CNN's keypoints do),
# laid out as an ONNX node test, the expected outputs from numpy:
#   /usr/bin/python3 make.py   (Debian's python3-onnx)
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


def loop_accumulate():
    """For each row i of x [n, 3]: rows = cat([rows, (2 * x[i])[None]]) from
    rows [0, 3] (through a Cast to its own dtype, as traced models do), and
    total = total + x[i], a carried value of fixed shape."""
    f = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
         helper.make_node("Constant", [], ["two"], value=helper.make_tensor("two", f, [], [2.0])),
         helper.make_node("Mul", ["row", "two"], ["row2"]),
         helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("zero", TensorProto.INT64, [1], [0])),
         helper.make_node("Unsqueeze", ["row2", "zero"], ["row2u"]),
         helper.make_node("Cast", ["rows_in"], ["rows_cast"], to=f),
         helper.make_node("Concat", ["rows_cast", "row2u"], ["rows_out"], axis=0),
         helper.make_node("Add", ["total_in", "row"], ["total_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("rows_in", f, None),
         helper.make_tensor_value_info("total_in", f, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("rows_out", f, None),
         helper.make_tensor_value_info("total_out", f, [3])])
    graph = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("Constant", [], ["first"], value=helper.make_tensor("first", TensorProto.INT64, [1], [0])),
         helper.make_node("Gather", ["shape", "first"], ["n1"], axis=0),
         helper.make_node("Squeeze", ["n1", "first"], ["n"]),
         helper.make_node("Constant", [], ["rows0"], value=helper.make_tensor("rows0", f, [0, 3], [])),
         helper.make_node("Constant", [], ["total0"], value=helper.make_tensor("total0", f, [3], [0, 0, 0])),
         helper.make_node("Loop", ["n", "", "rows0", "total0"], ["rows", "total"], body=body)],
        "accumulate",
        [helper.make_tensor_value_info("x", f, ["n", 3])],
        [helper.make_tensor_value_info("rows", f, ["n", 3]), helper.make_tensor_value_info("total", f, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    rows = np.zeros((0, 3), np.float32)
    total = np.zeros(3, np.float32)
    for i in range(x.shape[0]):
        rows = np.concatenate([rows, (2 * x[i])[None]])
        total = total + x[i]
    save("loop_accumulate", model, [x], [rows, total])


loop_accumulate()
