# Exports the small CNN of this example with its weights inside, and records
# its output for a fixed input. Run with Debian's python3 and torch 1.13:
#   /usr/bin/python3 export.py
import json
import torch

torch.manual_seed(0)


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = self.pool(torch.relu(self.conv2(x)))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


model = SmallCNN().eval()
x = torch.arange(2 * 1 * 16 * 16, dtype=torch.float32).reshape(2, 1, 16, 16) / 512.0 - 0.5
torch.onnx.export(model, x, "cnn.onnx", input_names=["image"], output_names=["probs"],
                  dynamic_axes={"image": {0: "batch"}, "probs": {0: "batch"}}, opset_version=17)
with open("expected.json", "w") as f:
    json.dump({"input": "arange(2*1*16*16)/512 - 0.5", "shape": [2, 10],
               "probs": [float(v) for v in model(x).detach().reshape(-1)]}, f, indent=1)
