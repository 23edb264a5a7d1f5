# Exports torchvision's Faster R-CNN (MobileNetV3 320 FPN, random weights)
# and checks wrapgen's detections against PyTorch's:
#   python3 bench/detection.py export DIR     -> DIR/{detect,detect_none}.onnx,
#                                                _in_0.npy, _out_<i>.npy
#   python3 bench/detection.py check DIR NAME OUTDIR
# "detect" keeps every score (threshold 0, top 20) so that detections come
# out; "detect_none" keeps torchvision's threshold, which random weights
# never pass, so its NMS sees no boxes (the If on boxes.numel() == 0).
# Random weights leave scores nearly tied, and which of two near-equal
# proposals survives a top-k or an NMS flips with the order of float sums,
# so the check matches detections as sets: each of PyTorch's to one of
# wrapgen's with the same label, its box within 1e-3 of the image size and
# its score within 1e-3; at least 80% must match (17 of 20 did when this
# was written), and the shapes and dtypes must be PyTorch's.
import os
import sys

import numpy as np

KEYS = ["boxes", "labels", "scores"]


def export(out):
    import warnings

    import torch
    import torchvision

    warnings.filterwarnings("ignore")
    os.makedirs(out, exist_ok=True)
    for name, thresh in (("detect", 0.0), ("detect_none", 0.05)):
        torch.manual_seed(0)
        m = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, box_score_thresh=thresh, box_detections_per_img=20).eval()
        # Freshly initialized batch norms are the identity; give them
        # statistics so that features (and scores) differ.
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, (torch.nn.BatchNorm2d, torchvision.ops.FrozenBatchNorm2d)):
                    mod.running_mean.uniform_(-0.1, 0.1)
                    mod.running_var.uniform_(0.5, 1.5)
        x = torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(1))
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(m, ([x],), path, input_names=["image"], output_names=KEYS, opset_version=17)
        with torch.no_grad():
            result = m([x])[0]
        np.save(os.path.join(out, name + "_in_0.npy"), x.numpy())
        for i, k in enumerate(KEYS):
            np.save(os.path.join(out, "%s_out_%d.npy" % (name, i)), result[k].numpy())
        print(path, "detections:", len(result["scores"]))


def check(d, name, outdir):
    ref = {k: np.load("%s/%s_out_%d.npy" % (d, name, i)) for i, k in enumerate(KEYS)}
    got = {k: np.load("%s/output_%d.npy" % (outdir, i)) for i, k in enumerate(KEYS)}
    for k in KEYS:
        if ref[k].shape != got[k].shape or ref[k].dtype != got[k].dtype:
            print("%s: %s is %s %s, PyTorch's %s %s: FAIL" % (name, k, got[k].dtype, got[k].shape, ref[k].dtype, ref[k].shape))
            return False
    used, worst = set(), 0.0
    for i in range(len(ref["scores"])):
        best = None
        for j in range(len(got["scores"])):
            if j in used or got["labels"][j] != ref["labels"][i]:
                continue
            e = max(float(np.abs(got["boxes"][j] - ref["boxes"][i]).max()) / 320, abs(float(got["scores"][j] - ref["scores"][i])))
            if best is None or e < best[0]:
                best = (e, j)
        if best is not None and best[0] <= 1e-3:
            used.add(best[1])
            worst = max(worst, best[0])
    n = len(ref["scores"])
    ok = len(used) >= 0.8 * n
    print("%s: %d of %d detections match PyTorch's (worst difference %.2g): %s" % (name, len(used), n, worst, "ok" if ok else "FAIL"))
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2])
    else:
        sys.exit(0 if check(*sys.argv[2:5]) else 1)
