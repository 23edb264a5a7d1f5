# Makes small PyTorch models whose sizes ONNX computes from data or from
# shapes in ways the importer must reason about, laid out as ONNX node
# tests (model.onnx, test_data_set_<k>/input_<i>.pb, output_<i>.pb), one
# data set per input size, the expected outputs PyTorch's:
#   /usr/bin/python3 make.py   (Debian's python3 with torch 1.13, torchaudio)
import os
import shutil
import warnings

import numpy as np
import torch
import torchaudio
from onnx import numpy_helper

warnings.filterwarnings("ignore")


def save(name, model, example, input_names, dynamic_axes, data_sets, opset=14, outputs=("y",)):
    shutil.rmtree(name, ignore_errors=True)
    os.makedirs(name)
    torch.onnx.export(model, example, os.path.join(name, "model.onnx"), input_names=input_names,
                      output_names=list(outputs), dynamic_axes=dynamic_axes, opset_version=opset)
    for k, inputs in enumerate(data_sets):
        d = os.path.join(name, "test_data_set_%d" % k)
        os.makedirs(d)
        with torch.no_grad():
            out = model(*inputs)
        if not isinstance(out, tuple):
            out = (out,)
        for kind, arrays in (("input", inputs), ("output", out)):
            for i, a in enumerate(arrays):
                with open(os.path.join(d, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(numpy_helper.from_array(a.numpy()).SerializeToString())


def convtasnet():
    """torchaudio's Conv-TasNet pads its input to a multiple of the stride
    and slices the padding off with y[..., :-(8 - n % 8)]: a slice end
    always in [-8, -1], counted from the end. (At a multiple of 8 the
    traced graph pads 8 zeros that eager PyTorch does not, and its global
    layer norm sees them: the sizes here are not multiples of 8.)"""
    torch.manual_seed(0)
    m = torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=16, msk_kernel_size=3,
                                     msk_num_feats=8, msk_num_hidden_feats=16, msk_num_layers=2,
                                     msk_num_stacks=1).eval()
    sets = [(torch.randn(1, 1, n),) for n in (100, 123, 161)]
    save("convtasnet", m, (torch.randn(1, 1, 100),), ["x"], {"x": {2: "samples"}}, sets)


def conformer():
    """torchaudio's Conformer with its padding mask built as
    torch.arange(torch.max(lengths)) (as exported models do when the
    length is not taken out with .item(), which traces to a constant):
    Range's limit comes from data; the mask is reshaped to the key's
    frames, so its length is the frames."""
    import torchaudio.models.conformer as conformer_module

    def lengths_to_padding_mask(lengths):
        maxlen = torch.max(lengths)
        return torch.arange(maxlen, device=lengths.device, dtype=lengths.dtype).expand(lengths.shape[0], maxlen) >= lengths.unsqueeze(1)

    conformer_module._lengths_to_padding_mask = lengths_to_padding_mask
    torch.manual_seed(0)
    m = torchaudio.models.Conformer(input_dim=8, num_heads=2, ffn_dim=16, num_layers=1, depthwise_conv_kernel_size=3).eval()
    sets = [(torch.randn(2, t, 8), torch.tensor(lengths)) for t, lengths in ((9, [9, 6]), (13, [4, 13]))]
    save("conformer", m, sets[0], ["x", "lengths"], {"x": {0: "batch", 1: "frames"}, "lengths": {0: "batch"}}, sets,
         outputs=["y", "lengths_out"])


class Interpolate(torch.nn.Module):
    def __init__(self, recompute):
        super().__init__()
        self.recompute = recompute

    def forward(self, x):
        return torch.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear", recompute_scale_factor=self.recompute)


def interpolate():
    """interpolate(scale_factor=1.5) over a dynamic height and width: with
    recompute_scale_factor the output size is floor(float(h) * 1.5),
    computed in float32 from the shape and given to Resize as sizes."""
    torch.manual_seed(0)
    sets = [(torch.randn(1, 2, h, w),) for h, w in ((5, 6), (7, 7), (11, 4))]
    for recompute in (False, True):
        save("interpolate_recompute" if recompute else "interpolate", Interpolate(recompute), sets[0], ["x"],
             {"x": {2: "h", 3: "w"}}, sets, opset=13)


class DetectionTransform(torch.nn.Module):
    """torchvision's GeneralizedRCNNTransform (min_size 24, max_size 40),
    the detection models' preprocessing, on one image."""

    def __init__(self):
        super().__init__()
        import torchvision
        self.t = torchvision.models.detection.transform.GeneralizedRCNNTransform(
            24, 40, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])

    def forward(self, x):
        return self.t([x])[0].tensors


def detect_transform():
    """GeneralizedRCNNTransform resizes the image to
    floor(h * min(24 / min(h, w), 40 / max(h, w))) computed in float32 (a
    Resize whose sizes no integer expression folds: run-time sizes), then
    pads it to a multiple of 32; four sizes, both sides longest in turn."""
    torch.manual_seed(0)
    sets = [(torch.rand(3, h, w),) for h, w in ((20, 30), (32, 32), (40, 17), (13, 50))]
    save("detect_transform", DetectionTransform(), sets[0], ["image"], {"image": {1: "height", 2: "width"}}, sets,
         opset=17)


convtasnet()
conformer()
interpolate()
detect_transform()
