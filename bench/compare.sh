#!/usr/bin/env bash
# Times `wrapgen run -threads 1` against ONNX Runtime's CPU provider with one
# thread, on resnet18 (batch 2) and a BERT-style encoder (batch 2, sequence
# 24), same models, same inputs, same machine, alternating runs; checks that
# wrapgen's outputs match PyTorch's first. Needs Debian's python3-torch and
# python3-torchvision (to export the models), node and npm (onnxruntime-node
# is installed into bench/.ort with --ignore-scripts: its CPU library ships
# inside the package).
#   bash bench/compare.sh [ROUNDS] [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
repeat=${2:-10}
dir=${BENCH_DIR:-/tmp/wrapgen-bench}
mkdir -p "$dir"
if [ ! -d bench/.ort/node_modules/onnxruntime-node ]; then
  npm install --silent --ignore-scripts --prefix bench/.ort onnxruntime-node >/dev/null
fi
[ -f "$dir/bert.onnx" ] || /usr/bin/python3 bench/export.py "$dir" resnet18 bert >/dev/null
go build -o "$dir/wrapgen" ./cmd/wrapgen
for m in resnet18 bert; do
  ins=(); for f in "$dir/${m}"_in_*.npy; do ins+=(-in "$f"); done
  "$dir/wrapgen" run -q "${ins[@]}" -out "$dir/out_$m" "$dir/$m.onnx"
  /usr/bin/python3 bench/check.py "$dir" "$m" "$dir/out_$m"
  for r in $(seq "$rounds"); do
    w=$("$dir/wrapgen" run -threads 1 -repeat "$repeat" "${ins[@]}" -out "$dir/out_$m" -q "$dir/$m.onnx" | sed -n 's/^time per call: \(min [0-9.]* ms, median [0-9.]* ms\).*/\1/p')
    o=$(NODE_PATH=bench/.ort/node_modules node bench/ort.js "$dir/$m.onnx" "$repeat" "$dir/${m}"_in_*.npy)
    wmin=$(echo "$w" | sed 's/min \([0-9.]*\) ms.*/\1/'); omin=$(echo "$o" | sed 's/min \([0-9.]*\) ms.*/\1/')
    wmed=$(echo "$w" | sed 's/.*median \([0-9.]*\) ms/\1/'); omed=$(echo "$o" | sed 's/.*median \([0-9.]*\) ms/\1/')
    printf '%s round %d: wrapgen %s; onnxruntime %s; ratio of minima %.2f, of medians %.2f\n' "$m" "$r" "$w" "$o" \
      "$(echo "$wmin / $omin" | bc -l)" "$(echo "$wmed / $omed" | bc -l)"
  done
done
