#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's two commands:
#   scripts/quickstart.sh demo   install what is missing, build, run the OOM-rescue demo
#   scripts/quickstart.sh test   install what is missing, build with warnings as errors, run all tests
# Extra arguments after "demo" are passed to `headroom-cli train` (key=value settings).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

mode=${1:-}
[ $# -gt 0 ] && shift
jobs=$(nproc 2>/dev/null || echo 2)

case "$mode" in
demo)
    bash packaging/install-deps.sh
    cmake --preset release
    cmake --build --preset release -j "$jobs"
    cli=build/release/app/headroom-cli
    echo
    echo "== Headroom demo: yolov8n on the built-in data set, on a CPU that behaves like a small GPU =="
    echo "   The default settings need more memory than the budget; watch the advisor rescue the run."
    echo
    exec "$cli" train --model yolov8n.yaml imgsz=320 batch=16 epochs=30 \
        memory_budget="${HEADROOM_DEMO_BUDGET:-384MiB}" on_oom=auto name=demo "$@"
    ;;
test)
    bash packaging/install-deps.sh
    cmake --preset ci
    cmake --build --preset ci -j "$jobs"
    ctest --preset ci -j 1
    ;;
*)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
