# Exports scripted_if.onnx: a scripted module whose If tests a static size
# (known at import, so the branch taken is inlined):
#   /usr/bin/python3 scripted_if.py
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.size(1) > 4:
            y = torch.relu(x) + 1.0
        else:
            y = x * 2.0
        return y.sum(dim=1)
m = torch.jit.script(M())
x = torch.randn(2, 6)
torch.onnx.export(m, (x,), "scripted_if.onnx", input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "batch"}}, opset_version=17)


