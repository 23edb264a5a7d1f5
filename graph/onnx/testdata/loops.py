# Makes the Loop models the importer must refuse, one reason each:
#   /usr/bin/python3 loops.py   (Debian's python3-onnx)
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def scalar(name, dtype):
    return helper.make_tensor_value_info(name, dtype, [])


def loop_model(name, body_nodes, body_out_shape, m_input):
    body = helper.make_graph(body_nodes, "body",
                             [scalar("i", TensorProto.INT64), scalar("c", TensorProto.BOOL), f32("a_in", [2])],
                             [scalar("c_out", TensorProto.BOOL), f32("a_out", body_out_shape)])
    nodes = [helper.make_node("Loop", ["M", "", "x"], ["y"], body=body, name="loop")]
    inputs = [f32("x", [2])]
    inits = []
    if m_input:
        inputs.append(helper.make_tensor_value_info("M", TensorProto.INT64, []))
    else:
        inits.append(numpy_helper.from_array(np.array(3, np.int64), "M"))
    g = helper.make_graph(nodes, name, inputs, [f32("y", [None])], initializer=inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, name + ".onnx")


keep = helper.make_node("Identity", ["c"], ["c_out"])
loop_model("loop_runtime_count", [keep, helper.make_node("Neg", ["a_in"], ["a_out"])], [2], True)
loop_model("loop_runtime_cond", [
    helper.make_node("ReduceSum", ["a_in"], ["s"], keepdims=0),
    helper.make_node("Constant", [], ["ten"], value=numpy_helper.from_array(np.array(10, np.float32))),
    helper.make_node("Less", ["s", "ten"], ["c_out"]),
    helper.make_node("Add", ["a_in", "a_in"], ["a_out"])], [2], False)
loop_model("loop_growing", [keep, helper.make_node("Concat", ["a_in", "a_in"], ["a_out"], axis=0)], [4], False)

# A Loop reading its iteration number, then a node whose output has the
# name the importer would give the counter: the importer's names must
# avoid every name the model uses, later ones included.
body = helper.make_graph(
    [keep, helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT), helper.make_node("Add", ["a_in", "fi"], ["a_out"])],
    "body", [scalar("i", TensorProto.INT64), scalar("c", TensorProto.BOOL), f32("a_in", [2])],
    [scalar("c_out", TensorProto.BOOL), f32("a_out", [2])])
g = helper.make_graph(
    [helper.make_node("Loop", ["M", "", "x"], ["y"], body=body, name="loop"),
     helper.make_node("Relu", ["y"], ["loop.iteration"]), helper.make_node("Neg", ["loop.iteration"], ["z"])],
    "loop_name_clash", [f32("x", [2])], [f32("z", [2])],
    initializer=[numpy_helper.from_array(np.array(3, np.int64), "M")])
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, "loop_name_clash.onnx")
