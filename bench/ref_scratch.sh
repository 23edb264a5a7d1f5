#!/usr/bin/env bash
# Pools' peak with the reference kernels' scratch (`plan -kernels ref`)
# against the peak without it, per model and size: what choosing wrapgen's
# kernels costs in activation memory. Models: graph/testdata, ../shared's
# graphs and ONNX exports, and the ONNX files given as arguments; models
# with a seq axis are planned at seq 1 and seq 128 as well.
#   bash bench/ref_scratch.sh [MODEL.onnx ...]
# With CHECK=1 it fails when a ratio exceeds 1.05.
set -euo pipefail
cd "$(dirname "$0")/.."
wg=${WRAPGEN:-$(mktemp -d)/wrapgen}
[ -x "$wg" ] || go build -o "$wg" ./cmd/wrapgen
peak() { "$wg" plan -json "$@" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["peak_bytes"])'; }
worst=0
printf '| model | sizes | peak | peak with -kernels ref | ratio |\n|---|---|---|---|---|\n'
for m in graph/testdata/*.json ../shared/graphs/*.json ../shared/onnx/*.onnx "$@"; do
  [ -f "$m" ] || continue
  sizes=("")
  if "$wg" plan "$m" 2>/dev/null | grep -q '\bseq\b'; then sizes+=("-at seq=1" "-at seq=128"); fi
  for at in "${sizes[@]}"; do
    # shellcheck disable=SC2086 # $at is empty or one -at option
    a=$(peak $at "$m"); b=$(peak -kernels ref $at "$m")
    r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
    printf '| %s | %s | %d | %d | %s |\n' "$(basename "$m")" "${at:-default}" "$a" "$b" "$r"
    worst=$(awk -v w="$worst" -v r="$r" 'BEGIN {print (r > w ? r : w)}')
  done
done
echo "worst ratio: $worst"
if [ "${CHECK:-}" = 1 ] && awk -v w="$worst" 'BEGIN {exit !(w > 1.05)}'; then
  echo "FAIL: the reference kernels' scratch raises a peak more than 1.05x" >&2
  exit 1
fi
