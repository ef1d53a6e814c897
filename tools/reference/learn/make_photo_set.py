# SPDX-License-Identifier: GPL-3.0-or-later
"""Assembles issue 17's real-photo detection set from photos Debian ships.

Objects are cut from the sample photos of python3-skimage (an astronaut, a cat, a cup of coffee,
a motorcycle, a rocket on its pad, a retina) and pasted at random sizes, aspect ratios, brightness
and mirrorings onto random crops of the nature photos of mate-backgrounds (and skimage's Hubble
deep field). Both are real camera photos; only the composition is synthetic, so the boxes are
exact. Six classes, like the issue's own set.

    apt-get install python3-skimage mate-backgrounds python3-opencv
    /usr/bin/python3 make_photo_set.py --out /tmp/photo6 [--train 256 --val 64 --seed 0]

Writes images/{train,val}, labels/{train,val} (YOLO txt), data.yaml (path: .) and
data_abs.yaml (the absolute path, which Ultralytics needs).
"""
import argparse
import glob
import os
import random

import cv2
import numpy as np

SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"
MATE = "/usr/share/backgrounds/mate"

# (class name, file, object box in the source photo: x0, y0, x1, y1, round?)
OBJECTS = [
    ("astronaut", "astronaut.png", (70, 10, 420, 512), False),
    ("cat", "chelsea.png", (40, 0, 420, 300), False),
    ("coffee", "coffee.png", (80, 15, 530, 395), False),
    ("motorcycle", "motorcycle_left.png", (120, 170, 730, 480), False),
    ("rocket", "rocket.jpg", (330, 110, 430, 427), False),
    ("retina", "retina.jpg", (0, 0, 1411, 1411), True),
]

BACKGROUNDS = [os.path.join(MATE, "nature", n) for n in (
    "Aqua.jpg", "Blinds.jpg", "Dune.jpg", "FreshFlower.jpg", "Garden.jpg", "GreenMeadow.jpg",
    "LadyBird.jpg", "RainDrops.jpg", "Storm.jpg", "TwoWings.jpg", "Wood.jpg", "YellowFlower.jpg")]
BACKGROUNDS.append(os.path.join(SKIMAGE, "hubble_deep_field.jpg"))


def load(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"{path}: cannot read; install python3-skimage and mate-backgrounds")
    return img


def background(rng, bgs, w, h):
    src = bgs[rng.randrange(len(bgs))]
    sh, sw = src.shape[:2]
    frac = rng.uniform(0.3, 1.0)
    cw = int(sw * frac)
    ch = min(sh, int(cw * h / w))
    x0 = rng.randrange(sw - cw + 1)
    y0 = rng.randrange(sh - ch + 1)
    img = cv2.resize(src[y0:y0 + ch, x0:x0 + cw], (w, h), interpolation=cv2.INTER_AREA)
    return cv2.flip(img, 1) if rng.random() < 0.5 else img


def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def paste(rng, img, obj, placed):
    cls, src, (x0, y0, x1, y1), rounded = obj
    h, w = img.shape[:2]
    # Each instance is a slightly different cut of the object, so no two are pixel-identical.
    bw, bh = x1 - x0, y1 - y0
    j = [int(rng.uniform(-0.06, 0.06) * s) for s in (bw, bh, bw, bh)]
    cx0, cy0 = max(0, x0 + j[0]), max(0, y0 + j[1])
    cx1 = min(src.shape[1], x1 + j[2])
    cy1 = min(src.shape[0], y1 + j[3])
    crop = src[cy0:cy1, cx0:cx1]
    longer = rng.uniform(28, 180)
    aspect = (cx1 - cx0) / (cy1 - cy0) * rng.uniform(0.8, 1.25)
    ow = int(round(longer if aspect >= 1 else longer * aspect))
    oh = int(round(longer / aspect if aspect >= 1 else longer))
    ow, oh = max(8, min(ow, w - 2)), max(8, min(oh, h - 2))
    for _ in range(30):
        px, py = rng.randrange(w - ow), rng.randrange(h - oh)
        box = (px, py, px + ow, py + oh)
        if all(iou(box, p[1]) < 0.2 for p in placed):
            break
    else:
        return
    patch = cv2.resize(crop, (ow, oh), interpolation=cv2.INTER_AREA).astype(np.float32)
    patch = np.clip(patch * rng.uniform(0.7, 1.3) + rng.uniform(-20, 20), 0, 255)
    if rng.random() < 0.5:
        patch = cv2.flip(patch, 1)
    if rounded:
        mask = np.zeros((oh, ow), np.float32)
        cv2.ellipse(mask, (ow // 2, oh // 2), (ow // 2, oh // 2), 0, 0, 360, 1.0, -1)
    else:
        mask = np.ones((oh, ow), np.float32)
    mask = cv2.GaussianBlur(mask, (3, 3), 0)[..., None]
    region = img[py:py + oh, px:px + ow].astype(np.float32)
    img[py:py + oh, px:px + ow] = (patch * mask + region * (1 - mask)).astype(np.uint8)
    placed.append((cls, box))


def write_split(rng, root, split, count, objects, bgs):
    os.makedirs(os.path.join(root, "images", split), exist_ok=True)
    os.makedirs(os.path.join(root, "labels", split), exist_ok=True)
    for i in range(count):
        w, h = (640, 480) if rng.random() < 0.75 else (480, 640)
        img = background(rng, bgs, w, h)
        placed = []
        for _ in range(rng.randint(1, 6)):
            k = rng.randrange(len(objects))
            paste(rng, img, (k,) + objects[k][1:], placed)
        name = f"{split}_{i:04d}"
        cv2.imwrite(os.path.join(root, "images", split, name + ".jpg"), img,
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        with open(os.path.join(root, "labels", split, name + ".txt"), "w") as f:
            for cls, (a, b, c, d) in placed:
                f.write(f"{cls} {(a + c) / 2 / w:.6f} {(b + d) / 2 / h:.6f} "
                        f"{(c - a) / w:.6f} {(d - b) / h:.6f}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--train", type=int, default=256)
    ap.add_argument("--val", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    objects = [(name, load(os.path.join(SKIMAGE, f)), box, rnd) for name, f, box, rnd in OBJECTS]
    bgs = [load(p) for p in BACKGROUNDS]
    write_split(rng, args.out, "train", args.train, objects, bgs)
    write_split(rng, args.out, "val", args.val, objects, bgs)
    names = "".join(f"  {i}: {o[0]}\n" for i, o in enumerate(OBJECTS))
    body = "train: images/train\nval: images/val\nnames:\n" + names
    with open(os.path.join(args.out, "data.yaml"), "w") as f:
        f.write("path: .\n" + body)
    with open(os.path.join(args.out, "data_abs.yaml"), "w") as f:
        f.write(f"path: {os.path.abspath(args.out)}\n" + body)
    print(f"{args.out}: {args.train} training and {args.val} validation images, "
          f"{len(OBJECTS)} classes")


if __name__ == "__main__":
    main()
