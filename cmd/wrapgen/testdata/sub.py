# Makes sub.onnx (d = a - b, two inputs whose order matters) and the
# TensorProto inputs run binds by name: a.pb (named "a", [10, 20]),
# b.pb (named "b", [1, 2]), unnamed.pb (no name, [100, 200]), and
# both.pb (named "a", raw_data and float_data both set):
#   /usr/bin/python3 sub.py   (Debian's python3-onnx)
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

g = helper.make_graph(
    [helper.make_node("Sub", ["a", "b"], ["d"])],
    "sub",
    [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
     helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("d", TensorProto.FLOAT, [2])],
)
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, "sub.onnx")
for name, file, values in [("a", "a.pb", [10, 20]), ("b", "b.pb", [1, 2]), ("", "unnamed.pb", [100, 200])]:
    t = numpy_helper.from_array(np.array(values, np.float32), name)
    open(file, "wb").write(t.SerializeToString())
both = numpy_helper.from_array(np.array([10, 20], np.float32), "a")
both.float_data.extend([30, 40])
open("both.pb", "wb").write(both.SerializeToString())
