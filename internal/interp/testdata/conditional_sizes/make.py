# Makes small PyTorch models whose sizes agree only at some input sizes
# (a fact the importer turns into a multiple of the input's size, not a
# refusal), and one whose positions are a float arange of the sequence
# length, laid out as ONNX node tests (model.onnx,
# test_data_set_<k>/input_<i>.pb, output_<i>.pb), one data set per allowed
# input size, the expected outputs PyTorch's:
#   /usr/bin/python3 make.py   (Debian's python3 with torch 1.13)
import math
import os
import shutil
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

warnings.filterwarnings("ignore")


def save(name, model, example, input_names, dynamic_axes, data_sets, opset=17):
    shutil.rmtree(name, ignore_errors=True)
    os.makedirs(name)
    torch.onnx.export(model, example, os.path.join(name, "model.onnx"), input_names=input_names,
                      output_names=["y"], dynamic_axes=dynamic_axes, opset_version=opset)
    for k, inputs in enumerate(data_sets):
        d = os.path.join(name, "test_data_set_%d" % k)
        os.makedirs(d)
        with torch.no_grad():
            out = model(*inputs)
        for kind, arrays in (("input", inputs), ("output", (out,))):
            for i, a in enumerate(arrays):
                with open(os.path.join(d, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(numpy_helper.from_array(a.numpy()).SerializeToString())


class UNet(nn.Module):
    """Two strided encoder stages, each skip concatenated with the
    upsampled decoder map: 2*((h+1)//2) against h, equal when h is even,
    and again a level down: h must be a multiple of 4."""

    def __init__(self):
        super().__init__()
        self.e1 = nn.Conv2d(3, 8, 3, padding=1)
        self.e2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.e3 = nn.Conv2d(16, 32, 3, padding=1, stride=2)
        self.u2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.d2 = nn.Conv2d(32, 16, 3, padding=1)
        self.u1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.d1 = nn.Conv2d(16, 8, 3, padding=1)
        self.out = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        a = F.relu(self.e1(x))
        b = F.relu(self.e2(a))
        c = F.relu(self.e3(b))
        d = F.relu(self.d2(torch.cat([self.u2(c), b], 1)))
        e = F.relu(self.d1(torch.cat([self.u1(d), a], 1)))
        return self.out(e)


class PatchUnfold(nn.Module):
    """MobileViT's unfold: a stride-2 stem, then the map cut into 2x2
    patches by reshape (exact when the stem's output is even), mixed across
    the patch's pixels, folded back."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, stride=2)
        self.mix = nn.Linear(8, 8)

    def forward(self, x):
        y = F.relu(self.stem(x))
        b, c, h, w = y.shape
        p = y.reshape(b, c, h // 2, 2, w // 2, 2).permute(0, 3, 5, 2, 4, 1)
        p = self.mix(p)
        return p.permute(0, 5, 3, 1, 4, 2).reshape(b, c, h, w)


class SinusoidalDecoder(nn.Module):
    """Positions as torch.arange(seq, dtype=torch.float) (a Range over
    floats whose limit is the sequence length cast to float), sinusoidal
    encodings from them, a causal mask from sizes, one attention."""

    def __init__(self, d=16, vocab=50):
        super().__init__()
        self.d = d
        self.emb = nn.Embedding(vocab, d)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids):
        seq = ids.shape[1]
        pos = torch.arange(seq, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.d, 2, dtype=torch.float) * (-math.log(10000.0) / self.d))
        pe = torch.zeros(seq, self.d)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        x = self.emb(ids) + pe
        mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        att = torch.softmax(x @ x.transpose(1, 2) / math.sqrt(self.d) + mask, -1) @ x
        return self.out(att)


torch.manual_seed(0)
save("unet", UNet().eval(), (torch.randn(1, 3, 32, 48),), ["x"], {"x": {0: "batch", 2: "height", 3: "width"}},
     [(torch.randn(1, 3, 32, 48),), (torch.randn(2, 3, 20, 12),)])
torch.manual_seed(1)
save("patch_unfold", PatchUnfold().eval(), (torch.randn(1, 3, 16, 24),), ["x"], {"x": {2: "height", 3: "width"}},
     [(torch.randn(1, 3, 16, 24),), (torch.randn(1, 3, 28, 12),)])
torch.manual_seed(2)
save("arange_positions", SinusoidalDecoder().eval(), (torch.randint(0, 50, (1, 7)),), ["ids"],
     {"ids": {0: "batch", 1: "seq"}}, [(torch.randint(0, 50, (1, 7)),), (torch.randint(0, 50, (2, 19)),)])
