# SPDX-License-Identifier: GPL-3.0-or-later
"""Puts an extracted Ultralytics source tree on sys.path and makes it run offline.

Import this before anything from `ultralytics`. The source tree comes from
ULTRALYTICS_SRC (a folder that holds the `ultralytics` package); see README.md for how it is
extracted. Nothing of Ultralytics is kept in this repository.
"""
import os
import sys
import tempfile

SRC = os.environ.get("ULTRALYTICS_SRC", "/tmp/learn_ref/u8378")
THREADS = int(os.environ.get("THREADS", "2"))

os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
os.environ["YOLO_OFFLINE"] = "true"  # is_online() answers False: no telemetry, no downloads
os.environ["YOLO_AUTOINSTALL"] = "false"  # check_requirements() never runs pip
if "YOLO_CONFIG_DIR" not in os.environ:
    cfg = os.path.join(tempfile.gettempdir(), "headroom-ultralytics-config")
    os.makedirs(cfg, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = cfg

if not os.path.isdir(os.path.join(SRC, "ultralytics")):
    sys.exit(f"ULTRALYTICS_SRC={SRC} holds no ultralytics/ package; see tools/reference/learn/README.md")
sys.path.insert(0, SRC)

import torch  # noqa: E402

torch.set_num_threads(THREADS)

import ultralytics  # noqa: E402
import ultralytics.utils.checks as _checks  # noqa: E402

# Fonts are only fetched for plots; every harness run passes plots=False, this is a backstop.
_checks.check_font = lambda *a, **k: None
_checks.check_pip_update_available = lambda *a, **k: False

VERSION = ultralytics.__version__
