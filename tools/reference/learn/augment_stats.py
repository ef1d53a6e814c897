# SPDX-License-Identifier: GPL-3.0-or-later
"""Object and colour statistics of Ultralytics' own training augmentation, for comparison with
`headroom-cli bench data` on the same data set.

Builds the reference's training dataset (mosaic, random affine, HSV, flips at their defaults;
albumentations is not installed, so it is skipped as on any machine without it) and draws
`--samples` augmented images. Prints the same lines as bench data: objects per image, the
longer box side's p10 / p50 / p90 in pixels, and the mean H / S / V (OpenCV ranges) of the
augmented images.

Usage: /usr/bin/python3 augment_stats.py --data DIR/data.yaml [--samples 1008 --imgsz 320]
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from ultralytics.cfg import get_cfg  # noqa: E402
from ultralytics.data.build import build_yolo_dataset  # noqa: E402
from ultralytics.data.utils import check_det_dataset  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--samples", type=int, default=1008)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--mosaic", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    cfg = get_cfg(overrides=dict(imgsz=args.imgsz, mosaic=args.mosaic))
    data = check_det_dataset(args.data)
    dataset = build_yolo_dataset(cfg, data["train"], 16, data, mode="train")
    counts, sides, hsv = [], [], []
    order = []
    while len(order) < args.samples:  # epochs of shuffled indices, as the loader draws them
        order.extend(random.sample(range(len(dataset)), len(dataset)))
    for i in order[: args.samples]:
        item = dataset[i]
        boxes = item["bboxes"].numpy()  # normalised xywh
        counts.append(len(boxes))
        if len(boxes):
            sides.extend((boxes[:, 2:4].max(1) * args.imgsz).tolist())
        rgb = item["img"].numpy().transpose(1, 2, 0)  # CHW RGB uint8 -> HWC
        bgr = np.ascontiguousarray(rgb[..., ::-1])
        hsv.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).reshape(-1, 3).mean(0))
    sides = np.sort(np.array(sides))
    pct = [sides[int(q * (len(sides) - 1))] for q in (0.1, 0.5, 0.9)]
    h, s, v = np.array(hsv).mean(0)
    print(f"ultralytics {ultra_env.VERSION}: {args.samples} augmented images, imgsz {args.imgsz}, "
          f"mosaic {args.mosaic}")
    print(f"objects: {np.mean(counts):.2f} per training image; longer side p10 / p50 / p90: "
          f"{pct[0]:.1f} / {pct[1]:.1f} / {pct[2]:.1f} px")
    print(f"colour: mean H / S / V {h:.2f} / {s:.2f} / {v:.2f}")


if __name__ == "__main__":
    main()
