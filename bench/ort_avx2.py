"""Copies onnxruntime-node's CPU library so that it runs its AVX2 kernels.

ONNX Runtime's MLAS (and the cpuinfo library beside it) choose AVX-512
kernels when CPUID reports AVX-512 and XGETBV says the OS saves the
AVX-512 registers. On an AVX-512 host there is no switch to turn that
off, and a VM without CPUID faulting cannot hide the feature. So this
rewrites every XGETBV instruction of the copy into `push 7; pop rax`
(3 bytes, the same length): the OS then appears to save x87, SSE and AVX
state only, and every check that needs the AVX-512 state (XCR0 bits 5-7)
fails, while AVX2 and FMA, which CPUID reports, stay on.

    python3 bench/ort_avx2.py SRC_NODE_MODULES DST_NODE_MODULES

The instructions are found with objdump (binutils), not by a byte search:
the same three bytes occur inside other instructions and in data.
"""
import pathlib
import shutil
import subprocess
import sys

XGETBV = b"\x0f\x01\xd0"
PUSH7_POPRAX = b"\x6a\x07\x58"


def text_file_offset(lib, vaddr):
    """The file offset of a virtual address inside an executable segment."""
    out = subprocess.run(["readelf", "-lW", str(lib)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "LOAD" and "E" in f[6:-1]:
            off, va, size = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if va <= vaddr < va + size:
                return vaddr - va + off
    raise SystemExit(f"{lib}: address {vaddr:#x} is in no executable segment")


def patch(lib):
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)],
                         capture_output=True, text=True, check=True).stdout
    addrs = [int(l.split(":")[0], 16) for l in dis.splitlines() if l.rstrip().endswith("\txgetbv")]
    if not addrs:
        raise SystemExit(f"{lib}: no xgetbv instruction found")
    data = bytearray(lib.read_bytes())
    for a in addrs:
        off = text_file_offset(lib, a)
        if data[off:off + 3] != XGETBV:
            raise SystemExit(f"{lib}: {a:#x} is not an xgetbv")
        data[off:off + 3] = PUSH7_POPRAX
    tmp = lib.with_name(lib.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(lib)
    return len(addrs)


def main():
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    libs = list(dst.glob("onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so*"))
    if not libs:
        raise SystemExit(f"{dst}: no linux/x64 libonnxruntime.so")
    for lib in libs:
        if lib.is_symlink():
            continue
        print(f"{lib}: {patch(lib)} xgetbv instructions rewritten", file=sys.stderr)


if __name__ == "__main__":
    main()
