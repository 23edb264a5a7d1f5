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


# Recurrent models for timing the recurrent kernels, exported only when
# named (53, 59 and 81 MB of random weights): gru_lm and lstm_lm (language
# models: embedding 10000x512, a 2-layer GRU or LSTM of 512, a Linear back
# to the vocabulary; batch 1, sequence 32) and deepspeech (DeepSpeech 2's shape:
# two Conv2d over a 161-bin spectrogram, a 3-layer bidirectional LSTM of
# 512, a Linear to 29 characters; batch 1, 200 input frames, 100 after the
# convolutions).


class LanguageModel(torch.nn.Module):
    def __init__(self, cell, vocab=10000, hidden=512, layers=2):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.rnn = cell(hidden, hidden, num_layers=layers, batch_first=True)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, _ = self.rnn(self.embed(ids))
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


# The sequence set issue 34 times against ONNX Runtime, beside bert_s128
# and the recurrent language models, each at batch 1 as a user would run
# it, its sizes dynamic as a user would export them: tiny_bert (BERT-tiny's
# sizes: vocabulary 30522, hidden 128, 2 layers, 2 heads; sequence 128),
# vit (torchvision's VisionTransformer: patch 16, 224x224, dim 192, 6
# layers, 3 heads), encdec (torch.nn.Transformer, d_model 256, 3+3 layers,
# source 64, target 32 under a causal mask), kv_decoder (one step of a
# GPT-style decoder, d 256, 4 layers, 4 heads, vocabulary 10000, reading a
# key/value cache of 128 steps and returning the logits and the cache of
# 129), wav2vec2 (torchaudio's wav2vec2 with its 7-layer feature
# extractor, 4 transformer layers of 256; 8000 samples), conformer
# (torchaudio's Conformer: input 80, 4 heads, ffn 256, 4 layers, kernel
# 31; 200 frames, its padding mask computed from the lengths) and
# convtasnet (torchaudio's ConvTasNet with its defaults; 8001 samples).


class Causal(torch.nn.Module):
    """torch.nn.Transformer with the causal target mask made inside, as a
    user exports a translation or summarization model's decoder pass."""

    def __init__(self):
        super().__init__()
        self.t = torch.nn.Transformer(d_model=256, nhead=4, num_encoder_layers=3, num_decoder_layers=3,
                                      dim_feedforward=1024, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        n = tgt.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        return self.t(src, tgt, tgt_mask=mask)


class DecoderLayer(torch.nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, ff)
        self.ff2 = torch.nn.Linear(ff, d)

    def forward(self, x, past):
        """x [batch, 1, d]; past [2, batch, heads, steps, d/heads]."""
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.heads), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        x = x + self.ff2(torch.nn.functional.gelu(self.ff1(self.ln2(x)), approximate="tanh"))
        return x, torch.stack([k, v])


class KVDecoder(torch.nn.Module):
    """A GPT-style decoder's step: the new token attends to the cached keys
    and values of the steps before it and to its own."""

    def __init__(self, vocab=10000, d=256, heads=4, layers=4, maxlen=1024):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(maxlen, d)
        self.layers = torch.nn.ModuleList([DecoderLayer(d, heads, 4 * d) for _ in range(layers)])
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids, past):
        """ids [batch, 1]; past [layers, 2, batch, heads, steps, d/heads]."""
        steps = past.shape[4]
        x = self.tok(ids) + self.pos(torch.arange(steps, steps + ids.shape[1]).unsqueeze(0))
        present = []
        for i, layer in enumerate(self.layers):
            x, kv = layer(x, past[i])
            present.append(kv)
        return self.head(self.ln(x)), torch.stack(present)


class Wav2Vec2(torch.nn.Module):
    """torchaudio's wav2vec2 model's features, without the lengths."""

    def __init__(self):
        super().__init__()
        import torchaudio
        self.m = torchaudio.models.wav2vec2_model(
            extractor_mode="group_norm", extractor_conv_layer_config=None, extractor_conv_bias=False,
            encoder_embed_dim=256, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=128,
            encoder_pos_conv_groups=16, encoder_num_layers=4, encoder_num_heads=4, encoder_attention_dropout=0.0,
            encoder_ff_interm_features=1024, encoder_ff_interm_dropout=0.0, encoder_dropout=0.0,
            encoder_layer_norm_first=False, encoder_layer_drop=0.0, aux_num_out=None)

    def forward(self, waveform):
        return self.m(waveform)[0]


def conformer_model():
    """torchaudio's Conformer with its padding mask built as
    torch.arange(torch.max(lengths)), as internal/interp/testdata/
    computed_sizes/make.py exports it (torchaudio's own takes the length
    out with .item(), which traces to a constant: a pinned size)."""
    import torchaudio
    import torchaudio.models.conformer as conformer_module

    def lengths_to_padding_mask(lengths):
        maxlen = torch.max(lengths)
        return torch.arange(maxlen, device=lengths.device, dtype=lengths.dtype).expand(lengths.shape[0], maxlen) >= lengths.unsqueeze(1)

    conformer_module._lengths_to_padding_mask = lengths_to_padding_mask
    return torchaudio.models.Conformer(input_dim=80, num_heads=4, ffn_dim=256, num_layers=4,
                                       depthwise_conv_kernel_size=31).eval()


def export(name, out):
    os.makedirs(out, exist_ok=True)
    batch = int(os.environ.get("BATCH", "2"))
    if name == "recurrent":
        model = Recurrent().eval()
        inputs, names = (torch.randn(2, 20, 32),), ["features"]
        axes = {"features": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        outputs = ["logits"]
    elif name == "gru_lm":
        model = LanguageModel(torch.nn.GRU).eval()
        inputs, names = (torch.randint(0, 10000, (1, 32)),), ["ids"]
        axes = {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        outputs = ["logits"]
    elif name == "lstm_lm":
        model = LanguageModel(torch.nn.LSTM).eval()
        inputs, names = (torch.randint(0, 10000, (1, 32)),), ["ids"]
        axes = {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        outputs = ["logits"]
    elif name == "tiny_bert":
        model = Bert(vocab=30522, hidden=128, heads=2, layers=2, ff=512).eval()
        ids = torch.randint(0, 30522, (1, 128))
        mask = torch.ones(1, 128, dtype=torch.int64)
        mask[0, 120:] = 0
        inputs, names = (ids, mask), ["input_ids", "attention_mask"]
        axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}, "hidden": {0: "batch", 1: "seq"}}
        outputs = ["hidden"]
    elif name == "vit":
        model = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=6, num_heads=3,
                                                     hidden_dim=192, mlp_dim=768).eval()
        # torchvision starts the head (and the class token) at zero: the
        # logits would be zeros whatever the encoder computed.
        with torch.no_grad():
            model.heads.head.weight.normal_(std=0.05)
            model.heads.head.bias.normal_(std=0.05)
            model.class_token.normal_(std=0.5)
        inputs, names = (torch.randn(1, 3, 224, 224),), ["image"]
        axes = {"image": {0: "batch"}, "logits": {0: "batch"}}
        outputs = ["logits"]
    elif name == "encdec":
        model = Causal().eval()
        inputs, names = (torch.randn(1, 64, 256), torch.randn(1, 32, 256)), ["src", "tgt"]
        axes = {"src": {0: "batch", 1: "src_len"}, "tgt": {0: "batch", 1: "tgt_len"}, "hidden": {0: "batch", 1: "tgt_len"}}
        outputs = ["hidden"]
    elif name == "kv_decoder":
        model = KVDecoder().eval()
        inputs, names = (torch.randint(0, 10000, (1, 1)), torch.randn(4, 2, 1, 4, 128, 64)), ["ids", "past"]
        axes = {"ids": {0: "batch"}, "past": {2: "batch", 4: "steps"}, "logits": {0: "batch"},
                "present": {2: "batch", 4: "steps_1"}}
        outputs = ["logits", "present"]
    elif name == "wav2vec2":
        model = Wav2Vec2().eval()
        inputs, names = (torch.randn(1, 8000),), ["waveform"]
        axes = {"waveform": {0: "batch", 1: "samples"}, "features": {0: "batch", 1: "frames"}}
        outputs = ["features"]
    elif name == "conformer":
        model = conformer_model()
        inputs, names = (torch.randn(1, 200, 80), torch.tensor([200])), ["features", "lengths"]
        axes = {"features": {0: "batch", 1: "frames"}, "lengths": {0: "batch"}, "encoded": {0: "batch", 1: "frames"},
                "lengths_out": {0: "batch"}}
        outputs = ["encoded", "lengths_out"]
    elif name == "convtasnet":
        import torchaudio
        torch.manual_seed(0)
        model = torchaudio.models.ConvTasNet().eval()
        # Not a multiple of the encoder's stride 8: there the traced graph
        # pads 8 zeros that eager PyTorch does not (see computed_sizes/make.py).
        inputs, names = (torch.randn(1, 1, 8001),), ["mixture"]
        axes = {"mixture": {0: "batch", 2: "samples"}, "sources": {0: "batch", 2: "samples"}}
        outputs = ["sources"]
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
        shape = (batch, 3, 224, 224)
        if name == "lraspp":
            model = Segmentation(torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)).eval()
        elif name == "deeplabv3_mobilenet_v3_large":  # dilated convolutions
            model = Segmentation(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)).eval()
        elif name == "r3d_18":  # 3-D convolutions over 16 frames
            model = torchvision.models.video.r3d_18().eval()
            shape = (batch, 3, 16, 112, 112)
        elif name == "qdq_resnet18":
            model = quantize_convs(torchvision.models.resnet18()).eval()
        else:
            model = getattr(torchvision.models, name)().eval()
        # Freshly initialized batch norms are the identity; give them
        # statistics so that the numbers mean something.
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
        inputs, names = (torch.randn(*shape),), ["image"]
        axes = {"image": {0: "batch"}, "logits": {0: "batch"}}
        outputs = ["logits"]
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, inputs, path, input_names=names, output_names=outputs, dynamic_axes=axes, opset_version=17)
    with torch.no_grad():
        result = model(*inputs)
    for i, x in enumerate(inputs):
        np.save(os.path.join(out, "%s_in_%d.npy" % (name, i)), x.numpy())
    for i, y in enumerate(result if isinstance(result, tuple) else (result,)):
        np.save(os.path.join(out, "%s_out_%d.npy" % (name, i)), y.numpy())
    print(path)


if __name__ == "__main__":
    out = sys.argv[1]
    for name in sys.argv[2:] or ["resnet18", "mobilenet_v3_small", "squeezenet1_0", "lraspp", "recurrent", "scripted", "bert"]:
        export(name, out)
