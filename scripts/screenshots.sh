#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the README screenshots: runs the GUI under Xvfb on the built-in data set; the app
# opens each page (the memory panel after Auto-fit under a 128 MiB budget, a short training run at
# the fitted settings, then a run that goes out of memory for the advisor, then three strategies
# of the default matrix on the Compare page) and saves
# docs/screenshots/{data,settings,train,runs,oom-advisor,compare}.png with QWidget::grab().
# Takes several minutes on a CPU. With `compare` only the Compare page's shot is made.
# The compared strategies fine-tune from the same weights (three epochs from random weights
# leave mAP at 0 for all of them): HEADROOM_TOUR_WEIGHTS=FILE names them, else headroom-cli
# first trains yolov8n on the built-in set at the tour's 128 px for HEADROOM_TOUR_PRETRAIN_EPOCHS
# epochs (default 40; about 10 minutes on 2 idle cores) and the tour starts from its best.pt.
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
weights=${HEADROOM_TOUR_WEIGHTS:-}
if [ -z "$weights" ]; then
    cli=$build/app/headroom-cli
    if [ ! -x "$cli" ]; then
        echo "no CLI at $cli: build it first, or give HEADROOM_TOUR_WEIGHTS=FILE" >&2
        exit 1
    fi
    # The tour's model and image size, the built-in set; nbs 16 gives a short run more
    # optimizer steps than Ultralytics' 64.
    "$cli" train model=yolov8n.yaml imgsz=128 batch=16 nbs=16 workers=2 \
        epochs="${HEADROOM_TOUR_PRETRAIN_EPOCHS:-40}" project="$work/pretrain" name=start
    weights=$work/pretrain/start/weights/best.pt
fi
xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" \
    "$app" --language en --screenshot-dir "$work/shots" --screenshot-weights "$weights" \
    "${only[@]}"
for shot in $shots; do
    if [ ! -s "$work/shots/$shot.png" ]; then
        echo "the tour did not produce $shot.png" >&2
        exit 1
    fi
done
cp "$work"/shots/*.png "$out"/
ls -l "$out"
