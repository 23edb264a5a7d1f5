# Compares wrapgen's outputs with PyTorch's, as `bench/run.sh` leaves them:
#   python3 bench/check.py DIR MODEL OUTDIR
# Passes when max |diff| <= TOL * max(1, max |ref|) for every output; TOL
# is 1e-3 unless the environment sets it (an int8 model's ties round
# differently in PyTorch, ONNX Runtime and wrapgen: one quantum apart).
import os
import sys

import numpy as np

d, name, outdir = sys.argv[1:4]
ref = np.load("%s/%s_out_0.npy" % (d, name))
got = np.load("%s/output_0.npy" % outdir)
diff = float(np.abs(got.astype(np.float64) - ref).max())
bound = float(os.environ.get("TOL", "1e-3")) * max(1.0, float(np.abs(ref).max()))
rel = diff / max(float(np.abs(ref).max()), 1e-30)
print("%s: shape %s, max |diff| %.3g, max |ref| %.3g (relative %.2g), bound %.3g: %s"
      % (name, tuple(got.shape), diff, float(np.abs(ref).max()), rel, bound, "ok" if diff <= bound and got.shape == ref.shape else "FAIL"))
sys.exit(0 if diff <= bound and got.shape == ref.shape else 1)
