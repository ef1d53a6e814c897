#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes small Ultralytics checkpoints and their reference tensors for Headroom's tests.

Runs Ultralytics' own code (a source checkout on PYTHONPATH, no pip install) on Debian's
python3-torch, offline. See tools/reference/README.md for how to run it.
"""
import argparse
import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "True")
os.environ.setdefault("YOLO_AUTOINSTALL", "False")

# Tiny widths so each fixture stays a few hundred kilobytes; the row layouts are those of
# Ultralytics' yolov8.yaml and yolov9t.yaml (plus one ADown row, which yolov9t lacks).
YOLOV8_TINY = """
nc: 3
scales:
  n: [0.33, 0.0625, 256]
backbone:
  - [-1, 1, Conv, [64, 3, 2]]
  - [-1, 1, Conv, [128, 3, 2]]
  - [-1, 3, C2f, [128, True]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [-1, 6, C2f, [256, True]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [-1, 6, C2f, [512, True]]
  - [-1, 1, Conv, [1024, 3, 2]]
  - [-1, 3, C2f, [1024, True]]
  - [-1, 1, SPPF, [1024, 5]]
head:
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 6], 1, Concat, [1]]
  - [-1, 3, C2f, [512]]
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 4], 1, Concat, [1]]
  - [-1, 3, C2f, [256]]
  - [-1, 1, Conv, [256, 3, 2]]
  - [[-1, 12], 1, Concat, [1]]
  - [-1, 3, C2f, [512]]
  - [-1, 1, Conv, [512, 3, 2]]
  - [[-1, 9], 1, Concat, [1]]
  - [-1, 3, C2f, [1024]]
  - [[15, 18, 21], 1, Detect, [nc]]
"""

YOLOV9_TINY = """
nc: 3
backbone:
  - [-1, 1, Conv, [8, 3, 2]]
  - [-1, 1, Conv, [16, 3, 2]]
  - [-1, 1, ELAN1, [16, 16, 8]]
  - [-1, 1, AConv, [24]]
  - [-1, 1, RepNCSPELAN4, [24, 24, 12, 1]]
  - [-1, 1, ADown, [32]]
  - [-1, 1, RepNCSPELAN4, [32, 32, 16, 1]]
  - [-1, 1, AConv, [40]]
  - [-1, 1, RepNCSPELAN4, [40, 40, 20, 1]]
  - [-1, 1, SPPELAN, [40, 20]]
head:
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 6], 1, Concat, [1]]
  - [-1, 1, RepNCSPELAN4, [32, 32, 16, 1]]
  - [-1, 1, nn.Upsample, [None, 2, "nearest"]]
  - [[-1, 4], 1, Concat, [1]]
  - [-1, 1, RepNCSPELAN4, [24, 24, 12, 1]]
  - [-1, 1, AConv, [16]]
  - [[-1, 12], 1, Concat, [1]]
  - [-1, 1, RepNCSPELAN4, [32, 32, 16, 1]]
  - [-1, 1, AConv, [24]]
  - [[-1, 9], 1, Concat, [1]]
  - [-1, 1, RepNCSPELAN4, [40, 40, 20, 1]]
  - [[15, 18, 21], 1, Detect, [nc]]
"""

IMGSZ = 64


def go_offline(ultralytics):
    """Switches off everything in Ultralytics that would reach the network."""
    from ultralytics.utils import checks
    import ultralytics.utils as utils

    utils.is_online = lambda: False
    checks.check_font = lambda *a, **k: None
    checks.check_requirements = lambda *a, **k: True
    checks.check_pip_update_available = lambda *a, **k: False


def randomise_batchnorm(model, torch):
    """Non-trivial running statistics, so a reader that drops buffers fails the comparison."""
    g = torch.Generator().manual_seed(7)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=g) * 0.1)
            m.num_batches_tracked.fill_(17)


def fixed_input(torch):
    """The input the C++ test rebuilds: value (y*W + x)*3 + c mod 251, scaled to [0, 1]."""
    idx = torch.arange(3 * IMGSZ * IMGSZ).reshape(IMGSZ, IMGSZ, 3).permute(2, 0, 1)
    return ((idx % 251).float() / 250.0).unsqueeze(0)


def write_output(path, t):
    """The raw model output: u32 rank, i64 dims, float32 little-endian values (row-major)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<I", t.dim()))
        for d in t.shape:
            f.write(struct.pack("<q", d))
        f.write(t.detach().float().contiguous().numpy().astype("<f4").tobytes())


def write_checksums(path, state):
    """One line per state-dict entry: name, shape, sum and sum of squares in float64.

    The stored values are fp16, so their float64 sums are exact enough to tell any changed,
    missing or transposed tensor."""
    with open(path, "w") as f:
        for name, t in state.items():
            d = t.detach().double()
            shape = "x".join(str(x) for x in t.shape) or "scalar"
            f.write(f"{name} {shape} {d.sum().item():.17g} {(d * d).sum().item():.17g}\n")


def reference_output(model, torch):
    m = model.float().eval()
    with torch.no_grad():
        y = m(fixed_input(torch))
    return y[0] if isinstance(y, (tuple, list)) else y


def make(torch, yaml_text, stem, out, extra):
    from ultralytics.nn.tasks import DetectionModel
    from ultralytics.utils.torch_utils import ModelEMA, strip_optimizer
    from ultralytics.cfg import get_cfg
    import yaml as pyyaml

    torch.manual_seed(0)
    cfg = pyyaml.safe_load(yaml_text)
    # yaml_model_load() adds these two when it reads a file; the dict path skips it.
    cfg["yaml_file"] = stem + ".yaml"
    if "scales" in cfg:
        cfg["scale"] = "n"
    model = DetectionModel(cfg, nc=3, verbose=False)
    model.names = {0: "circle", 1: "square", 2: "triangle"}
    randomise_batchnorm(model, torch)
    args = get_cfg()
    args.imgsz = IMGSZ
    args.data = "shapes.yaml"
    args.model = stem + ".yaml"
    model.args = args
    ema = ModelEMA(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    from copy import deepcopy

    # The trainer's last.pt layout (engine/trainer.py save_model), EMA in fp16.
    ckpt = {
        "epoch": 0,
        "best_fitness": 0.25,
        "model": None,
        "ema": deepcopy(ema.ema).half(),
        "updates": ema.updates,
        "optimizer": deepcopy(optimizer.state_dict()),
        "train_args": vars(args),
        "train_metrics": {"metrics/mAP50-95(B)": 0.25, "fitness": 0.25},
        "date": "2026-12-01T00:00:00",
        "version": extra["version"],
    }
    last = out / f"{stem}_last.pt"
    torch.save(ckpt, last)
    release = out / f"{stem}.pt"
    strip_optimizer(last, release)  # what best.pt and the published weights look like
    reference = torch.load(release, map_location="cpu")["model"]
    write_checksums(out / f"{stem}.tensors.txt", reference.state_dict())
    write_output(out / f"{stem}.output.bin", reference_output(reference, torch))
    return release


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ultralytics", required=True, help="folder holding the ultralytics package")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path.insert(0, a.ultralytics)
    import torch

    torch.set_num_threads(2)
    import ultralytics

    go_offline(ultralytics)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    extra = {"version": ultralytics.__version__}
    v8 = make(torch, YOLOV8_TINY, "yolov8n-tiny", out, extra)
    make(torch, YOLOV9_TINY, "yolov9-tiny", out, extra)
    (out / "yolov9-tiny_last.pt").unlink()  # the v8 one covers the trainer's layout

    # Fused (Conv+BN folded, RepConv merged) as model.fuse() leaves it, saved as a release file.
    ck = torch.load(v8, map_location="cpu")
    ck["model"] = ck["model"].float().fuse(verbose=False).half()
    torch.save(ck, out / "yolov8n-tiny_fused.pt")
    # The pre-1.6 format: a bare pickle stream instead of a zip archive.
    ck = torch.load(v8, map_location="cpu")
    torch.save(ck, out / "yolov8n-tiny_legacy.pt", _use_new_zipfile_serialization=False)
    print("wrote", sorted(x.name for x in out.iterdir()))


if __name__ == "__main__":
    main()
