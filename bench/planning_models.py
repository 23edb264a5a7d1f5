# Exports the transformer-family models the planner is timed and judged on
# (issue: plans near the bound at every size, planned in a second), random
# weights, dynamic axes:
#   /usr/bin/python3 bench/planning_models.py DIR
# encdec: torch.nn.Transformer (d_model 64, 4 heads, 2+2 layers, ff 128)
#   over batch, src_seq, tgt_seq; gpt: a 4-layer GPT-style decoder with a
#   KV cache (hidden 128, 4 heads) over batch, past, seq.
import os
import sys

import torch

torch.manual_seed(0)


class EncDec(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=128, batch_first=True)

    def forward(self, src, tgt):
        return self.t(src, tgt)


class Block(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.ln2 = torch.nn.LayerNorm(hidden)
        self.ff1 = torch.nn.Linear(hidden, 4 * hidden)
        self.ff2 = torch.nn.Linear(4 * hidden, hidden)

    def forward(self, x, past_k, past_v):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q = q.reshape(b, s, self.heads, d).transpose(1, 2)
        k = torch.cat([past_k, k.reshape(b, s, self.heads, d).transpose(1, 2)], dim=2)
        v = torch.cat([past_v, v.reshape(b, s, self.heads, d).transpose(1, 2)], dim=2)
        att = (q @ k.transpose(2, 3)) / (d ** 0.5)
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, s, h)
        x = x + self.proj(y)
        x = x + self.ff2(torch.nn.functional.gelu(self.ff1(self.ln2(x))))
        return x, k, v


class GPT(torch.nn.Module):
    def __init__(self, vocab=1000, hidden=128, heads=4, layers=4):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, hidden)
        self.blocks = torch.nn.ModuleList([Block(hidden, heads) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(hidden)
        self.head = torch.nn.Linear(hidden, vocab)

    def forward(self, ids, past):
        x = self.emb(ids)
        presents = []
        for i, blk in enumerate(self.blocks):
            x, k, v = blk(x, past[2 * i], past[2 * i + 1])
            presents += [k, v]
        return self.head(self.ln(x)), torch.stack(presents)


def main(out):
    os.makedirs(out, exist_ok=True)
    src, tgt = torch.randn(2, 10, 64), torch.randn(2, 7, 64)
    torch.onnx.export(EncDec().eval(), (src, tgt), os.path.join(out, "encdec.onnx"), input_names=["src", "tgt"], output_names=["out"],
                      dynamic_axes={"src": {0: "batch", 1: "src_seq"}, "tgt": {0: "batch", 1: "tgt_seq"}, "out": {0: "batch", 1: "tgt_seq"}},
                      opset_version=17)
    ids, past = torch.randint(0, 1000, (2, 3)), torch.randn(8, 2, 4, 5, 32)
    torch.onnx.export(GPT().eval(), (ids, past), os.path.join(out, "gpt.onnx"), input_names=["ids", "past"], output_names=["logits", "present"],
                      dynamic_axes={"ids": {0: "batch", 1: "seq"}, "past": {1: "batch", 3: "past"}, "logits": {0: "batch", 1: "seq"}},
                      opset_version=17)
    print(out)


if __name__ == "__main__":
    main(sys.argv[1])
