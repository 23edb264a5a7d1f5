# Exports the models wrapgen is checked and timed on, with random weights
# stored inside each .onnx (initializers), one fixed input per model
# (in_<i>.npy) and PyTorch's outputs for it (out_<i>.npy):
#   /usr/bin/python3 bench/export.py DIR [MODEL ...]
# Models: resnet18, mobilenet_v3_small, squeezenet1_0 (torchvision, batch 2,
# 224x224), lraspp (torchvision's LR-ASPP MobileNetV3 segmentation model,
# whose bilinear upsampling exports as Resize; batch 2, 224x224), recurrent
# (a bidirectional 2-layer LSTM then a GRU, batch first: batch 2, sequence
# 20, 32 features), scripted (a scripted recurrence: a Loop over the
# sequence carrying the state and reading the step number, and an If on a
# static size; batch 2, sequence 12, 16 features) and bert (a BERT-style encoder: hidden 256, 4 layers,
# 4 heads, batch 2, sequence 24). Needs Debian's python3-torch and
# python3-torchvision (torch 1.13).
# Any other torchvision classification model exports by its name (for
# example resnet50, mobilenet_v2, efficientnet_b0); qdq_resnet18 is
# resnet18 with every convolution's input and weight quantized to int8 by
# QuantizeLinear/DequantizeLinear pairs (per-tensor activations,
# per-channel weights), as a quantization toolkit exports it. BATCH sets
# the image models' batch (default 2); bert_s128 is the encoder at batch
# BATCH, sequence 128; encoder is torch.nn.TransformerEncoder (4 layers,
# d_model 384, 6 heads) at batch BATCH, sequence 64.
import math
import os
import sys

import numpy as np
import torch
import torchvision

torch.manual_seed(0)


class Layer(torch.nn.Module):
    def __init__(self, hidden, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)
        self.ln1 = torch.nn.LayerNorm(hidden)
        self.ff1 = torch.nn.Linear(hidden, ff)
        self.ff2 = torch.nn.Linear(ff, hidden)
        self.ln2 = torch.nn.LayerNorm(hidden)

    def forward(self, x, bias):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(h // self.heads) + bias, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.out(y))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class Segmentation(torch.nn.Module):
    """A torchvision segmentation model's "out" map as the one output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Recurrent(torch.nn.Module):
    def __init__(self, features=32, hidden=64):
        super().__init__()
        self.lstm = torch.nn.LSTM(features, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = torch.nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.out(y)


# Two recurrent models for timing the recurrent kernels, exported only when
# named (53 and 81 MB of random weights): gru_lm (a language model:
# embedding 10000x512, a 2-layer GRU of 512, a Linear back to the
# vocabulary; batch 1, sequence 32) and deepspeech (DeepSpeech 2's shape:
# two Conv2d over a 161-bin spectrogram, a 3-layer bidirectional LSTM of
# 512, a Linear to 29 characters; batch 1, 200 input frames, 100 after the
# convolutions).


class GRULanguageModel(torch.nn.Module):
    def __init__(self, vocab=10000, hidden=512, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.gru = torch.nn.GRU(hidden, hidden, num_layers=layers, batch_first=True)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, _ = self.gru(self.embed(ids))
        return self.out(y)


class DeepSpeech(torch.nn.Module):
    """DeepSpeech 2: convolutions over the spectrogram [batch, 1, bins,
    frames], then a bidirectional LSTM stack over time, then characters."""

    def __init__(self, bins=161, hidden=512, layers=3, chars=29):
        super().__init__()
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(1, 32, (41, 11), stride=(2, 2), padding=(20, 5)),
            torch.nn.Hardtanh(0, 20),
            torch.nn.Conv2d(32, 32, (21, 11), stride=(2, 1), padding=(10, 5)),
            torch.nn.Hardtanh(0, 20),
        )
        features = 32 * ((((bins + 40 - 41) // 2 + 1) + 20 - 21) // 2 + 1)
        self.lstm = torch.nn.LSTM(features, hidden, num_layers=layers, bidirectional=True)
        self.out = torch.nn.Linear(2 * hidden, chars)

    def forward(self, spec):
        x = self.conv(spec)
        b, c, f, t = x.shape
        x = x.reshape(b, c * f, t).permute(2, 0, 1)  # [time, batch, features]
        y, _ = self.lstm(x)
        return self.out(y)


class Scripted(torch.nn.Module):
    def __init__(self, features=16, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.wx = torch.nn.Linear(features, hidden)
        self.wh = torch.nn.Linear(hidden, hidden)
        self.out = torch.nn.Linear(hidden, 10)

    def forward(self, x):
        h = torch.zeros(x.size(0), self.hidden)
        for t in range(x.size(1)):
            h = torch.tanh(self.wx(x[:, t]) + self.wh(h) + 0.01 * t)
        if x.size(2) > 8:
            h = h * 2.0
        return self.out(h)


class QDQConv(torch.nn.Module):
    """A Conv2d whose input and weight go through int8 fake quantization,
    which exports as QuantizeLinear/DequantizeLinear pairs."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv
        w = conv.weight.detach()
        self.register_buffer("w_scale", (w.abs().amax(dim=(1, 2, 3)) / 127).clamp(min=1e-8))
        self.register_buffer("w_zero", torch.zeros(w.shape[0], dtype=torch.int32))

    def forward(self, x):
        x = torch.fake_quantize_per_tensor_affine(x, 0.05, 0, -128, 127)
        w = torch.fake_quantize_per_channel_affine(self.conv.weight, self.w_scale, self.w_zero, 0, -128, 127)
        c = self.conv
        return torch.nn.functional.conv2d(x, w, c.bias, c.stride, c.padding, c.dilation, c.groups)


def quantize_convs(model):
    for name, child in model.named_children():
        if isinstance(child, torch.nn.Conv2d):
            setattr(model, name, QDQConv(child))
        else:
            quantize_convs(child)
    return model


class Bert(torch.nn.Module):
    def __init__(self, vocab=1000, hidden=256, heads=4, layers=4, ff=1024, maxlen=512):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Embedding(maxlen, hidden)
        self.ln = torch.nn.LayerNorm(hidden)
        self.layers = torch.nn.ModuleList([Layer(hidden, heads, ff) for _ in range(layers)])

    def forward(self, input_ids, attention_mask):
        s = input_ids.shape[1]
        x = self.ln(self.tok(input_ids) + self.pos(torch.arange(s).unsqueeze(0)))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x


def export(name, out):
    os.makedirs(out, exist_ok=True)
    batch = int(os.environ.get("BATCH", "2"))
    if name == "recurrent":
        model = Recurrent().eval()
        inputs, names = (torch.randn(2, 20, 32),), ["features"]
        axes = {"features": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        outputs = ["logits"]
    elif name == "gru_lm":
        model = GRULanguageModel().eval()
        inputs, names = (torch.randint(0, 10000, (1, 32)),), ["ids"]
        axes = {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        outputs = ["logits"]
    elif name == "deepspeech":
        model = DeepSpeech().eval()
        inputs, names = (torch.randn(1, 1, 161, 200),), ["spectrogram"]
        axes = {"spectrogram": {0: "batch", 3: "frames"}, "logits": {0: "steps", 1: "batch"}}
        outputs = ["logits"]
    elif name == "scripted":
        model = torch.jit.script(Scripted().eval())
        inputs, names = (torch.randn(2, 12, 16),), ["features"]
        axes = {"features": {0: "batch", 1: "seq"}, "logits": {0: "batch"}}
        outputs = ["logits"]
    elif name == "encoder":
        layer = torch.nn.TransformerEncoderLayer(d_model=384, nhead=6, dim_feedforward=1536, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=4).eval()
        inputs, names = (torch.randn(batch, 64, 384),), ["features"]
        axes = {"features": {0: "batch", 1: "seq"}, "hidden": {0: "batch", 1: "seq"}}
        outputs = ["hidden"]
    elif name in ("bert", "bert_s128"):
        model = Bert().eval()
        b, s = (2, 24) if name == "bert" else (batch, 128)
        ids = torch.randint(0, 1000, (b, s))
        mask = torch.ones(b, s, dtype=torch.int64)
        mask[-1, s - 4:] = 0
        inputs, names = (ids, mask), ["input_ids", "attention_mask"]
        axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}, "hidden": {0: "batch", 1: "seq"}}
        outputs = ["hidden"]
    else:
        if name == "lraspp":
            model = Segmentation(torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)).eval()
        elif name == "qdq_resnet18":
            model = quantize_convs(torchvision.models.resnet18()).eval()
        else:
            model = getattr(torchvision.models, name)().eval()
        # Freshly initialized batch norms are the identity; give them
        # statistics so that the numbers mean something.
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        inputs, names = (torch.randn(batch, 3, 224, 224),), ["image"]
        axes = {"image": {0: "batch"}, "logits": {0: "batch"}}
        outputs = ["logits"]
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, inputs, path, input_names=names, output_names=outputs, dynamic_axes=axes, opset_version=17)
    with torch.no_grad():
        result = model(*inputs)
    for i, x in enumerate(inputs):
        np.save(os.path.join(out, "%s_in_%d.npy" % (name, i)), x.numpy())
    np.save(os.path.join(out, "%s_out_0.npy" % name), result.numpy())
    print(path)


if __name__ == "__main__":
    out = sys.argv[1]
    for name in sys.argv[2:] or ["resnet18", "mobilenet_v3_small", "squeezenet1_0", "lraspp", "recurrent", "scripted", "bert"]:
        export(name, out)
