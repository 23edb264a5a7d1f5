#!/usr/bin/env bash
# Times `wrapgen plan` (whole process, default strategy) on the
# transformer-family models bench/planning_models.py exports, at their
# minimums and at serving-like hints, and prints how each plan holds across
# the range of sizes (peak over the lower bound at the sample points).
# Needs Debian's python3-torch.
#   bash bench/plantime.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=${BENCH_DIR:-/tmp/wrapgen-plantime}
mkdir -p "$dir"
[ -f "$dir/gpt.onnx" ] || /usr/bin/python3 bench/planning_models.py "$dir" >/dev/null 2>&1
go build -o "$dir/wrapgen" ./cmd/wrapgen
while read -r model hints; do
  args=(); for h in $hints; do args+=(-hint "$h"); done
  times=()
  for _ in $(seq "$runs"); do
    s=$(date +%s%N)
    "$dir/wrapgen" plan "${args[@]}" "$dir/$model.onnx" > "$dir/plan.txt"
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  ratio=$(sed -n 's/^peak \/ lower bound *//p' "$dir/plan.txt")
  range=$(sed -n 's/^across the range *//p' "$dir/plan.txt")
  echo "$model ${hints:-(minimums)}: plan min ${sorted[0]} ms, median ${sorted[$(( runs / 2 ))]} ms; peak/bound $ratio; across the range $range"
done <<'MODELS'
encdec
encdec batch=4 src_seq=32 tgt_seq=32
gpt
gpt batch=4 past=128 seq=32
MODELS
