# SPDX-License-Identifier: GPL-3.0-or-later
"""Ultralytics' own training and validation speed on a Headroom data set (issue 21's reference).

Trains one epoch with Ultralytics' trainer (fp32, workers 0 as it forces on a CPU) and times
the batches after --warmup untimed ones from its on_train_batch_end callback, so each interval
holds the data loading, forward, backward and optimizer of one batch, as `headroom-cli bench
train` times a step. Then validates --weights (or the epoch's last.pt) with its validator.

Usage: /usr/bin/python3 speed_reference.py --data DIR/data_abs.yaml [--imgsz 320 --batch 16
           --warmup 3 --steps 12 --weights best.pt] [--first-step]
Prints training images/s, validation ms per image (its preprocess + inference + postprocess)
and the process' peak RSS (ru_maxrss). With --first-step it prints only the seconds from the
process' start to the end of the first training batch (the label scan, a cached one the second
time, and the loader's start included), then the peak RSS, and stops there.
"""
import argparse
import os
import resource
import sys
import time

STARTED = time.time()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

from ultralytics import YOLO  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="yolov8n.yaml")
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--weights", default="")
    ap.add_argument("--first-step", action="store_true")
    args = ap.parse_args()

    ends = []
    model = YOLO(args.model)
    if args.first_step:
        def first(trainer):
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"first step: {time.time() - STARTED:.1f} s after the start; peak RSS "
                  f"{peak:.0f} MiB", flush=True)
            os._exit(0)

        model.add_callback("on_train_batch_end", first)
    model.add_callback("on_train_batch_end", lambda trainer: ends.append(time.perf_counter()))
    model.add_callback("on_train_epoch_start", lambda trainer: ends.append(time.perf_counter()))
    model.train(data=args.data, epochs=1, imgsz=args.imgsz, batch=args.batch, device="cpu",
                plots=False, workers=0, amp=False, verbose=False, val=False,
                project="/tmp/speed_reference", name="train", exist_ok=True)
    timed = ends[args.warmup:args.warmup + args.steps + 1]
    if len(timed) < args.steps + 1:
        raise SystemExit(f"only {len(ends) - 1} batches in an epoch; need "
                         f"{args.warmup + args.steps} (a larger data set or a smaller --batch)")
    seconds = timed[-1] - timed[0]
    print(f"# ultralytics {ultra_env.VERSION}, {ultra_env.THREADS} threads, {args.model}, "
          f"imgsz {args.imgsz}, batch {args.batch}")
    print(f"train: {args.steps * args.batch / seconds:.2f} images/s "
          f"({seconds / args.steps * 1000:.0f} ms per step, {args.steps} steps after "
          f"{args.warmup})")
    weights = args.weights or "/tmp/speed_reference/train/weights/last.pt"
    t0 = time.perf_counter()
    m = YOLO(weights).val(data=args.data, imgsz=args.imgsz, batch=args.batch, device="cpu",
                          plots=False, workers=0, verbose=False,
                          project="/tmp/speed_reference", name="val", exist_ok=True)
    wall = time.perf_counter() - t0
    s = m.speed
    per_image = s["preprocess"] + s["inference"] + s["postprocess"]
    print(f"val: {per_image:.1f} ms per image ({1000 / per_image:.1f} images/s: preprocess "
          f"{s['preprocess']:.1f}, inference {s['inference']:.1f}, postprocess "
          f"{s['postprocess']:.1f}), mAP50-95 {m.box.map:.4f}; the whole val call "
          f"{wall:.2f} s (weights, data set, all batches)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
