#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the README screenshots: runs the GUI under Xvfb on the built-in data set; the app
# opens each page (the memory panel after Auto-fit under a 128 MiB budget, a short training run at
# the fitted settings, then a run that goes out of memory for the advisor) and saves
# docs/screenshots/{data,settings,train,runs,oom-advisor}.png with QWidget::grab(). Takes a few
# minutes on a CPU.
#   scripts/screenshots.sh [BUILD_DIR]      (default: build/dev)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/dev}
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
    "$app" --language en --screenshot-dir "$work/shots"
for shot in data settings train runs oom-advisor; do
    if [ ! -s "$work/shots/$shot.png" ]; then
        echo "the tour did not produce $shot.png" >&2
        exit 1
    fi
done
cp "$work"/shots/*.png "$out"/
ls -l "$out"
