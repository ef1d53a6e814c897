#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's two commands:
#   scripts/quickstart.sh demo   install what is missing, build, run the OOM-rescue demo
#   scripts/quickstart.sh test   install what is missing, build with warnings as errors, run all tests
# Extra arguments after "demo" are passed to `headroom-cli train` (key=value settings).
#
# Which LibTorch: Torch_DIR when it is set (a LibTorch archive, or any folder with
# TorchConfig.cmake); else python3's torch package when it has CUDA (a GPU machine's own);
# else Debian's libtorch-dev. With a LibTorch of its own a machine without Qt builds headless.
# HEADROOM_BUILD_DIR builds elsewhere than build/<preset>.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

mode=${1:-}
[ $# -gt 0 ] && shift
jobs=$(nproc 2>/dev/null || echo 2)
say() { echo "quickstart: $*"; }

case "$mode" in
demo) preset=release ;;
test) preset=ci ;;
*)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac

# Sets torch_dir (empty: Debian's) and torch_from.
find_torch() {
    torch_dir=""
    torch_from="Debian's libtorch-dev"
    if [ -n "${Torch_DIR:-}" ]; then
        torch_dir=$Torch_DIR
        [ -f "$torch_dir/TorchConfig.cmake" ] || torch_dir=$Torch_DIR/share/cmake/Torch
        if [ ! -f "$torch_dir/TorchConfig.cmake" ]; then
            say "Torch_DIR=$Torch_DIR holds no TorchConfig.cmake; set it to the LibTorch" \
                "archive's folder (the one with share/cmake/Torch) or unset it." >&2
            exit 1
        fi
        torch_from="Torch_DIR"
        return
    fi
    local cuda_prefix
    if command -v python3 >/dev/null 2>&1 &&
        cuda_prefix=$(python3 -c 'import torch, sys
sys.exit(0 if torch.version.cuda else 1)
' 2>/dev/null && python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
        torch_dir=$cuda_prefix/Torch
        torch_from="python3's torch package"
    fi
}

# Runs CMake's configure step; on failure prints Headroom's own sentence (cmake/*.cmake) rather
# than CMake's call stack, and names the log.
configure() {
    local log=$1
    shift
    mkdir -p "$(dirname "$log")"
    if cmake "$@" >"$log" 2>&1; then
        grep -E '^-- Headroom: (LibTorch|no Qt)' "$log" | sed 's/^-- /quickstart: /' || true
        return 0
    fi
    local sentence
    sentence=$(awk '/^CMake Error/ {grab = 1; next} grab && (/^[[:space:]]*$/ || /^Call Stack/) {exit} grab {sub(/^ +/, ""); printf "%s ", $0}' "$log")
    case "$sentence" in
    Headroom:*) echo "quickstart: ${sentence% }" >&2 ;;
    *) tail -n 30 "$log" >&2 ;;
    esac
    say "the configure step failed; its whole output is in $log" >&2
    exit 1
}

find_torch
if [ -z "$torch_dir" ]; then
    bash packaging/install-deps.sh
    build=${HEADROOM_BUILD_DIR:-build/$preset}
    configure "$build/configure.log" --preset "$preset"
else
    say "using the LibTorch of $torch_from: $torch_dir"
    if command -v dpkg-query >/dev/null 2>&1; then
        bash packaging/install-deps.sh --no-torch
    else
        say "not a Debian system: install CMake, Ninja, OpenCV, yaml-cpp, nlohmann-json and" \
            "(for the studio) Qt 6 with your package manager; CMake names what is missing."
    fi
    # A CUDA LibTorch's CMake files look for the CUDA toolkit (nvcc).
    [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
    build=${HEADROOM_BUILD_DIR:-build/$preset-own-torch}
    configure "$build/configure.log" --preset "$preset" -B "$build" -DTorch_DIR="$torch_dir" \
        -DHEADROOM_HEADLESS_WITHOUT_QT=ON
fi
cmake --build "$build" -j "$jobs"

if [ "$mode" = test ]; then
    exec ctest --preset ci --test-dir "$build" -j 1
fi
cli=$build/app/headroom-cli
echo
echo "== Headroom demo: yolov8n on the built-in data set, on a CPU that behaves like a small GPU =="
echo "   The default settings need more memory than the budget; watch the advisor rescue the run."
echo
exec "$cli" train --model yolov8n.yaml imgsz=320 batch=16 epochs=30 \
    memory_budget="${HEADROOM_DEMO_BUDGET:-384MiB}" on_oom=auto name=demo "$@"
