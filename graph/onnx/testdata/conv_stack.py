# Exports conv_stack.onnx: wav2vec2's feature extractor shape (7 convolutions
# over raw samples, random weights), whose sizes need samples >= 400:
#   /usr/bin/python3 conv_stack.py
import torch
torch.manual_seed(0)
class FE(torch.nn.Module):
    """wav2vec2's feature extractor: 7 convolutions over raw samples."""
    def __init__(self):
        super().__init__()
        specs = [(10, 5)] + [(3, 2)] * 4 + [(2, 2)] * 2
        layers, ch = [], 1
        for k, s in specs:
            layers += [torch.nn.Conv1d(ch, 32, k, s, bias=False), torch.nn.GELU()]
            ch = 32
        self.net = torch.nn.Sequential(*layers)
    def forward(self, x):
        return self.net(x.unsqueeze(1)).transpose(1, 2)
m = FE().eval()
x = torch.randn(2, 16000)
torch.onnx.export(m, (x,), "conv_stack.onnx", input_names=["audio"], output_names=["features"],
  dynamic_axes={"audio": {0: "batch", 1: "samples"}, "features": {0: "batch", 1: "frames"}}, opset_version=17)


