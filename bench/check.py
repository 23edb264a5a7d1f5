# Compares wrapgen's outputs with PyTorch's, as `bench/compare.sh` leaves
# them (DIR/MODEL_out_<i>.npy against OUTDIR/output_<i>.npy, every output
# bench/export.py saved):
#   python3 bench/check.py DIR MODEL OUTDIR
# Passes when max |diff| <= TOL * max(1, max |ref|) for every output; TOL
# is 1e-3 unless the environment sets it (an int8 model's ties round
# differently in PyTorch, ONNX Runtime and wrapgen: one quantum apart).
import os
import sys

import numpy as np

d, name, outdir = sys.argv[1:4]
tol = float(os.environ.get("TOL", "1e-3"))
ok = True
i = 0
while os.path.exists("%s/%s_out_%d.npy" % (d, name, i)):
    ref = np.load("%s/%s_out_%d.npy" % (d, name, i))
    got = np.load("%s/output_%d.npy" % (outdir, i))
    top = float(np.abs(ref).max()) if ref.size else 0.0
    diff = float(np.abs(got.astype(np.float64) - ref).max()) if got.shape == ref.shape and ref.size else 0.0
    bound = tol * max(1.0, top)
    good = diff <= bound and got.shape == ref.shape
    ok = ok and good
    print("%s output %d: shape %s (PyTorch %s), max |diff| %.3g, max |ref| %.3g (relative %.2g), bound %.3g: %s"
          % (name, i, tuple(got.shape), tuple(ref.shape), diff, top, diff / max(top, 1e-30), bound,
             "ok" if good else "FAIL"))
    i += 1
if i == 0:
    print("%s: no reference outputs %s/%s_out_<i>.npy" % (name, d, name))
sys.exit(0 if ok and i > 0 else 1)
