# Makes models whose shape inputs are computed at run time from sizes in
# float arithmetic (no integer expression folds them), laid out as ONNX
# node tests with one data set per input size, the expected outputs from
# numpy:
#   /usr/bin/python3 make.py   (Debian's python3-onnx)
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(name, model, data_sets):
    shutil.rmtree(name, ignore_errors=True)
    onnx.checker.check_model(model)
    os.makedirs(name)
    onnx.save(model, os.path.join(name, "model.onnx"))
    for k, (inputs, outputs) in enumerate(data_sets):
        d = os.path.join(name, "test_data_set_%d" % k)
        os.makedirs(d)
        for kind, arrays in (("input", inputs), ("output", outputs)):
            for i, a in enumerate(arrays):
                with open(os.path.join(d, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(numpy_helper.from_array(np.asarray(a)).SerializeToString())


def fill_and_expand():
    """rows = floor(float32(h) * 1.7) (1.7 is no dyadic ratio that folds);
    y = ConstantOfShape([rows, w], 2.5) and z = Expand(t [1, w], [rows, 1])."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    const = lambda name, dt, dims, vals: helper.make_node("Constant", [], [name], value=helper.make_tensor(name, dt, dims, vals))
    graph = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["shape"]),
         const("i0", i64, [1], [0]), const("i1", i64, [1], [1]), const("one", i64, [1], [1]),
         helper.make_node("Gather", ["shape", "i0"], ["h"], axis=0),
         helper.make_node("Gather", ["shape", "i1"], ["w"], axis=0),
         helper.make_node("Cast", ["h"], ["hf"], to=f),
         const("k", f, [], [1.7]),
         helper.make_node("Mul", ["hf", "k"], ["m"]),
         helper.make_node("Floor", ["m"], ["r"]),
         helper.make_node("Cast", ["r"], ["rows"], to=i64),
         helper.make_node("Concat", ["rows", "w"], ["fill_shape"], axis=0),
         helper.make_node("ConstantOfShape", ["fill_shape"], ["y"], value=helper.make_tensor("v", f, [1], [2.5])),
         helper.make_node("Concat", ["rows", "one"], ["target"], axis=0),
         helper.make_node("Expand", ["t", "target"], ["z"])],
        "fill_and_expand",
        [helper.make_tensor_value_info("x", f, ["h", "w"]), helper.make_tensor_value_info("t", f, [1, "w"])],
        [helper.make_tensor_value_info("y", f, ["rows", "w"]), helper.make_tensor_value_info("z", f, ["rows", "w"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    rng = np.random.default_rng(0)
    sets = []
    for h, w in ((3, 4), (10, 2), (7, 5)):
        x = rng.standard_normal((h, w)).astype(np.float32)
        t = rng.standard_normal((1, w)).astype(np.float32)
        rows = int(np.floor(np.float32(h) * np.float32(1.7)))
        sets.append(([x, t], [np.full((rows, w), 2.5, np.float32), np.broadcast_to(t, (rows, w)).copy()]))
    save("fill_and_expand", model, sets)


fill_and_expand()
