#!/usr/bin/env bash
# Times `wrapgen run` on one thread against THREADS (default 2) threads,
# same model, same inputs, the two alternating in every round, and prints
# per model the wall and process CPU time per call (min and median over
# all rounds) and the speed-up: one thread's wall minimum over THREADS'.
# ONNX Runtime (onnxruntime-node, as bench/compare.sh runs it) is timed in
# the same rounds, one thread against THREADS intra-op threads, so that
# its speed-up on the same machine at the same time is the bar.
# Run it on an otherwise idle machine: a thread that does not get its
# core makes the speed-up mean nothing.
#   bash bench/threads.sh [ROUNDS] [REPEAT]
# MODELS names bench/export.py models (default: resnet18 and bert_s128,
# the issue's pair); BATCH (default 4) is their batch. The models are
# exported into BENCH_DIR (default /tmp/wrapgen-bench-b$BATCH). ISA=avx2
# runs both sides' AVX2 kernels (bench/ort_setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
repeat=${2:-5}
threads=${THREADS:-2}
export BATCH=${BATCH:-4}
models=${MODELS:-resnet18 bert_s128}
dir=${BENCH_DIR:-/tmp/wrapgen-bench-b$BATCH}
mkdir -p "$dir"
go build -o "$dir/wrapgen" ./cmd/wrapgen
. bench/ort_setup.sh

cpu=$(cpuName)
echo "CPU: $cpu, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); kernels ${ISA:-native} ($ortkernels); batch $BATCH; $rounds rounds of $repeat calls per side"

stat() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {printf "%.2f %.2f", a[1], a[int((NR+1)/2)]}'; }
mins() { echo "$1" | tr ' ' '\n' | grep . | awk 'NR%2==1' | tr '\n' ' ' | stat | cut -d' ' -f1; }
meds() { echo "$1" | tr ' ' '\n' | grep . | awk 'NR%2==0' | tr '\n' ' ' | stat | cut -d' ' -f2; }
printf '\n| model | 1 thread wall min / median | %d threads wall min / median | speed-up (wall) | 1 thread CPU min / median | %d threads CPU min / median | ORT 1 thread wall min | ORT %d threads wall min | ORT speed-up |\n|---|---|---|---|---|---|---|---|---|\n' "$threads" "$threads" "$threads"
for m in $models; do
  [ -f "$dir/$m.onnx" ] || /usr/bin/python3 bench/export.py "$dir" "$m" >/dev/null 2>&1
  ins=(); for f in "$dir/${m}"_in_*.npy; do ins+=(-in "$f"); done
  "$dir/wrapgen" run -q -threads 1 -repeat 1 "${ins[@]}" -out "$dir/out_$m" "$dir/$m.onnx" >/dev/null
  /usr/bin/python3 bench/check.py "$dir" "$m" "$dir/out_$m" >&2
  w1=""; c1=""; wn=""; cn=""; o1=""; on=""
  for r in $(seq "$rounds"); do
    for t in 1 "$threads"; do
      o=$("$dir/wrapgen" run -q -threads "$t" -repeat "$repeat" "${ins[@]}" "$dir/$m.onnx")
      w=$(echo "$o" | sed -n 's/^time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')
      c=$(echo "$o" | sed -n 's/^process CPU time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')
      if [ "$t" = 1 ]; then w1="$w1 $w"; c1="$c1 $c"; else wn="$wn $w"; cn="$cn $c"; fi
      o=$(THREADS=$t NODE_PATH=$ortmodules node bench/ort.js "$dir/$m.onnx" "$repeat" "$dir/${m}"_in_*.npy)
      w=$(echo "$o" | sed -n 's/^time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')
      if [ "$t" = 1 ]; then o1="$o1 $w"; else on="$on $w"; fi
    done
  done
  printf '| %s | %s / %s ms | %s / %s ms | %.2f× | %s / %s ms | %s / %s ms | %s ms | %s ms | %.2f× |\n' "$m" \
    "$(mins "$w1")" "$(meds "$w1")" "$(mins "$wn")" "$(meds "$wn")" "$(echo "$(mins "$w1") / $(mins "$wn")" | bc -l)" \
    "$(mins "$c1")" "$(meds "$c1")" "$(mins "$cn")" "$(meds "$cn")" \
    "$(mins "$o1")" "$(mins "$on")" "$(echo "$(mins "$o1") / $(mins "$on")" | bc -l)"
done
