#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What a user with the wrong LibTorch or no Qt is told: one sentence from the README's command
# (scripts/quickstart.sh) or CMake, never a wall of CMake errors. Fake LibTorch packages stand in
# for an old release and an old-ABI wheel; Qt is hidden with CMAKE_DISABLE_FIND_PACKAGE_Qt6.
#   configure_refusals.sh SOURCE_DIR WORK_DIR
set -uo pipefail
src=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
failures=0
passes=0
check() { # name, expected text, output
    if grep -qF -- "$2" <<<"$3"; then
        echo "PASS: $1"
        passes=$((passes + 1))
    else
        echo "FAIL: $1: expected '$2' in:"
        echo "$3" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}
fake_torch() { # folder, version, C++ flags
    mkdir -p "$1"
    printf 'set(TORCH_FOUND TRUE)\nset(TORCH_CXX_FLAGS "%s")\nset(TORCH_LIBRARIES "")\n' "$3" \
        >"$1/TorchConfig.cmake"
    printf 'set(PACKAGE_VERSION "%s")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' "$2" \
        >"$1/TorchConfigVersion.cmake"
}

fake_torch "$work/old/share/cmake/Torch" 1.12.1 "-D_GLIBCXX_USE_CXX11_ABI=1"
fake_torch "$work/abi0/share/cmake/Torch" 2.5.1 "-D_GLIBCXX_USE_CXX11_ABI=0"
fake_torch "$work/three/share/cmake/Torch" 3.0.0 "-D_GLIBCXX_USE_CXX11_ABI=1"

# Through CMake: the sentence, and nothing from inside TorchConfig.cmake or Qt's files.
out=$(cmake -S "$src" -B "$work/b-old" -G Ninja -DTorch_DIR="$work/old/share/cmake/Torch" 2>&1)
check "LibTorch too old" "found LibTorch 1.12.1 (CPU) from $work/old/share/cmake/Torch, but Headroom builds against LibTorch 1.13 to 2.x" "$out"
out=$(cmake -S "$src" -B "$work/b-three" -G Ninja -DTorch_DIR="$work/three/share/cmake/Torch" 2>&1)
check "LibTorch too new" "found LibTorch 3.0.0 (CPU)" "$out"
out=$(cmake -S "$src" -B "$work/b-noqt" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON 2>&1)
check "no Qt" "Headroom: Qt 6.2 or later (Widgets, PrintSupport, Test, LinguistTools) not found." "$out"
out=$(cmake -S "$src" -B "$work/b-noqt-headless" -G Ninja -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON \
    -DHEADROOM_HEADLESS_WITHOUT_QT=ON 2>&1)
check "no Qt, headless wanted" "Headroom: no Qt 6 found: building headless" "$out"

# Through the README's command: one line naming what was found and the fix, exit code 1.
export HEADROOM_BUILD_DIR=$work/quickstart
out=$(cd "$src" && Torch_DIR="$work/abi0" bash scripts/quickstart.sh test 2>&1)
code=$?
check "old ABI: one sentence" "quickstart: Headroom: found LibTorch 2.5.1 (CPU) from $work/abi0/share/cmake/Torch, built with the old C++ ABI (_GLIBCXX_USE_CXX11_ABI=0), which cannot link with this system's C++ libraries; use PyTorch 2.7 or later, or the LibTorch archive marked cxx11 ABI." "$out"
check "old ABI: the log is named" "its whole output is in" "$out"
[ $code -eq 1 ] || {
    echo "FAIL: quickstart exited $code, not 1"
    failures=$((failures + 1))
}
if grep -q "Call Stack\|CMake Error" <<<"$out"; then
    echo "FAIL: CMake's own error text reached the user:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
fi
out=$(cd "$src" && Torch_DIR="$work/nothing-here" bash scripts/quickstart.sh test 2>&1)
check "Torch_DIR without LibTorch" "quickstart: Torch_DIR=$work/nothing-here holds no TorchConfig.cmake" "$out"

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
