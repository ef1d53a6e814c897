#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which tensors of WongKinYiu/yolov9's detection models map onto Ultralytics' YOLOv9 models.

Headroom's parameter names and shapes are Ultralytics' (checked on the fixtures), and Headroom
transfers a checkpoint's tensors by name and shape (Ultralytics' intersect_dicts rule). This
builds each model of WongKinYiu/yolov9's models/detect/ with its own code, and the Ultralytics
model of the same size with Ultralytics' code, at nc=80, and counts what would transfer:

    OMP_NUM_THREADS=1 MPLBACKEND=Agg /usr/bin/python3 tools/reference/yolov9_layouts.py \\
        --yolov9 /tmp/wky --ultralytics /tmp/u84

`--yolov9` is `git archive HEAD models utils` of the fetched WongKinYiu/yolov9 snapshot.
Results are in docs/decisions.md ("WongKinYiu/yolov9 checkpoints").
"""
import argparse
import os
import re
import sys
import types


def stub_ipython():
    # models/common.py imports IPython.display, which Debian's python3 does not ship here.
    ip = types.ModuleType("IPython")
    ip.get_ipython = lambda: None
    display = types.ModuleType("IPython.display")
    display.display = print
    sys.modules["IPython"] = ip
    sys.modules["IPython.display"] = display


def rows(names):
    out = sorted({int(m.group(1)) for n in names if (m := re.match(r"model\.(\d+)\.", n))})
    return ",".join(map(str, out)) if out else "-"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--yolov9", required=True)
    p.add_argument("--ultralytics", required=True)
    p.add_argument("--save", default="",
                   help="also write gelan-t.pt and yolov9-t.pt here, laid out as their trainer "
                        "saves checkpoints (fp16 model, ema None), to try in Headroom")
    a = p.parse_args()
    stub_ipython()
    sys.path.insert(0, a.yolov9)
    sys.path.insert(1, a.ultralytics)
    import contextlib
    import io

    import torch

    torch.set_num_threads(1)
    from models.yolo import DetectionModel as WkyModel
    from ultralytics.nn.tasks import DetectionModel as UltraModel

    ucfg = os.path.join(a.ultralytics, "ultralytics/cfg/models/v9")
    if a.save:
        os.makedirs(a.save, exist_ok=True)
        for name in ("gelan-t", "yolov9-t"):
            with contextlib.redirect_stdout(io.StringIO()):
                model = WkyModel(os.path.join(a.yolov9, "models/detect", name + ".yaml"), ch=3,
                                 nc=80)
            # train.py's save: {'model': deepcopy(de_parallel(model)).half(), 'ema': ..., ...}
            torch.save({"epoch": -1, "best_fitness": None, "model": model.half(), "ema": None,
                        "updates": None, "optimizer": None, "opt": None},
                       os.path.join(a.save, name + ".pt"))
    wcfg = os.path.join(a.yolov9, "models/detect")
    for size in "tsmce":
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            target = UltraModel(os.path.join(ucfg, f"yolov9{size}.yaml"), nc=80, verbose=False)
        t = {k: v.shape for k, v in target.state_dict().items()}
        for family in ("gelan", "yolov9"):
            name = f"{family}-{size}.yaml"
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                source = WkyModel(os.path.join(wcfg, name), ch=3, nc=80)
            s = {k: v.shape for k, v in source.state_dict().items()}
            same = [k for k in t if k in s and s[k] == t[k]]
            shape = [k for k in t if k in s and s[k] != t[k]]
            missing = [k for k in t if k not in s]
            print(f"{name:>14} -> yolov9{size}.yaml: transferred {len(same)}/{len(t)}; "
                  f"other shape {len(shape)} (rows {rows(shape)}); "
                  f"absent {len(missing)} (rows {rows(missing)}); "
                  f"file-only {len([k for k in s if k not in t])}")
            for k in shape[:4]:
                print(f"      {k}: {tuple(s[k])} in {name}, {tuple(t[k])} in Ultralytics")


if __name__ == "__main__":
    main()
