# SPDX-License-Identifier: GPL-3.0-or-later
"""Ultralytics' own validator on a weights file: the reference numbers of test_eval's val check.

Usage: /usr/bin/python3 val_reference.py --weights best.pt --data DIR/data_abs.yaml [--imgsz 320]
Prints mAP50 and mAP50-95 over all classes, then per class AP50 and AP50-95, at Ultralytics'
defaults (conf 0.001, IoU 0.7, batch 16, rectangular batches).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

from ultralytics import YOLO  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--no-clip", action="store_true",
                    help="keep predicted boxes that reach past the image unclipped when they are "
                         "scaled back to it (8.3 clips them there, 8.4 matches in letterbox space)")
    args = ap.parse_args()
    if args.no_clip:
        from ultralytics.utils import ops

        ops.clip_boxes = lambda boxes, shape: boxes
    m = YOLO(args.weights).val(data=args.data, imgsz=args.imgsz, batch=16, device="cpu",
                               plots=False, workers=0, verbose=False,
                               project="/tmp/val_reference", name="val", exist_ok=True)
    print(f"# ultralytics {ultra_env.VERSION}: {args.weights}")
    print(f"all mAP50={m.box.map50:.5f} mAP50-95={m.box.map:.5f}")
    for i, c in enumerate(m.box.ap_class_index):
        print(f"class {int(c)} AP50={m.box.ap50[i]:.5f} AP50-95={m.box.ap[i]:.5f}")


if __name__ == "__main__":
    main()
