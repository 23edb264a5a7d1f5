# Makes reshape_input.onnx, whose Reshape target is a graph input (as
# some exporters write it), and shape.npy, the target to fix it to:
#   /usr/bin/python3 reshape_input.py   (Debian's python3-onnx)
import numpy as np
import onnx
from onnx import TensorProto, helper

g = helper.make_graph(
    [helper.make_node("Reshape", ["data", "shape"], ["reshaped"])],
    "reshape_input",
    [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["batch", 6]),
     helper.make_tensor_value_info("shape", TensorProto.INT64, [3])],
    [helper.make_tensor_value_info("reshaped", TensorProto.FLOAT, [None, 2, 3])],
)
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, "reshape_input.onnx")
np.save("shape.npy", np.array([-1, 2, 3], np.int64))
