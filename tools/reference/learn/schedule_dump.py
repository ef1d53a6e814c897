# SPDX-License-Identifier: GPL-3.0-or-later
"""Records Ultralytics' own optimizer schedule, iteration by iteration.

Runs the reference trainer's real epoch loop (warmup, accumulation, scheduler, optimizer step,
EMA update) with two stand-ins that make it cost seconds instead of hours: a data loader that
yields `ceil(images / batch)` empty batches per epoch, and a loss that is a small quadratic of
the parameters (so gradients exist and every step moves the weights). Validation and saving are
switched off. Everything this script prints comes from the reference's own objects:
the optimizer's param_groups after each iteration, which iterations called optimizer.step(),
and the EMA's update count and decay.

Output CSV, one row per iteration:
  epoch,batch,bias_lr,weight_lr,norm_lr,momentum,weight_decay,stepped,ema_updates,ema_decay
where bias/weight/norm are the reference's param groups 0/1/2 (biases; weights with decay;
normalisation weights) and momentum is group 0's (SGD momentum or Adam beta1).

Usage: /usr/bin/python3 schedule_dump.py --images 256 --nc 3 --batch 16 --epochs 30 \
           [--optimizer auto] [--lr0 0.01] --out schedule.csv
"""
import argparse
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

import torch  # noqa: E402
from ultralytics.models.yolo.detect import DetectionTrainer  # noqa: E402


class EmptyBatches:
    """Stands in for the training loader: the right length and dataset size, no pixels."""

    def __init__(self, images, batch):
        self.dataset = [None] * images
        self.batches = math.ceil(images / batch)
        self.num_workers = 0

    def __len__(self):
        return self.batches

    def __iter__(self):
        for _ in range(self.batches):
            yield {"cls": torch.zeros(0, 1), "img": torch.zeros(1, 3, 32, 32)}

    def reset(self):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, required=True)
    ap.add_argument("--nc", type=int, default=3)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--optimizer", default="auto")
    ap.add_argument("--lr0", type=float, default=0.01)
    ap.add_argument("--warmup-epochs", type=float, default=3.0)
    ap.add_argument("--model", default="yolov8n.yaml")
    ap.add_argument("--out", required=True, help="CSV file to write")
    args = ap.parse_args()

    root = tempfile.mkdtemp(prefix="schedule-dump-")
    for split in ("train", "val"):
        os.makedirs(os.path.join(root, "images", split))
    data = os.path.join(root, "data.yaml")
    with open(data, "w") as f:
        f.write(f"path: {root}\ntrain: images/train\nval: images/val\n")
        f.write("names:\n" + "".join(f"  {i}: c{i}\n" for i in range(args.nc)))

    overrides = dict(model=args.model, data=data, epochs=args.epochs, batch=args.batch, imgsz=64,
                     device="cpu", workers=0, plots=False, val=False, save=False,
                     optimizer=args.optimizer, lr0=args.lr0, warmup_epochs=args.warmup_epochs,
                     project=root, name="run", verbose=False, amp=False)
    trainer = DetectionTrainer(overrides=overrides)
    trainer.get_dataloader = lambda *a, **k: EmptyBatches(args.images, args.batch)
    trainer.get_validator = lambda: type("V", (), {"metrics": type("M", (), {"keys": []})()})()
    trainer.validate = lambda: ({}, 0.0)
    trainer.save_model = lambda: None
    trainer.final_eval = lambda: None
    trainer.preprocess_batch = lambda b: b

    rows = []
    state = {"stepped": False}

    def on_pretrain_end(tr):
        model = tr.model
        params = [p for p in model.parameters() if p.requires_grad]

        def quadratic_loss(batch, preds=None):
            loss = sum((p.float() ** 2).sum() for p in params) * 1e-3
            return loss, torch.zeros(3)

        model.loss = quadratic_loss
        opt_step = tr.optimizer.step

        def counted_step(*a, **k):
            state["stepped"] = True
            return opt_step(*a, **k)

        tr.optimizer.step = counted_step

    def on_batch_end(tr):
        g = tr.optimizer.param_groups
        momentum = g[0].get("momentum", g[0].get("betas", (float("nan"),))[0])
        ema = tr.ema
        rows.append((tr.epoch, len(rows) - tr.epoch * len(tr.train_loader), g[0]["lr"], g[1]["lr"],
                     g[2]["lr"], momentum, g[1]["weight_decay"], int(state["stepped"]), ema.updates,
                     ema.decay(ema.updates) if ema.updates else 0.0))
        state["stepped"] = False

    trainer.add_callback("on_pretrain_routine_end", on_pretrain_end)
    trainer.add_callback("on_train_batch_end", on_batch_end)
    trainer.train()

    with open(args.out, "w") as out:
        write_rows(out, args, trainer, rows)


def write_rows(out, args, trainer, rows):
    print(f"# ultralytics {ultra_env.VERSION}; images={args.images} nc={args.nc} batch={args.batch} "
          f"epochs={args.epochs} optimizer={args.optimizer} -> {type(trainer.optimizer).__name__}", file=out)
    print("epoch,batch,bias_lr,weight_lr,norm_lr,momentum,weight_decay,stepped,ema_updates,ema_decay", file=out)
    for r in rows:
        print(f"{r[0]},{r[1]},{r[2]:.10g},{r[3]:.10g},{r[4]:.10g},{r[5]:.10g},{r[6]:.10g},{r[7]},{r[8]},"
              f"{r[9]:.12g}", file=out)


if __name__ == "__main__":
    main()
