# Exports torchvision's Faster R-CNN (MobileNetV3 320 FPN, random weights)
# and checks wrapgen's detections against PyTorch's:
#   python3 bench/detection.py export DIR     -> DIR/{detect,detect_none,detect_sizes}.onnx,
#                                                <name>_in_0.npy, <name>_out_<i>.npy
#   python3 bench/detection.py export-all DIR -> also DIR/{retinanet,keypoint}.onnx (resnet50 FPN,
#                                                dynamic height and width), data at three sizes
#   python3 bench/detection.py check DIR NAME OUTDIR
# "detect" keeps every score (threshold 0, top 20) so that detections come
# out; "detect_none" keeps torchvision's threshold, which random weights
# never pass, so its NMS sees no boxes (the If on boxes.numel() == 0).
# Both are exported at a fixed 320x320 image. "detect_sizes" is "detect"
# exported with a dynamic height and width (its Resize to
# floor(h * min(320 / min(h, w), 640 / max(h, w))) imports with run-time
# sizes: give wrapgen -max height=N -max width=N), with data at several
# sizes, named detect_sizes_<h>x<w>.
# torchvision 0.14 exports roi_align (aligned=False) as a RoiAlign without
# coordinate_transformation_mode, which from opset 16 on defaults to
# half_pixel, torchvision's aligned=True (ONNX Runtime and wrapgen then
# agree with each other, not with PyTorch: every pooled feature differs):
# the opset-17 exports get output_half_pixel written in
# (roi_align_as_pytorch); keypoint is exported at opset 15, where that is
# the default.
# Random weights leave scores nearly tied, and which of two near-equal
# proposals survives a top-k or an NMS flips with the order of float sums,
# so the check matches detections as sets: each of PyTorch's to one of
# wrapgen's with the same label, its box (and keypoints) within 1e-3 of
# the image's longer side and its score within 1e-3; at least 80% must
# match (17 of 20 did when this was written), and the shapes and dtypes
# must be PyTorch's.
import os
import sys

import numpy as np

KEYS = ["boxes", "labels", "scores"]


SIZES = ((320, 320), (240, 400), (480, 360))
# RetinaNet and Keypoint R-CNN resize to min 320, max 512 here; at 240x400
# eager PyTorch sizes the image 307x511 (its scale in float64) where the
# exported graph computes 307x512 (float32): sizes that agree instead.
OTHER_SIZES = ((320, 320), (300, 420), (360, 280))


def randomized(m):
    """m in eval mode with statistics in its batch norms: freshly
    initialized ones are the identity, and features (and scores) would
    hardly differ."""
    import torch
    import torchvision

    m = m.eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, (torch.nn.BatchNorm2d, torchvision.ops.FrozenBatchNorm2d)):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
    return m


def roi_align_as_pytorch(path):
    """Gives path's RoiAlign nodes coordinate_transformation_mode
    output_half_pixel: torchvision 0.14 exports roi_align as opset 10's
    RoiAlign, whose only mode was output_half_pixel (torchvision's
    aligned=False, what the detection heads use), and leaves the mode out;
    from opset 16 on a missing mode means half_pixel (aligned=True), which
    samples every bin half a feature cell away from PyTorch's."""
    import onnx

    def fix(graph):
        for node in graph.node:
            if node.op_type == "RoiAlign" and not any(a.name == "coordinate_transformation_mode" for a in node.attribute):
                node.attribute.append(onnx.helper.make_attribute("coordinate_transformation_mode", "output_half_pixel"))
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    fix(a.g)

    m = onnx.load(path)
    fix(m.graph)
    onnx.save(m, path)


def export_model(out, name, make, keys, sizes, opset=17):
    """Exports make() (seeded) as out/name.onnx, with a dynamic height and
    width when sizes are given, and PyTorch's detections on random images:
    <data name>_in_0.npy, _out_<i>.npy in the model's output order, and
    _keys.txt naming the outputs when they are not KEYS."""
    import torch

    torch.manual_seed(0)
    m = randomized(make())
    x = torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(1))
    path = os.path.join(out, name + ".onnx")
    dynamic = {"image": {1: "height", 2: "width"}} if sizes else None
    torch.onnx.export(m, ([x],), path, input_names=["image"], output_names=keys, opset_version=opset,
                      dynamic_axes=dynamic)
    if opset >= 16:
        roi_align_as_pytorch(path)
    data = [(name, x)]
    if sizes:
        data = [("%s_%dx%d" % (name, h, w), torch.rand(3, h, w, generator=torch.Generator().manual_seed(1 + k)))
                for k, (h, w) in enumerate(sizes)]
    for data_name, x in data:
        with torch.no_grad():
            result = m([x])[0]
        np.save(os.path.join(out, data_name + "_in_0.npy"), x.numpy())
        for i, k in enumerate(keys):
            np.save(os.path.join(out, "%s_out_%d.npy" % (data_name, i)), result[k].numpy())
        if keys != KEYS:
            with open(os.path.join(out, data_name + "_keys.txt"), "w") as f:
                f.write(",".join(keys))
        print(path, data_name, "detections:", len(result["scores"]))


def export(out, everything=False):
    import warnings

    import torchvision

    warnings.filterwarnings("ignore")
    os.makedirs(out, exist_ok=True)
    detection = torchvision.models.detection
    for name, thresh in (("detect", 0.0), ("detect_none", 0.05), ("detect_sizes", 0.0)):
        export_model(out, name, lambda: detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, box_score_thresh=thresh, box_detections_per_img=20),
            KEYS, SIZES if name == "detect_sizes" else None)
    if not everything:
        return
    export_model(out, "retinanet", lambda: detection.retinanet_resnet50_fpn(
        weights=None, weights_backbone=None, min_size=320, max_size=512, score_thresh=0.0, detections_per_img=20),
        ["boxes", "scores", "labels"], OTHER_SIZES)
    export_model(out, "keypoint", lambda: detection.keypointrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, min_size=320, max_size=512, box_score_thresh=0.0,
        box_detections_per_img=20), ["boxes", "labels", "scores", "keypoints", "keypoints_scores"], OTHER_SIZES,
        opset=15)


def check(d, name, outdir):
    keys = KEYS
    if os.path.exists("%s/%s_keys.txt" % (d, name)):
        with open("%s/%s_keys.txt" % (d, name)) as f:
            keys = f.read().split(",")
    ref = {k: np.load("%s/%s_out_%d.npy" % (d, name, i)) for i, k in enumerate(keys)}
    got = {k: np.load("%s/output_%d.npy" % (outdir, i)) for i, k in enumerate(keys)}
    for k in keys:
        if ref[k].shape != got[k].shape or ref[k].dtype != got[k].dtype:
            print("%s: %s is %s %s, PyTorch's %s %s: FAIL" % (name, k, got[k].dtype, got[k].shape, ref[k].dtype, ref[k].shape))
            return False
    # Box differences are relative to the image's longer side.
    side = max(np.load("%s/%s_in_0.npy" % (d, name)).shape[1:])
    used, worst = set(), 0.0
    for i in range(len(ref["scores"])):
        best = None
        for j in range(len(got["scores"])):
            if j in used or got["labels"][j] != ref["labels"][i]:
                continue
            e = max(float(np.abs(got["boxes"][j] - ref["boxes"][i]).max()) / side, abs(float(got["scores"][j] - ref["scores"][i])))
            if "keypoints" in keys:
                e = max(e, float(np.abs(got["keypoints"][j] - ref["keypoints"][i]).max()) / side)
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
    if sys.argv[1] in ("export", "export-all"):
        export(sys.argv[2], sys.argv[1] == "export-all")
    else:
        sys.exit(0 if check(*sys.argv[2:5]) else 1)
