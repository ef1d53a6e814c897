#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds and runs the CUDA smoke test on a machine with PyTorch's CUDA LibTorch and nvcc.
# yaml-cpp is taken from $YAML_CPP_PREFIX when set (headers + lib carried from Debian).
set -euo pipefail
cd "$(dirname "$0")/../.."
torch_cmake=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
prefix="$torch_cmake"
if [ -n "${YAML_CPP_PREFIX:-}" ]; then prefix="$prefix;$YAML_CPP_PREFIX"; fi
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
cmake -S tests/cuda -B /tmp/build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/cuda-cmake.log 2>&1 \
    || { tail -40 /tmp/cuda-cmake.log; exit 1; }
cmake --build /tmp/build-cuda -j "$(nproc)" -- -k 0 2>&1 | grep -E "error|FAILED" | head -80 || true
test -x /tmp/build-cuda/cuda_smoke || { echo "build failed"; exit 1; }
/tmp/build-cuda/cuda_smoke
