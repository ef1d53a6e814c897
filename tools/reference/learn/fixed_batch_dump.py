# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes what Ultralytics' own code computes on one fixed batch, for reference_check.

The file (torch.save of a flat dict of tensors, which LibTorch's torch::pickle_load reads)
holds, under these key prefixes:
  init/<name>    the reference's freshly initialised yolov8 state (parameters and BN buffers);
  images, targets  the batch: [B,3,S,S] in [0,1] and [N,6] rows (image, class, cx, cy, w, h);
  items          the reference loss's [box, cls, dfl] (gains applied, before x batch size);
  total          the scalar the reference back-propagates (sum of items x batch size);
  grad/<name>    each parameter's gradient from that backward;
  final/<name>   the model after `steps` optimizer steps on the same batch, each one the
                 reference trainer's optimizer_step (unscale, clip_grad_norm_ 10, step,
                 zero_grad, EMA update), optimizer from the trainer's build_optimizer;
  ema/<name>     the reference ModelEMA after those steps;
  config         [nc, imgsz, batch, steps, lr, momentum, weight_decay, optimizer (0 SGD, 1 AdamW)].

Usage: /usr/bin/python3 fixed_batch_dump.py --out batch.pt [--nc 3 --imgsz 128 --batch 4
           --steps 5 --optimizer AdamW --lr 0.001429 --momentum 0.9]
"""
import argparse
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ultra_env  # noqa: E402,F401

import torch  # noqa: E402
from ultralytics.cfg import get_cfg  # noqa: E402
from ultralytics.engine.trainer import BaseTrainer  # noqa: E402
from ultralytics.nn.tasks import DetectionModel  # noqa: E402
from ultralytics.utils.torch_utils import ModelEMA  # noqa: E402


def make_batch(batch, imgsz, nc, gen):
    images = torch.rand(batch, 3, imgsz, imgsz, generator=gen)
    rows = []
    for b in range(batch - 1):  # the last image has no objects
        for _ in range(1 + b % 4):
            w, h = (0.05 + 0.4 * torch.rand(2, generator=gen)).tolist()
            cx = w / 2 + (1 - w) * torch.rand(1, generator=gen).item()
            cy = h / 2 + (1 - h) * torch.rand(1, generator=gen).item()
            cls = int(torch.randint(nc, (1,), generator=gen))
            rows.append([b, cls, cx, cy, w, h])
    return images, torch.tensor(rows, dtype=torch.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", default="yolov8n.yaml")
    ap.add_argument("--nc", type=int, default=3)
    ap.add_argument("--imgsz", type=int, default=128)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--optimizer", default="AdamW", choices=["AdamW", "SGD"])
    ap.add_argument("--lr", type=float, default=0.001429)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--weight-decay", type=float, default=0.0005)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    model = DetectionModel(args.model, nc=args.nc, verbose=False)
    model.args = get_cfg()  # the trainer attaches its hyperparameters; the loss reads the gains
    model.train()
    out = {f"init/{k}": v.detach().clone() for k, v in model.state_dict().items()
           if v.dtype.is_floating_point}

    gen = torch.Generator().manual_seed(args.seed + 1)
    images, targets = make_batch(args.batch, args.imgsz, args.nc, gen)
    batch = {"img": images, "batch_idx": targets[:, 0], "cls": targets[:, 1:2], "bboxes": targets[:, 2:]}
    out["images"], out["targets"] = images, targets

    # The trainer's own optimizer construction; it reads nothing of `self` for a named optimizer.
    fake_trainer = types.SimpleNamespace(args=get_cfg(), data={"nc": args.nc})
    optimizer = BaseTrainer.build_optimizer(fake_trainer, model, name=args.optimizer, lr=args.lr,
                                            momentum=args.momentum, decay=args.weight_decay)
    ema = ModelEMA(model)
    for step in range(args.steps):
        loss, items = model.loss(batch, model(images))
        total = loss.sum()
        total.backward()
        if step == 0:
            out["items"], out["total"] = items.detach().clone(), total.detach().clone()
            out.update({f"grad/{k}": p.grad.detach().clone() for k, p in model.named_parameters()
                        if p.grad is not None})
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
        optimizer.step()
        optimizer.zero_grad()
        ema.update(model)
        print(f"step {step}: items {[round(float(x), 6) for x in items]} total {float(total):.6f}")
    out.update({f"final/{k}": v.detach().clone() for k, v in model.state_dict().items()
                if v.dtype.is_floating_point})
    out.update({f"ema/{k}": v.detach().clone() for k, v in ema.ema.state_dict().items()
                if v.dtype.is_floating_point})
    out["config"] = torch.tensor([args.nc, args.imgsz, args.batch, args.steps, args.lr, args.momentum,
                                  args.weight_decay, 1.0 if args.optimizer == "AdamW" else 0.0],
                                 dtype=torch.float64)
    torch.save(out, args.out)
    print(f"ultralytics {ultra_env.VERSION}: wrote {len(out)} tensors to {args.out}")


if __name__ == "__main__":
    main()
