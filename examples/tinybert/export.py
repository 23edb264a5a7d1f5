# Exports a small BERT-style encoder with random weights stored inside the
# model (initializers) and records PyTorch's output for fixed inputs. Run
# with Debian's python3 and torch 1.13:  /usr/bin/python3 export.py
import json
import math
import torch

torch.manual_seed(0)
VOCAB, HIDDEN, HEADS, LAYERS, FF, MAXLEN = 100, 32, 4, 2, 64, 64


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(HIDDEN, 3 * HIDDEN)
        self.out = torch.nn.Linear(HIDDEN, HIDDEN)
        self.ln1 = torch.nn.LayerNorm(HIDDEN)
        self.ff1 = torch.nn.Linear(HIDDEN, FF)
        self.ff2 = torch.nn.Linear(FF, HIDDEN)
        self.ln2 = torch.nn.LayerNorm(HIDDEN)

    def forward(self, x, bias):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).split(HIDDEN, dim=-1)
        heads = lambda t: t.reshape(b, s, HEADS, HIDDEN // HEADS).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + bias, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, HIDDEN)
        x = self.ln1(x + self.out(y))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class TinyBert(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, HIDDEN)
        self.pos = torch.nn.Embedding(MAXLEN, HIDDEN)
        self.ln = torch.nn.LayerNorm(HIDDEN)
        self.layers = torch.nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.pool = torch.nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_ids, attention_mask):
        s = input_ids.shape[1]
        x = self.ln(self.tok(input_ids) + self.pos(torch.arange(s).unsqueeze(0)))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pool(x[:, 0]))


model = TinyBert().eval()
ids = torch.tensor([[(7 * i + 3 * j) % VOCAB for j in range(12)] for i in range(2)])
mask = torch.ones(2, 12, dtype=torch.int64)
mask[1, 9:] = 0
torch.onnx.export(model, (ids, mask), "tinybert.onnx", input_names=["input_ids", "attention_mask"],
                  output_names=["hidden", "pooled"],
                  dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                                "hidden": {0: "batch", 1: "seq"}, "pooled": {0: "batch"}}, opset_version=17)
hidden, pooled = model(ids, mask)
with open("expected.json", "w") as f:
    json.dump({"input_ids": ids.reshape(-1).tolist(), "attention_mask": mask.reshape(-1).tolist(), "shape": [2, 12],
               "hidden": [float(v) for v in hidden.detach().reshape(-1)],
               "pooled": [float(v) for v in pooled.detach().reshape(-1)]}, f)
