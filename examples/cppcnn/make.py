# Makes the model of this example and the data cpp/main.cc checks it with,
# beside this file: a small CNN with random weights exported to cnn.onnx
# (weights inside, dynamic batch, 3x64x64 images), a fixed input of batch 2
# (input.npy) and PyTorch's output for it (expected.npy; both f32, C
# order). The seed makes every run write the same bytes. Its outputs are
# checked in: run it only to change the model, with Debian's python3
# (torch 1.13), from anywhere:
#   /usr/bin/python3 examples/cppcnn/make.py
# then regenerate the params and the wrapper: go generate ./examples/cppcnn
import os

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))

torch.manual_seed(0)


def conv_bn(cin, cout, k, stride=1, groups=1):
    return [nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout)]


class Residual(nn.Module):
    """Two 3x3 conv-bn layers and the identity around them."""

    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(*conv_bn(c, c, 3), nn.ReLU(), *conv_bn(c, c, 3))

    def forward(self, x):
        return torch.relu(x + self.body(x))


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn(3, 24, 3, stride=2), nn.ReLU())      # 24x32x32
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)                         # 24x16x16
        self.res = Residual(24)
        self.dwsep = nn.Sequential(*conv_bn(24, 24, 3, stride=2, groups=24), nn.Hardswish(),  # depthwise, 24x8x8
                                   *conv_bn(24, 64, 1), nn.Hardswish())                       # pointwise, 64x8x8
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = self.dwsep(self.res(self.pool(self.stem(x))))
        return self.head(torch.flatten(self.gap(x), 1))


model = SmallCNN()
# Random batch-norm statistics and affine terms, so that folding them into
# the convolutions is exercised.
with torch.no_grad():
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.2, 0.2)
model.eval()

x = torch.randn(2, 3, 64, 64)
torch.onnx.export(model, x, os.path.join(HERE, "cnn.onnx"), input_names=["image"], output_names=["logits"],
                  dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17)
with torch.no_grad():
    y = model(x)
np.save(os.path.join(HERE, "input.npy"), np.ascontiguousarray(x.numpy(), dtype=np.float32))
np.save(os.path.join(HERE, "expected.npy"), np.ascontiguousarray(y.numpy(), dtype=np.float32))
print("cnn.onnx: %d params, %d bytes; logits %s, max |logit| %.4g" % (
    sum(p.numel() for p in model.parameters()), os.path.getsize(os.path.join(HERE, "cnn.onnx")),
    tuple(y.shape), y.abs().max().item()))
