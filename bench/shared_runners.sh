#!/usr/bin/env bash
# What 4 Runners of one model hold, prepared each (NewRunner with
# Options.Prepare: four copies of the packed weights) against sharing one
# PreparedParams (NewSharedRunner: one copy, four sets of pools): the live
# heap and resident memory after each Runner's first call, in a process of
# its own per mode. Generates the model's Go wrapper with the reference
# kernels into a module of its own (bench/sharedrunners/main.go.txt is its
# main).
#   bash bench/shared_runners.sh [MODEL]   # a bench/export.py model, default mobilenet_v2
set -euo pipefail
cd "$(dirname "$0")/.."
m=${1:-mobilenet_v2}
dir=${BENCH_DIR:-/tmp/wrapgen-bench}
mkdir -p "$dir"
[ -f "$dir/$m.onnx" ] || /usr/bin/python3 bench/export.py "$dir" "$m" >/dev/null 2>&1
go build -o "$dir/wrapgen" ./cmd/wrapgen
mod=$(mktemp -d)
trap 'rm -rf "$mod"' EXIT
mkdir -p "$mod/m" "$mod/cmd"
printf 'module example.com/shared\n\ngo 1.24\n' > "$mod/go.mod"
"$dir/wrapgen" import -q -o "$mod/graph.json" -weights "$mod/params.safetensors" "$dir/$m.onnx"
"$dir/wrapgen" gen -q -lang go -kernels ref -package m -o "$mod/m/m.go" "$mod/graph.json"
cp bench/sharedrunners/main.go.txt "$mod/cmd/main.go"
(cd "$mod" && GOWORK=off GOFLAGS= go build -o shared ./cmd)
ins=(); for f in "$dir/${m}"_in_*.npy; do ins+=("$f"); done
echo "model $m, 4 Runners, one thread each"
for mode in own shared; do MODE=$mode "$mod/shared" "$mod/params.safetensors" "${ins[@]}"; done
