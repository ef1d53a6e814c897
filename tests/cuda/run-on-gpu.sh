#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The one script a session with the GPU machine runs (docs/gpu.md): builds Headroom headless
# against the torch package's CUDA LibTorch, runs every section of headroom-gpu-check and the
# PyTorch eager reference, prints one summary and writes docs/gpu.md-ready lines.
#
#   bash tests/cuda/run-on-gpu.sh [all|build|test] [--cpu]
#
# On the device (run from the repository root, with `carry: [".gpu"]`, prepared here first by
# scripts/gpu/prepare-carry.sh): `all` (the default) builds, then tests within a time guard
# that ends every section before one device command's 10 minutes; `build` and `test` split the
# two over two commands on a warm machine. --cpu is the dry run on a machine without a GPU:
# the same script against Debian's CPU LibTorch with Qt hidden, the sections at toy sizes.
#
# Output, in $OUT (the device tool brings it back) or /tmp/headroom-gpu-out: gpu-check.log (all
# output), gpu-results.md (the lines for docs/gpu.md) and build.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
started=$(date +%s)
budget=${HEADROOM_GPU_SECONDS:-570} # one device command may run 600 s

stage=all
mode=cuda
for arg in "$@"; do
    case "$arg" in
    all | build | test) stage=$arg ;;
    --cpu) mode=cpu ;;
    *)
        echo "usage: $0 [all|build|test] [--cpu]" >&2
        exit 2
        ;;
    esac
done

out=${OUT:-/tmp/headroom-gpu-out}
mkdir -p "$out"
log=$out/gpu-check.log
results=$out/gpu-results.md
prefix=$root/.gpu/prefix
build=${HEADROOM_GPU_BUILD:-$root/build/gpu-$mode} # the dry run may reuse a ci build folder
work=/tmp/headroom-gpu-work
left() { echo $((budget - ($(date +%s) - started))); }
say() { echo "$*" | tee -a "$log"; }

[ "$stage" = test ] || : >"$log"

# --- the machine ---------------------------------------------------------------------------
if [ "$mode" = cuda ]; then
    [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
    export TORCH_CUDA_ARCH_LIST=9.0 # Caffe2's CMake would otherwise probe the GPU for it
    torch_facts=$(python3 -c 'import torch; print(torch.__version__, torch.version.cuda,
torch.utils.cmake_prefix_path)') || {
        say "FAIL: python3 cannot import torch"
        exit 1
    }
    read -r torch_version cuda_version torch_cmake <<<"$torch_facts"
    gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)
    say "machine: $gpu; torch $torch_version (CUDA $cuda_version); $(nvcc --version 2>/dev/null |
        tail -1); $(c++ --version | head -1); glibc $(ldd --version | head -1 | awk '{print $NF}')"
    [ -d "$prefix/lib" ] || {
        say "FAIL: $prefix is missing: run scripts/gpu/prepare-carry.sh here and carry .gpu"
        exit 1
    }
    # Carried libraries the machine lacks, by soname; the ones it has stay its own.
    libs=/tmp/headroom-libs
    mkdir -p "$libs"
    for f in "$prefix"/lib/*.so.*; do
        n=$(basename "$f")
        ldconfig -p | grep -q "^[[:space:]]$n " || ln -sf "$f" "$libs/$n"
    done
    export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    cmake_prefix="$torch_cmake;$prefix"
    torch_include=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')
    extra_flags=""
    [ -d "$torch_include/gloo" ] || extra_flags="-isystem $prefix/gloo-include"
    device_args=(--device cuda)
else
    torch_version=$(awk '/define TORCH_VERSION_(MAJOR|MINOR|PATCH)/ {v = v (v ? "." : "") $3}
        END {print v}' /usr/include/torch/csrc/api/include/torch/version.h)
    gpu="none (CPU dry run)"
    say "machine: CPU dry run, Debian LibTorch $torch_version"
    cmake_prefix=""
    extra_flags=""
    [ -d "$prefix/lib" ] && export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    device_args=(--device cpu)
fi

# --- build ---------------------------------------------------------------------------------
if [ "$stage" != test ]; then
    # The device finds OpenCV and yaml-cpp in the carried prefix. The dry run compiles against
    # Debian's own (the flags of the ci preset, so ccache answers from a ci build) and loads
    # the carried libraries at run time instead.
    mode_args=(-DHEADROOM_WERROR=ON)
    [ "$mode" = cuda ] && mode_args=(-DHEADROOM_WERROR=OFF -DOpenCV_DIR="$prefix/lib/cmake/OpenCV"
        -Dyaml-cpp_DIR="$prefix/lib/cmake/yaml-cpp")
    t0=$(date +%s)
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
        -DHEADROOM_HEADLESS=ON -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON \
        -DCMAKE_PREFIX_PATH="$cmake_prefix" "${mode_args[@]}" \
        -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_CUDA_ARCH_LIST=9.0 \
        -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$prefix/lib" >"$out/build.log" 2>&1 || {
        tail -40 "$out/build.log" | tee -a "$log"
        say "FAIL: configure (build.log)"
        exit 1
    }
    grep -E "Headroom:|CUDA|Torch" "$out/build.log" | head -8 | tee -a "$log"
    jobs=$(nproc)
    [ "$mode" = cpu ] && jobs=2
    # Only what the checks need, the CLI too: it proves the whole command line builds.
    timeout $(($(left) - 20)) cmake --build "$build" -j "$jobs" \
        --target headroom-gpu-check headroom-cli -- -k 0 >>"$out/build.log" 2>&1
    rc=$?
    warnings=$(grep -c "warning:" "$out/build.log")
    if [ $rc -ne 0 ]; then
        grep -E "error|FAILED" "$out/build.log" | head -60 | tee -a "$log"
        say "FAIL: build (exit $rc after $(($(date +%s) - t0)) s; build.log)"
        exit 1
    fi
    say "PASS: headless build of headroom-gpu-check and headroom-cli in $(($(date +%s) - t0)) s" \
        "($warnings compiler warnings)"
fi
[ "$stage" = build ] && exit 0

# --- checks --------------------------------------------------------------------------------
check=$build/tests/cuda/headroom-gpu-check
[ -x "$check" ] || {
    say "FAIL: $check is missing: run the build stage first"
    exit 1
}
export HEADROOM_RESOURCES=$root/resources
rm -rf "$work"
mkdir -p "$work"

# section NAME SECONDS ARGS...: runs one headroom-gpu-check process, or says why not.
section() {
    local name=$1 want=$2
    shift 2
    local have=$(($(left) - 10))
    if [ "$have" -lt 30 ]; then
        say "FAIL: $name not run: the time guard ($budget s) is spent"
        return
    fi
    [ "$mode" = cpu ] && want=$((want * 5)) # a shared CPU is far slower than the GPU
    [ "$want" -gt "$have" ] && want=$have
    timeout "$want" "$check" "${device_args[@]}" --work "$work" "$@" 2>&1 | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    [ "$rc" = 124 ] && say "FAIL: $name stopped after $want s"
}

section "probe, smoke" 120 probe smoke
if [ "$mode" = cuda ]; then
    say "== eager PyTorch reference (tests/cuda/eager_reference.py)"
    timeout 150 python3 tests/cuda/eager_reference.py --batch 16 --steps 10 \
        yolov8n yolov8s >"$out/eager.txt" 2>>"$log"
    cat "$out/eager.txt" | tee -a "$log"
    section speed 120 --reference "$out/eager.txt" speed
else
    section speed 120 speed
fi
section oom 240 oom
section fit 180 fit
section estimate 300 estimate

# --- summary -------------------------------------------------------------------------------
passed=$(grep -c "^PASS:" "$log")
failed=$(grep -c "^FAIL:" "$log")
{
    echo "<!-- run-on-gpu.sh $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null) -->"
    echo "- Device: $gpu"
    echo "- LibTorch: $torch_version${cuda_version:+ (CUDA $cuda_version)}"
    echo "- Checks: $passed passed, $failed failed"
    echo
    sed -n 's/^RECORD: //p' "$log"
} >"$results"
echo
echo "==================== summary ===================="
cat "$results"
echo
grep "^FAIL:" "$log" || true
echo "took $(($(date +%s) - started)) s; log: $log; docs lines: $results"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
