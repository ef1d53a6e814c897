#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PyTorch eager reference for headroom-gpu-check's `speed` section (issue 20).

One YOLOv8 training step written directly in PyTorch: the network of resources/models/
yolov8.yaml (Conv-BN-SiLU, C2f, SPPF, the DFL detect head), the v8 detection loss (task-aligned
assignment, BCE, CIoU, DFL), SGD with Nesterov momentum, gradient clipping at norm 10 and an EMA
copy: the work of Headroom's TrainStep, on the same random batch shape (four boxes per image),
fp32 or fp16 autocast with torch.amp.GradScaler. Prints one line per configuration:

    MODEL BATCH fp32|amp MS_PER_STEP PEAK_BYTES

Run on the GPU machine by tests/cuda/run-on-gpu.sh (its python3 has torch; nothing else is
needed). On a CPU-only torch, --device cpu runs it at a toy size (a syntax and shape check).
"""
import argparse
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768),
          "l": (1.00, 1.00, 512), "x": (1.00, 1.25, 512)}
REG_MAX = 16


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)

    def forward(self, x):
        return F.silu(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut):
        super().__init__()
        self.cv1, self.cv2 = Conv(c, c, 3), Conv(c, c, 3)
        self.add = shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, c1, c2, n, shortcut):
        super().__init__()
        self.c = c2 // 2
        self.cv1 = Conv(c1, 2 * self.c, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c, 1), Conv(4 * c, c2, 1)
        self.pool = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        y = [self.cv1(x)]
        for _ in range(3):
            y.append(self.pool(y[-1]))
        return self.cv2(torch.cat(y, 1))


class Detect(nn.Module):
    def __init__(self, nc, channels):
        super().__init__()
        self.nc, self.no = nc, nc + 4 * REG_MAX
        c2 = max(16, channels[0] // 4, 4 * REG_MAX)
        c3 = max(channels[0], min(nc, 100))
        self.box = nn.ModuleList(nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3),
                                               nn.Conv2d(c2, 4 * REG_MAX, 1)) for c in channels)
        self.cls = nn.ModuleList(nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3),
                                               nn.Conv2d(c3, nc, 1)) for c in channels)

    def init_biases(self, strides, imgsz=640):
        """Start near the prior: box logits 1, class scores ~5 objects per image."""
        with torch.no_grad():
            for b, c, s in zip(self.box, self.cls, strides):
                b[-1].bias.fill_(1.0)
                c[-1].bias.fill_(math.log(5 / self.nc / (imgsz / s) ** 2))

    def forward(self, xs):
        return [torch.cat((b(x), c(x)), 1) for x, b, c in zip(xs, self.box, self.cls)]


class YoloV8(nn.Module):
    """The rows of resources/models/yolov8.yaml, spelled out."""

    def __init__(self, scale, nc):
        super().__init__()
        depth, width, cap = SCALES[scale]
        ch = lambda c: int(math.ceil(min(c, cap) * width / 8) * 8)
        n = lambda r: max(round(r * depth), 1)
        self.b = nn.ModuleList([
            Conv(3, ch(64), 3, 2), Conv(ch(64), ch(128), 3, 2), C2f(ch(128), ch(128), n(3), True),
            Conv(ch(128), ch(256), 3, 2), C2f(ch(256), ch(256), n(6), True),
            Conv(ch(256), ch(512), 3, 2), C2f(ch(512), ch(512), n(6), True),
            Conv(ch(512), ch(1024), 3, 2), C2f(ch(1024), ch(1024), n(3), True),
            SPPF(ch(1024), ch(1024))])
        self.h12 = C2f(ch(1024) + ch(512), ch(512), n(3), False)
        self.h15 = C2f(ch(512) + ch(256), ch(256), n(3), False)
        self.h16 = Conv(ch(256), ch(256), 3, 2)
        self.h18 = C2f(ch(256) + ch(512), ch(512), n(3), False)
        self.h19 = Conv(ch(512), ch(512), 3, 2)
        self.h21 = C2f(ch(512) + ch(1024), ch(1024), n(3), False)
        self.detect = Detect(nc, [ch(256), ch(512), ch(1024)])
        self.strides = [8, 16, 32]
        self.detect.init_biases(self.strides)

    def forward(self, x):
        saved = {}
        for i, m in enumerate(self.b):
            x = m(x)
            saved[i] = x
        up = lambda t: F.interpolate(t, scale_factor=2.0, mode="nearest")
        p12 = self.h12(torch.cat((up(saved[9]), saved[6]), 1))
        p15 = self.h15(torch.cat((up(p12), saved[4]), 1))
        p18 = self.h18(torch.cat((self.h16(p15), p12), 1))
        p21 = self.h21(torch.cat((self.h19(p18), saved[9]), 1))
        return self.detect([p15, p18, p21])


def ciou(a, b, eps=1e-7):
    """Complete IoU of xyxy boxes a and b (broadcast)."""
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a.unbind(-1), b.unbind(-1)
    aw, ah = ax2 - ax1, ay2 - ay1 + eps
    bw, bh = bx2 - bx1, by2 - by1 + eps
    inter = (torch.min(ax2, bx2) - torch.max(ax1, bx1)).clamp(0) * \
        (torch.min(ay2, by2) - torch.max(ay1, by1)).clamp(0)
    union = aw * ah + bw * bh - inter + eps
    iou = inter / union
    cw = torch.max(ax2, bx2) - torch.min(ax1, bx1)
    chh = torch.max(ay2, by2) - torch.min(ay1, by1)
    c2 = cw ** 2 + chh ** 2 + eps
    rho2 = ((bx1 + bx2 - ax1 - ax2) ** 2 + (by1 + by2 - ay1 - ay2) ** 2) / 4
    v = (4 / math.pi ** 2) * (torch.atan(bw / bh) - torch.atan(aw / ah)).pow(2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)


@torch.no_grad()
def assign(scores, boxes, anchors, labels, gt, mask_gt, topk=10, alpha=0.5, beta=6.0, eps=1e-9):
    """Task-aligned assignment: per ground truth the topk anchors inside it by
    score^alpha * IoU^beta; an anchor claimed twice goes to the higher IoU."""
    b, a, nc = scores.shape
    m = gt.shape[1]
    if m == 0:
        return (torch.zeros_like(boxes), torch.zeros_like(scores),
                torch.zeros(b, a, dtype=torch.bool, device=scores.device))
    lt, rb = gt[..., None, :2], gt[..., None, 2:]
    inside = torch.cat((anchors[None, None] - lt, rb - anchors[None, None]), -1).amin(-1) > eps
    valid = inside & mask_gt.bool()
    overlaps = torch.zeros(b, m, a, dtype=boxes.dtype, device=boxes.device)
    cls_scores = torch.zeros_like(overlaps)
    bi = torch.arange(b, device=scores.device)[:, None].expand(b, m)
    gathered = scores[bi, :, labels.long().squeeze(-1)]  # b, m, a
    cls_scores[valid] = gathered[valid]
    pd = boxes[:, None].expand(b, m, a, 4)[valid]
    gg = gt[:, :, None].expand(b, m, a, 4)[valid]
    overlaps[valid] = ciou(gg, pd).clamp_(0).to(overlaps.dtype)
    metric = cls_scores.pow(alpha) * overlaps.pow(beta)
    top = metric.topk(topk, dim=-1).indices
    count = torch.zeros_like(metric, dtype=torch.int8).scatter_add_(
        -1, top, torch.ones_like(top, dtype=torch.int8))
    pos = (count == 1) & valid
    # An anchor inside several ground truths keeps the one it overlaps most.
    fg = pos.sum(-2)
    if fg.max() > 1:
        many = (fg > 1)[:, None].expand(b, m, a)
        best = F.one_hot(overlaps.argmax(1), m).permute(0, 2, 1).bool()
        pos = torch.where(many, best, pos)
        fg = pos.sum(-2)
    gt_index = pos.float().argmax(-2)  # b, a
    flat = gt_index + torch.arange(b, device=gt.device)[:, None] * m
    target_labels = labels.long().flatten()[flat]
    target_boxes = gt.view(-1, 4)[flat]
    target_scores = F.one_hot(target_labels.clamp(0), nc) * (fg > 0)[..., None]
    metric = metric * pos
    norm = (metric * overlaps.amax(-1, keepdim=True)
            / (metric.amax(-1, keepdim=True) + eps)).amax(-2)[..., None]
    return target_boxes, target_scores * norm, fg > 0


def anchors_for(feats, strides):
    points, stride = [], []
    for f, s in zip(feats, strides):
        h, w = f.shape[2:]
        y, x = torch.meshgrid(torch.arange(h, device=f.device) + 0.5,
                              torch.arange(w, device=f.device) + 0.5, indexing="ij")
        points.append(torch.stack((x, y), -1).view(-1, 2))
        stride.append(torch.full((h * w, 1), float(s), device=f.device))
    return torch.cat(points), torch.cat(stride)


def detection_loss(feats, targets, nc, imgsz, strides):
    b = feats[0].shape[0]
    pred = torch.cat([f.view(b, nc + 4 * REG_MAX, -1) for f in feats], 2)
    distri, scores = pred.split((4 * REG_MAX, nc), 1)
    distri, scores = distri.permute(0, 2, 1).contiguous(), scores.permute(0, 2, 1).contiguous()
    anchors, stride = anchors_for(feats, strides)
    # Ground truth as (b, max boxes, 5): class, xyxy in pixels.
    index = targets[:, 0].long()
    counts = torch.bincount(index, minlength=b)
    gt = torch.zeros(b, int(counts.max()), 5, device=targets.device)
    slot = torch.cat([torch.arange(int(c), device=targets.device) for c in counts])
    xywh = targets[:, 2:6] * imgsz
    gt[index, slot] = torch.cat((targets[:, 1:2], xywh[:, :2] - xywh[:, 2:] / 2,
                                 xywh[:, :2] + xywh[:, 2:] / 2), 1)
    labels, gt_boxes = gt[..., :1], gt[..., 1:]
    mask_gt = gt_boxes.sum(-1, keepdim=True) > 0
    bins = torch.arange(REG_MAX, device=pred.device, dtype=torch.float)
    ltrb = distri.view(b, -1, 4, REG_MAX).softmax(3).matmul(bins)
    boxes = torch.cat((anchors - ltrb[..., :2], anchors + ltrb[..., 2:]), -1)
    target_boxes, target_scores, fg = assign(scores.detach().sigmoid(),
                                             (boxes.detach() * stride).type(gt_boxes.dtype),
                                             anchors * stride, labels, gt_boxes, mask_gt)
    total = max(target_scores.sum(), 1)
    cls = F.binary_cross_entropy_with_logits(scores, target_scores.to(scores.dtype),
                                             reduction="sum") / total
    box = dfl = torch.zeros((), device=pred.device)
    if fg.any():
        weight = target_scores.sum(-1)[fg][:, None]
        tb = target_boxes / stride
        box = ((1 - ciou(boxes[fg], tb[fg])[:, None]) * weight).sum() / total
        dist = torch.cat((anchors - tb[..., :2], tb[..., 2:] - anchors), -1)
        dist = dist.clamp_(0, REG_MAX - 1 - 0.01)[fg]
        left = dist.long()
        wl = left + 1 - dist
        logits = distri[fg].view(-1, REG_MAX)
        ce = (F.cross_entropy(logits, left.view(-1), reduction="none").view(left.shape) * wl +
              F.cross_entropy(logits, (left + 1).view(-1), reduction="none").view(left.shape) *
              (1 - wl)).mean(-1, keepdim=True)
        dfl = (ce * weight).sum() / total
    return (box * 7.5 + cls * 0.5 + dfl * 1.5) * b


def optimizer_for(model, lr=0.01, momentum=0.937, decay=5e-4):
    """SGD in three groups: conv weights with decay, norm weights and biases without."""
    decayed, norms, biases = [], [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if name == "bias":
                biases.append(p)
            elif isinstance(module, nn.BatchNorm2d):
                norms.append(p)
            else:
                decayed.append(p)
    opt = torch.optim.SGD(biases, lr=lr, momentum=momentum, nesterov=True)
    opt.add_param_group({"params": decayed, "weight_decay": decay})
    opt.add_param_group({"params": norms, "weight_decay": 0.0})
    return opt


def run(scale, batch, amp, steps, imgsz, nc, device):
    torch.manual_seed(0)
    model = YoloV8(scale, nc).to(device).train()
    ema = YoloV8(scale, nc).to(device).eval()
    ema.load_state_dict(model.state_dict())
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = optimizer_for(model)
    if hasattr(torch.amp, "GradScaler"):  # torch >= 2.3
        scaler = torch.amp.GradScaler(device.type, enabled=amp)
    else:
        scaler = torch.cuda.amp.GradScaler(enabled=amp)
    images = torch.rand(batch, 3, imgsz, imgsz)  # host batch, copied each step as Headroom does
    boxes = batch * 4
    targets = torch.cat((torch.arange(batch).repeat_interleave(4)[:, None].float(),
                         torch.randint(nc, (boxes, 1)).float(),
                         torch.rand(boxes, 2) * 0.6 + 0.2, torch.rand(boxes, 2) * 0.2 + 0.05), 1)
    updates = 0

    def step():
        nonlocal updates
        x = images.to(device, non_blocking=True)
        t = targets.to(device)
        if amp:
            with torch.autocast(device.type, dtype=torch.float16):
                feats = model(x)
        else:
            feats = model(x)
        loss = detection_loss([f.float() for f in feats], t, nc, imgsz, model.strides)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        updates += 1
        d = 0.9999 * (1 - math.exp(-updates / 2000))
        with torch.no_grad():
            msd = model.state_dict()
            for k, v in ema.state_dict().items():
                if v.dtype.is_floating_point:
                    v.mul_(d).add_(msd[k].detach(), alpha=1 - d)
        return loss.detach()

    for _ in range(3):
        step()
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    sync()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    sync()
    ms = (time.perf_counter() - t0) * 1000 / steps
    peak = torch.cuda.max_memory_allocated() if device.type == "cuda" else 0
    if not torch.isfinite(loss):
        print(f"non-finite loss for yolov8{scale}", file=sys.stderr)
    return ms, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="yolov8n, yolov8s, ...")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = False  # as LibTorch's default
    for name in args.models:
        for amp in ((False, True) if device.type == "cuda" else (False,)):
            ms, peak = run(name[-1], args.batch, amp, args.steps, args.imgsz, 80, device)
            print(f"{name} {args.batch} {'amp' if amp else 'fp32'} {ms:.2f} {peak}", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
