#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trains and validates with Ultralytics' own trainer, offline, for comparing against Headroom.

    OMP_NUM_THREADS=2 YOLO_CONFIG_DIR=/tmp/Ultralytics /usr/bin/python3 \\
        tools/reference/train_ultralytics.py --ultralytics /tmp/u84 --data DIR/data.yaml \\
        --model yolov8n.yaml --epochs 10 --imgsz 160 --project /tmp/ul
    ... --val-only runs/.../best.pt   # only Ultralytics' val mAP of a weights file

Prints one line "ultralytics val: mAP50=... mAP50-95=..." per validation.
"""
import argparse
import os
import sys

os.environ.setdefault("YOLO_OFFLINE", "True")
os.environ.setdefault("YOLO_AUTOINSTALL", "False")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ultralytics", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--model", default="yolov8n.yaml")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--imgsz", type=int, default=160)
    p.add_argument("--batch", type=int, default=16)
    # Ultralytics' nominal batch: 64 accumulates 4 batches of 16 per optimizer step. A smaller
    # value gives a short run on a few hundred images more optimizer steps.
    p.add_argument("--nbs", type=int, default=64)
    p.add_argument("--project", default="/tmp/ultralytics_runs")
    p.add_argument("--val-only", default="")
    a = p.parse_args()
    sys.path.insert(0, a.ultralytics)
    import torch

    torch.set_num_threads(2)
    from ultralytics.utils import checks
    import ultralytics.utils as utils

    utils.is_online = lambda: False
    checks.check_font = lambda *x, **k: None
    checks.check_requirements = lambda *x, **k: True
    checks.check_pip_update_available = lambda *x, **k: False
    from ultralytics import YOLO
    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(trainer):
        # 8.4 reads results.csv with polars, which Debian does not package.
        import csv

        try:
            with open(trainer.csv) as f:
                rows = list(csv.DictReader(f))
        except FileNotFoundError:
            return {}
        return {k.strip(): [float(r[k]) for r in rows] for k in (rows[0] if rows else {})}

    BaseTrainer.read_results_csv = read_results_csv

    common = dict(data=a.data, imgsz=a.imgsz, batch=a.batch, device="cpu", plots=False,
                  workers=0)
    weights = a.val_only
    if not weights:
        model = YOLO(a.model)
        model.train(epochs=a.epochs, project=a.project, name="train", exist_ok=True, seed=0,
                    amp=False, nbs=a.nbs, **common)
        weights = os.path.join(a.project, "train", "weights", "best.pt")
    m = YOLO(weights).val(project=a.project, name="val", exist_ok=True, **common)
    print(f"ultralytics val: {weights} mAP50={m.box.map50:.4f} mAP50-95={m.box.map:.4f}")


if __name__ == "__main__":
    main()
