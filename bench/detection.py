# Exports torchvision's Faster R-CNN (MobileNetV3 320 FPN, random weights)
# and checks wrapgen's detections against PyTorch's:
#   python3 bench/detection.py export DIR     -> DIR/{detect,detect_none,detect_sizes}.onnx,
#                                                <name>_in_0.npy, <name>_out_<i>.npy,
#                                                <name>_candidates.npz, <name>_f64.npz
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
# Random weights leave scores nearly tied (the 20 kept span 5e-4 of their
# value), and which of two near-equal candidates survives a top-k or an NMS
# flips with the order of float sums (PyTorch's own float32 and float64
# runs keep different sets: 12 of 20 in common at 240x400). So the check
# matches detections as sets: each of PyTorch's to one of wrapgen's with
# the same label, its box (and keypoints) within 1e-3 of the image's
# longer side and its score within 1e-3, of PyTorch's float32 answer or of
# its float64 one (<data name>_f64.npz). A detection of either side left
# unmatched passes only as a tie (tie_reason), one of wrapgen's only if it
# is also among the detections the model gives whichever way its ties go
# (export writes them, <data name>_candidates.npz: see candidates), and
# the shapes and dtypes must be PyTorch's.
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


def candidates(m, x):
    """Every detection m can give for image x whichever way its near-ties
    go: its NMSes keep everything (IoU threshold 1), its top-k cuts before
    an NMS take twice as many, after one all; the keypoint head is left out
    (keypoints are compared on matched detections only)."""
    import copy

    import torch
    import torchvision

    m = copy.deepcopy(m)
    if isinstance(m, torchvision.models.detection.RetinaNet):
        m.nms_thresh, m.detections_per_img = 1.0, 10**9
        m.topk_candidates *= 2
    else:
        m.rpn.nms_thresh = 1.0
        m.rpn._pre_nms_top_n = {k: 2 * v for k, v in m.rpn._pre_nms_top_n.items()}
        m.rpn._post_nms_top_n = {k: 10**9 for k in m.rpn._post_nms_top_n}
        m.roi_heads.nms_thresh, m.roi_heads.detections_per_img = 1.0, 10**9
        m.roi_heads.keypoint_roi_pool = None
    with torch.no_grad():
        result = m([x])[0]
    return {k: result[k].numpy() for k in KEYS}


def export_model(out, name, make, keys, sizes, opset=17):
    """Exports make() (seeded) as out/name.onnx, with a dynamic height and
    width when sizes are given, and PyTorch's detections on random images:
    <data name>_in_0.npy, _out_<i>.npy in the model's output order, and
    _keys.txt naming the outputs when they are not KEYS; _candidates.npz
    (see candidates) and _f64.npz, its detections computed in float64."""
    import copy

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
        # With no detections wrapgen must give none (the shapes say so):
        # neither candidates nor float64 answers are looked at.
        exact = {k: v[:0] for k, v in result.items()}
        if len(result["scores"]):
            np.savez(os.path.join(out, data_name + "_candidates.npz"), **candidates(m, x))
            with torch.no_grad():
                exact = copy.deepcopy(m).double()([x.double()])[0]
        else:
            np.savez(os.path.join(out, data_name + "_candidates.npz"), **{k: result[k].numpy() for k in KEYS})
        np.savez(os.path.join(out, data_name + "_f64.npz"), **{k: exact[k].numpy() for k in keys})
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


# What the exports give every model: its detections per image and its
# final (per-label) NMS's IoU threshold.
MAX_DETECTIONS = 20
NMS_IOU = 0.5
# Scores within TIE of each other (relative) are tied. Measured at
# 240x400 (detect_sizes), where the sets differ: a row of anchors one
# stride apart (box IoU 0.70) whose scores agree to 2.5e-6, the highest
# of which PyTorch's RPN kept and wrapgen's did not, its objectness tied
# (450 proposals within 2e-3 of 0.5); the same box's score differs by at
# most 1.6e-7 between PyTorch's float32 and float64. At 480x360 a change
# of the kernels' summation order flipped another such RPN tie: wrapgen
# kept a detection (one the model gives, but not PyTorch's float32 or
# float64 run) scored 1.3e-5 above PyTorch's 20th, whose own 20th is
# absent from its float64 run. TIE is 1.5 times that gap, and 25 times
# below the spread of the 20 scores, so a detection whose score stands
# apart from its neighbours' must still match.
TIE = 2e-5


def iou(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(w, 0.0) * max(h, 0.0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def tie_reason(i, mine, other):
    """Why mine's detection i may be missing from other's, or "" if it may
    not: other's NMS kept a detection of the same label overlapping it
    beyond NMS_IOU (less 0.01: boxes are scaled back to the input image
    per axis, which moves an IoU slightly) whose score is at least i's less
    TIE, so it removed i in its favour, an order decided within rounding;
    or other returned MAX_DETECTIONS and i's score is within TIE above the
    lowest of them, so i fell at the top-k's cut."""
    s = float(mine["scores"][i])
    for j in range(len(other["scores"])):
        if other["labels"][j] == mine["labels"][i] and iou(mine["boxes"][i], other["boxes"][j]) > NMS_IOU - 0.01 \
                and float(other["scores"][j]) >= s * (1 - TIE):
            return "NMS tie with %.9g" % other["scores"][j]
    if len(other["scores"]) == MAX_DETECTIONS and s <= float(other["scores"].min()) * (1 + TIE):
        return "top-%d cut at %.9g" % (MAX_DETECTIONS, other["scores"].min())
    return ""


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
    exact = np.load("%s/%s_f64.npz" % (d, name))

    def difference(a, i, b, j):
        """(box, score) differences of a's detection i from b's j, boxes
        (and keypoints) relative to the side; None for another label."""
        if a["labels"][i] != b["labels"][j]:
            return None
        box = float(np.abs(a["boxes"][i] - b["boxes"][j]).max()) / side
        if "keypoints" in keys:
            box = max(box, float(np.abs(a["keypoints"][i] - b["keypoints"][j]).max()) / side)
        return box, abs(float(a["scores"][i]) - float(b["scores"][j]))

    def nearest(a, i, b, exclude=()):
        found = [(max(e), j, e) for j in range(len(b["scores"])) if j not in exclude
                 for e in [difference(a, i, b, j)] if e is not None]
        return min(found, default=None)

    # PyTorch's detection i matches wrapgen's j within 1e-3 of it, or of its
    # float64 counterpart (the float64 detection within 1e-3 of it): where
    # float32's rounding moves a box by more (an ill-conditioned one:
    # Keypoint R-CNN at 320x320, 0.30 px between PyTorch's float32 and
    # float64), wrapgen may be nearer the exact one.
    matched, worst_box, worst_score = {}, 0.0, 0.0
    for i in range(len(ref["scores"])):
        best = nearest(ref, i, got, matched.values())
        twin = nearest(ref, i, exact)
        if twin is not None and twin[0] <= 1e-3:
            other = nearest(exact, twin[1], got, matched.values())
            if other is not None and (best is None or best[0] > 1e-3) and other[0] <= 1e-3:
                best = other
        if best is not None and best[0] <= 1e-3:
            matched[i] = best[1]
            worst_box, worst_score = max(worst_box, best[2][0]), max(worst_score, best[2][1])
    # A detection of wrapgen's that PyTorch did not keep must still be one
    # the model gives (a tie can change which, never what, it keeps).
    cand = np.load("%s/%s_candidates.npz" % (d, name))

    def candidate(j):
        near = np.abs(cand["boxes"] - got["boxes"][j]).max(axis=1) / side
        near = np.maximum(near, np.abs(cand["scores"] - got["scores"][j]))
        return bool(((cand["labels"] == got["labels"][j]) & (near <= 1e-3)).any())

    ok, ties = True, 0
    for side_name, mine, other, unmatched in (
            ("PyTorch's", ref, got, [i for i in range(len(ref["scores"])) if i not in matched]),
            ("wrapgen's", got, ref, [j for j in range(len(got["scores"])) if j not in matched.values()])):
        for i in unmatched:
            what = "%s detection %d (label %d, score %.9g, box %s)" % (
                side_name, i, mine["labels"][i], mine["scores"][i], np.array2string(mine["boxes"][i], precision=2))
            why = tie_reason(i, mine, other)
            if mine is got and not candidate(i):
                ok = False
                print("  %s is no detection the model gives" % what)
            elif why:
                ties += 1
                print("  %s unmatched: %s" % (what, why))
            else:
                ok = False
                print("  %s unmatched, not a tie" % what)
    n = len(ref["scores"])
    print("%s: %d of %d detections match PyTorch's (largest difference: boxes%s %.2g px, %.2g of the side; scores %.2g), "
          "%d unmatched are ties: %s" % (name, len(matched), n, " and keypoints" if "keypoints" in keys else "", worst_box * side, worst_box, worst_score, ties, "ok" if ok else "FAIL"))
    return ok


if __name__ == "__main__":
    if sys.argv[1] in ("export", "export-all"):
        export(sys.argv[2], sys.argv[1] == "export-all")
    else:
        sys.exit(0 if check(*sys.argv[2:5]) else 1)
