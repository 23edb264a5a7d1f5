#!/usr/bin/env bash
# Times `wrapgen run` against ONNX Runtime's CPU provider (onnxruntime-node,
# graph optimizations at level all), same models, same inputs, same
# machine, the two sides alternating in every round; checks wrapgen's
# outputs against PyTorch's first. Prints the CPU and its vector features,
# which GEMM kernel wrapgen ran, then per model the process CPU time and
# the wall time per call (min and median over all rounds) and the ratios
# of the minima, and the geometric mean of the CPU-time ratios.
#   bash bench/compare.sh [ROUNDS] [REPEAT]
# MODELS names bench/export.py models or the groups cnn (the torchvision
# CNNs) and seq (issue 34's transformer, recurrent and speech models);
# default both. REPEAT (calls per side per round) is by default chosen per
# model from a first timed run, about 0.4 s of calls, 3 to 50; THREADS
# (default 1) is both sides' intra-op threads; BATCH (default 1) the image
# models' batch. Needs Debian's python3-torch, python3-torchaudio and
# python3-torchvision (to export the models), node and npm
# (onnxruntime-node is installed into bench/.ort, see bench/ort_setup.sh).
# ISA=avx2 times both sides' AVX2+FMA kernels on an AVX-512 host (see
# bench/ort_setup.sh). KERNELS=cpp times wrapgen's C++ kernels as a C++
# user runs them: the generated wrapper (`gen -lang cpp -kernels ref
# -main`), its NAME_main runner built with $CXX (default g++) -O2, the
# kernels compiled once for all models; KERNELS=cpp-run times them through
# `wrapgen run -lang cpp` (the kernels' own time in its kernel server,
# which gets every tensor through a pipe, so outputs start cold in cache
# where a wrapper's pools are warm: slower than the wrapper).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
repeat_arg=${2:-auto}
threads=${THREADS:-1}
lang=${KERNELS:-go}
export BATCH=${BATCH:-1}
cnn="resnet18 resnet50 mobilenet_v2 mobilenet_v3_small squeezenet1_0 efficientnet_b0 qdq_resnet18"
seq="bert bert_s128 tiny_bert vit encdec kv_decoder recurrent gru_lm lstm_lm wav2vec2 conformer convtasnet"
models=""
for m in ${MODELS:-cnn seq}; do
  case $m in cnn) models="$models $cnn";; seq) models="$models $seq";; *) models="$models $m";; esac
done
dir=${BENCH_DIR:-/tmp/wrapgen-bench}
mkdir -p "$dir"
. bench/ort_setup.sh
ortver=$(node -p "require('./bench/.ort/node_modules/onnxruntime-node/package.json').version")
go build -o "$dir/wrapgen" ./cmd/wrapgen
case $lang in
  go | cpp | cpp-run) ;;
  *) echo "KERNELS is go, cpp or cpp-run, not $lang" >&2; exit 2;;
esac
cxx=${CXX:-g++}
cppflags=(-std=c++17 -O2 -pthread)

# cppBuild MODEL: the generated C++ wrapper of MODEL and its runner, in
# $dir/cpp/MODEL (params in params.safetensors), linked with the kernels'
# objects, which the first model compiles into $dir/cpp/wgref-HASH (every
# wrapper vendors the same kernels; HASH is their sources' and the
# compiler's, so changed kernels are compiled again).
cppBuild() {
  local m=$1 out=$dir/cpp/$1
  rm -rf "$out" && mkdir -p "$out"
  "$dir/wrapgen" import -q -o "$out/graph.json" -weights "$out/params.safetensors" "$dir/$m.onnx"
  "$dir/wrapgen" gen -q -lang cpp -kernels ref -main -package "$m" -o "$out/gen" "$out/graph.json"
  local objs
  objs=$dir/cpp/wgref-$( (cat "$out/gen/wgref/"* "$out/gen/wrapgen_runtime.h"; "$cxx" --version; echo "${cppflags[*]}") | sha256sum | cut -c1-16)
  if [ ! -f "$objs/done" ]; then
    rm -rf "$objs" && mkdir -p "$objs"
    ls "$out/gen/wgref/"*.cc | xargs -P "$(nproc)" -I{} sh -c \
      'f={}; exec "$0" "$@" -I "$(dirname "$f")/.." -c "$f" -o "'"$objs"'/$(basename "$f" .cc).o"' "$cxx" "${cppflags[@]}"
    touch "$objs/done"
  fi
  "$cxx" "${cppflags[@]}" -I "$out/gen" -o "$out/main" "$out/gen/${m}_main.cc" "$out/gen/$m.cc" \
    "$out/gen/wrapgen_runtime.cc" "$objs/"*.o
}

# side REPEAT: one timed run of wrapgen's side, printing run's "time per
# call" and "process CPU time per call" lines, the outputs in $dir/out_$m.
side() {
  if [ "$lang" = cpp ]; then
    "$dir/cpp/$m/main" -params "$dir/cpp/$m/params.safetensors" "${ins[@]}" -repeat "$1" -threads "$threads" -out "$dir/out_$m" |
      sed -n 's/^[0-9]* calls: wall min \([0-9.]*\) ms, median \([0-9.]*\) ms; cpu min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/time per call: min \1 ms, median \2 ms\nprocess CPU time per call: min \3 ms, median \4 ms/p'
  else
    "$dir/wrapgen" run -q -lang "${lang%-run}" -threads "$threads" -repeat "$1" "${ins[@]}" -out "$dir/out_$m" "$dir/$m.onnx"
  fi
}

cpu=$(cpuName)
features=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'avx|avx2|fma|avx512f|avx512bw|avx512vl|avx512_vnni|avx_vnni|avx512_bf16' | tr '\n' ' ')
echo "CPU: $cpu, $(nproc) cores; vector features: $features"
echo "$("$dir/wrapgen" version | paste -sd ';' -); ONNX Runtime $ortver ($ortkernels)"
echo "kernels: $lang, ${ISA:-native}; threads: $threads; image batch: $BATCH; $rounds rounds of ${repeat_arg/auto/0.4 s of} calls per side"

# stat LIST: "min median" of a list of numbers.
stat() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {printf "%.2f %.2f", a[1], a[int((NR+1)/2)]}'; }
ratios=()
printf '\n| model | calls | wrapgen CPU min / median | ORT CPU min / median | CPU ratio | wrapgen wall min / median | ORT wall min / median | wall ratio |\n|---|---|---|---|---|---|---|---|\n'
for m in $models; do
  [ -f "$dir/$m.onnx" ] || /usr/bin/python3 bench/export.py "$dir" "$m" >/dev/null 2>&1
  ins=(); for f in "$dir/${m}"_in_*.npy; do ins+=(-in "$f"); done
  if [ "$lang" = cpp ]; then cppBuild "$m"; fi
  first=$(side 2)
  repeat=$repeat_arg
  if [ "$repeat" = auto ]; then
    ms=$(echo "$first" | sed -n 's/^time per call: min \([0-9.]*\) ms.*/\1/p')
    repeat=$(awk -v ms="$ms" 'BEGIN {n = int(400 / ms); print (n < 3 ? 3 : (n > 50 ? 50 : n))}')
  fi
  tol=1e-3; case $m in qdq_*) tol=5e-3;; esac
  TOL=$tol /usr/bin/python3 bench/check.py "$dir" "$m" "$dir/out_$m" >&2
  wcpu=""; wwall=""; ocpu=""; owall=""
  for r in $(seq "$rounds"); do
    w=$(side "$repeat")
    o=$(THREADS=$threads NODE_PATH=$ortmodules node bench/ort.js "$dir/$m.onnx" "$repeat" "$dir/${m}"_in_*.npy)
    wwall="$wwall $(echo "$w" | sed -n 's/^time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')"
    wcpu="$wcpu $(echo "$w" | sed -n 's/^process CPU time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')"
    owall="$owall $(echo "$o" | sed -n 's/^time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')"
    ocpu="$ocpu $(echo "$o" | sed -n 's/^process CPU time per call: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1 \2/p')"
  done
  # Each round gives a min and a median; the overall min is the least of
  # the mins, the median the median of the rounds' medians.
  mins() { echo "$1" | tr ' ' '\n' | grep . | awk 'NR%2==1' | tr '\n' ' ' | stat | cut -d' ' -f1; }
  meds() { echo "$1" | tr ' ' '\n' | grep . | awk 'NR%2==0' | tr '\n' ' ' | stat | cut -d' ' -f2; }
  wc_min=$(mins "$wcpu"); oc_min=$(mins "$ocpu"); ww_min=$(mins "$wwall"); ow_min=$(mins "$owall")
  cr=$(echo "$wc_min / $oc_min" | bc -l); wr=$(echo "$ww_min / $ow_min" | bc -l)
  ratios+=("$cr")
  printf '| %s | %d | %s / %s ms | %s / %s ms | %.2f× | %s / %s ms | %s / %s ms | %.2f× |\n' "$m" "$repeat" \
    "$wc_min" "$(meds "$wcpu")" "$oc_min" "$(meds "$ocpu")" "$cr" \
    "$ww_min" "$(meds "$wwall")" "$ow_min" "$(meds "$owall")" "$wr"
done
printf '\ngeomean of the CPU-time ratios over %d models: %.2f×\n' "${#ratios[@]}" \
  "$(printf '%s\n' "${ratios[@]}" | awk '{s+=log($1)} END {print exp(s/NR)}')"
