#!/usr/bin/env bash
# Times `wrapgen plan -buckets 8` (whole process) on encdec and gpt (bench/
# planning_models.py, at serving-like hints) and tiny_bert (its default
# hints), and prints the size buckets' figures: bucket count, the worst and
# geomean peak / lower bound over every bucket's sample points, and the
# ratio at the hints (the graph's where -hint gives none), in the bucket
# the wrapper picks there. With GRID=1, also the
# worst ratio on the grid of each sequence symbol in {1, 8, 32, 128} and
# batch in {1, 4}, each point in the bucket the wrapper picks (plan -at).
# With CHECK=1, fails unless every model meets the planner's targets:
# worst <= 1.10 (and on the grid), geomean <= 1.03, at the hints <= 1.02.
# Needs Debian's python3-torch for the exports.
#   [GRID=1] [CHECK=1] bash bench/buckets.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=${BENCH_DIR:-/tmp/wrapgen-buckets}
mkdir -p "$dir"
[ -f "$dir/gpt.onnx" ] || /usr/bin/python3 bench/planning_models.py "$dir" >/dev/null 2>&1
go build -o "$dir/wrapgen" ./cmd/wrapgen
bert=$(cd ../shared/onnx && pwd)/tiny_bert.onnx
grid=${GRID:-0}
check=${CHECK:-0}
failed=0
# over VALUE LIMIT WHAT: note (and with CHECK=1, fail on) a figure above its target.
over() {
  if python3 -c "import sys; sys.exit(0 if $1 > $2 else 1)"; then
    echo "  $model: $3 $1 is above $2" >&2
    failed=1
  fi
}
printf '%-10s %7s %8s %8s %8s %8s %8s' model buckets worst geomean at-hints min-ms med-ms
[ "$grid" = 1 ] && printf ' %16s' grid-worst
echo
while read -r model file hints; do
  args=(); for h in $hints; do args+=(-hint "$h"); done
  times=()
  for _ in $(seq "$runs"); do
    s=$(date +%s%N)
    "$dir/wrapgen" plan -json -buckets 8 "${args[@]}" "$file" > "$dir/buckets.json"
    times+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -n))
  # The hints (the graph's where not given) and the ratio there, in the
  # bucket the wrapper picks.
  hintat=$("$dir/wrapgen" plan -json -buckets 1 "${args[@]}" "$file" | python3 -c 'import json, sys; print(" ".join("-at %s=%d" % kv for kv in json.load(sys.stdin)["hints"].items()))')
  athint=$("$dir/wrapgen" plan -json -buckets 8 "${args[@]}" $hintat "$file" | python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["peak_over_load"])')
  figures=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
b = p.get("buckets")
if b:
    print(len(b["buckets"]), "%.4f" % b["range_worst"], "%.4f" % b["range_geomean"])
else:  # one plan: no buckets made
    print(1, "%.4f" % p["range_worst"], "%.4f" % p["range_geomean"])
' "$dir/buckets.json")
  read -r n worst geo <<<"$figures"
  hint=$athint
  printf '%-10s %7s %8s %8s %8s %8s %8s' "$model" "$n" "$worst" "$geo" "$hint" "${sorted[0]}" "${sorted[$(( runs / 2 ))]}"
  if [ "$grid" = 1 ]; then
    syms=$("$dir/wrapgen" plan -json -buckets 1 "${args[@]}" "$file" | python3 -c 'import json, sys; print(" ".join(json.load(sys.stdin)["hints"]))')
    worstg=0; at=
    points=("")
    for s in $syms; do
      vals="1 8 32 128"; [ "$s" = batch ] && vals="1 4"
      next=(); for p in "${points[@]}"; do for v in $vals; do next+=("$p -at $s=$v"); done; done
      points=("${next[@]}")
    done
    for p in "${points[@]}"; do
      r=$("$dir/wrapgen" plan -json -buckets 8 "${args[@]}" $p "$file" | python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["peak_over_load"])')
      if python3 -c "import sys; sys.exit(0 if $r > $worstg else 1)"; then worstg=$r; at=$p; fi
    done
    printf ' %8s at%s' "$worstg" "${at// -at / }"
  fi
  echo
  over "$worst" 1.10 "worst peak / lower bound"
  over "$geo" 1.03 "geomean"
  over "$hint" 1.02 "peak / lower bound at the hints"
  if [ "$grid" = 1 ]; then over "$worstg" 1.10 "worst on the grid"; fi
done <<MODELS
encdec $dir/encdec.onnx batch=4 src_seq=32 tgt_seq=32
gpt $dir/gpt.onnx batch=4 past=128 seq=32
tiny_bert $bert
MODELS
if [ "$check" = 1 ] && [ "$failed" = 1 ]; then
  exit 1
fi
