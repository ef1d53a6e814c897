#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the README screenshots: runs the GUI under Xvfb on the built-in data set; the app
# opens each page (the memory panel after Auto-fit under a 128 MiB budget, a short training run at
# the fitted settings, then a run that goes out of memory for the advisor, then three strategies
# of the default matrix on the Compare page) and saves
# docs/screenshots/{data,settings,train,runs,oom-advisor,compare}.png with QWidget::grab().
# Takes several minutes on a CPU. With `compare` only the Compare page's shot is made.
#   scripts/screenshots.sh [BUILD_DIR] [compare]      (default: build/dev, every shot)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/dev}
shots="data settings train runs oom-advisor compare"
only=()
if [ "${2:-}" = compare ]; then
    shots=compare
    only=(--screenshot-only compare)
fi
app=$build/app/headroom
out=$here/docs/screenshots
if [ ! -x "$app" ]; then
    echo "no GUI at $app: build it first (cmake --build $build --target headroom)" >&2
    exit 1
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A private settings folder and English text, so that the user's own settings do not leak in.
export XDG_CONFIG_HOME=$work/config
export LANGUAGE=en LC_ALL=C.UTF-8
export HEADROOM_RESOURCES=${HEADROOM_RESOURCES:-$here/resources}
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
    "$app" --language en --screenshot-dir "$work/shots" "${only[@]}"
for shot in $shots; do
    if [ ! -s "$work/shots/$shot.png" ]; then
        echo "the tour did not produce $shot.png" >&2
        exit 1
    fi
done
cp "$work"/shots/*.png "$out"/
ls -l "$out"
