# Sourced by bench/compare.sh and bench/threads.sh: defines cpuName (at
# the end) and installs
# onnxruntime-node into bench/.ort (--ignore-scripts: its CPU library
# ships inside the package) and sets ortmodules (NODE_PATH for
# bench/ort.js) and ortkernels (which kernels MLAS takes) for ISA:
#   native (default)  both sides pick their kernels from CPUID;
#   avx2              both sides run their AVX2+FMA kernels on an AVX-512
#                     host: wrapgen under GODEBUG=cpu.avx512f=off, ONNX
#                     Runtime from a copy of its library in bench/.ort-avx2
#                     whose XGETBV reports no AVX-512 state
#                     (bench/ort_avx2.py). Only the vector width changes;
#                     the cores, caches and clock stay this machine's, so
#                     it stands in for an AVX2 machine, it does not
#                     replace one.
if [ ! -d bench/.ort/node_modules/onnxruntime-node ]; then
  npm install --silent --ignore-scripts --prefix bench/.ort onnxruntime-node >/dev/null
fi
ortmodules=bench/.ort/node_modules
ortkernels="MLAS picks its kernels from the same CPUID"
case ${ISA:-native} in
  native) ;;
  avx2)
    export GODEBUG=${GODEBUG:+$GODEBUG,}cpu.avx512f=off
    if [ ! -d bench/.ort-avx2/node_modules/onnxruntime-node ]; then
      python3 bench/ort_avx2.py bench/.ort/node_modules bench/.ort-avx2/node_modules
    fi
    ortmodules=bench/.ort-avx2/node_modules
    ortkernels="MLAS sees no AVX-512 state: AVX2 kernels";;
  *) echo "ISA is native or avx2, not $ISA" >&2; exit 2;;
esac

# cpuName: the CPU's model name, family, model and per-core caches, which
# tell its generation where the name does not (a VM's "AMD EPYC").
cpuName() {
  local name family model caches="" f
  name=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
  family=$(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -1)
  model=$(sed -n 's/^model\s*: //p' /proc/cpuinfo | head -1)
  for f in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ -r "$f/level" ] || continue
    [ "$(cat "$f/type")" = Instruction ] && continue
    caches="$caches L$(cat "$f/level") $(cat "$f/size"),"
  done
  echo "$name (family $family, model $model;${caches%,})"
}
