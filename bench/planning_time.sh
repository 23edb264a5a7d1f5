#!/usr/bin/env bash
# Times planning, whole process: `wrapgen plan` (the one
# plan over the whole symbol range) with default options, on every graph in
# graph/testdata and ../shared (graphs/ and onnx/), the bench exports
# (bench/export.py, bench/planning_models.py) and synthetic transformers of
# 10,000 and 100,000 ops whose one symbol (batch, hint 8, min 1) has no max.
# Prints per model the wall time (min and median of RUNS), the process CPU
# time (user + sys, min), the peak RSS (max) and the longest pool size
# expression (characters), then the growth in wall time from 10k to 100k
# ops.
# With CHECK=1, fails unless every model plans in <= 1 s, the 10k graph in
# <= 1 s, the 100k graph in <= 3 s, growth <= 12x and RSS <= 1 GB: by the
# minimum wall time (the least disturbed run), or with MEASURE=cpu by the
# process CPU time, which other load on a shared machine disturbs less.
# KERNELS=ref plans as gen -kernels ref and run do (ONNX models only).
# Needs Debian's python3-torch for the exports (skipped without it).
#   [CHECK=1] [MEASURE=cpu] [KERNELS=ref] [MODELS_DIR=dir] bash bench/planning_time.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
check=${CHECK:-0}
dir=${MODELS_DIR:-/tmp/wrapgen-planning}
mkdir -p "$dir"
go build -o "$dir/wrapgen" ./cmd/wrapgen
wg="$dir/wrapgen"

if [ ! -f "$dir/gpt.onnx" ] && /usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1; then
  /usr/bin/python3 bench/planning_models.py "$dir" >/dev/null 2>&1
  /usr/bin/python3 bench/export.py "$dir" resnet18 mobilenet_v3_small squeezenet1_0 lraspp recurrent scripted bert bert_s128 \
    encoder gru_lm deepspeech qdq_resnet18 >/dev/null 2>&1
fi
for n in 10000 100000; do
  f="$dir/synth_unbounded_$n.json"
  [ -f "$f" ] || go run ./.ci/synthgraph transformer $n |
    python3 -c 'import json, sys; g = json.load(sys.stdin); g["symbols"] = {"batch": {"hint": 8, "min": 1}}; json.dump(g, sys.stdout)' >"$f"
done

models=(graph/testdata/*.json ../shared/graphs/*.json ../shared/onnx/*.onnx)
for f in "$dir"/*.onnx; do [ -f "$f" ] && models+=("$f"); done
models+=("$dir/synth_unbounded_10000.json" "$dir/synth_unbounded_100000.json")

failed=0
# over VALUE LIMIT WHAT: note (and with CHECK=1, fail on) a figure above its limit.
over() {
  if python3 -c "import sys; sys.exit(0 if $1 > $2 else 1)"; then
    echo "  $name: $3 $1 is above $2" >&2
    failed=1
  fi
}
printf '%-28s %9s %9s %9s %9s %9s\n' model min-s med-s cpu-s rss-MB expr-len
wall10k="" wall100k=""
for f in "${models[@]}"; do
  name=$(basename "$f")
  args=(plan -json)
  [ "${KERNELS:-}" = ref ] && [ "${f%.onnx}" != "$f" ] && args+=(-kernels ref)
  walls=() cpus=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" "$wg" "${args[@]}" "$f" >"$dir/report.txt"
    read -r wall user sys kb <"$dir/time.txt"
    walls+=("$wall")
    cpus+=("$(python3 -c "print('%.2f' % ($user + $sys))")")
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  len=$(python3 -c 'import json, sys; print(max([len(p.get("size_expr", "")) for p in json.load(open(sys.argv[1]))["pools"]] + [0]))' "$dir/report.txt")
  read -r min med cpu <<<"$(python3 -c "import statistics as s, sys; w = sorted(map(float, sys.argv[1].split())); c = min(map(float, sys.argv[2].split()))
print('%.2f %.2f %.2f' % (w[0], s.median(w), c))" "${walls[*]}" "${cpus[*]}")"
  printf '%-28s %9s %9s %9s %9d %9d\n' "$name" "$min" "$med" "$cpu" $((rss / 1024)) "$len"
  t=$min what="wall s"
  [ "${MEASURE:-wall}" = cpu ] && t=$cpu what="CPU s"
  case "$name" in
  synth_unbounded_10000.json) wall10k=$t; over "$t" 1 "$what" ;;
  synth_unbounded_100000.json) wall100k=$t; over "$t" 3 "$what" ;;
  *) over "$t" 1 "$what" ;;
  esac
  over $((rss / 1024)) 1024 "RSS MB"
done
growth=$(python3 -c "print('%.1f' % ($wall100k / max($wall10k, 0.01)))")
echo "growth 10k -> 100k ops: ${growth}x (${MEASURE:-wall})"
name=synth; over "$growth" 12 "growth"
if [ "$check" = 1 ] && [ "$failed" = 1 ]; then
  echo "planning time: limits exceeded" >&2
  exit 1
fi
