# SPDX-License-Identifier: GPL-3.0-or-later
"""Trains with Ultralytics' own trainer on a Headroom data set and prints its per-epoch curve.

The settings are the ones a Headroom run is compared at: yolov8n from scratch, fp32 on the CPU,
imgsz 320, batch 16, every other setting at the reference's default (optimizer auto,
close_mosaic 10, ...). Plots are off (they would fetch a font).

Usage: nice -n 10 /usr/bin/python3 train_curve.py --data DIR/data_abs.yaml --seed 0 \
           --project /tmp/curves --name u-seed0 [--epochs 30]
Prints one line per epoch: epoch, mAP50, mAP50-95, box/cls/dfl training loss.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

from ultralytics import YOLO  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--model", default="yolov8n.yaml")
    ap.add_argument("--project", required=True)
    ap.add_argument("--name", required=True)
    args = ap.parse_args()

    model = YOLO(args.model)
    model.train(data=args.data, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch, seed=args.seed,
                device="cpu", plots=False, project=args.project, name=args.name, exist_ok=True,
                pretrained=False, amp=False, verbose=False)
    results = os.path.join(args.project, args.name, "results.csv")
    print(f"# ultralytics {ultra_env.VERSION} seed {args.seed}: {results}")
    print("epoch,mAP50,mAP50-95,box,cls,dfl")
    with open(results) as f:
        for row in csv.DictReader(f):
            row = {k.strip(): v for k, v in row.items()}
            print(f"{int(float(row['epoch']))},{float(row['metrics/mAP50(B)']):.4f},"
                  f"{float(row['metrics/mAP50-95(B)']):.4f},{float(row['train/box_loss']):.3f},"
                  f"{float(row['train/cls_loss']):.3f},{float(row['train/dfl_loss']):.3f}")


if __name__ == "__main__":
    main()
