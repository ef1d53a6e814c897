// SPDX-License-Identifier: GPL-3.0-or-later
#include "advisor/fix_cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace hr::fixcost {

namespace {

std::string oneDecimal(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    return buffer;
}

std::string percent(double factor) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.0f%%", (factor - 1.0) * 100.0);
    return buffer;
}

/// A figure's basis with one clause: its kind and values for a UI, `detail` for the CLI.
/// The kinds (values): batch_overhead_published (percent), batch_overhead_assumed (percent),
/// published_accumulate (-), published_small_batch (-), published_amp_time (-),
/// amp_cpu_assumed (-), published_amp_map (-), amp_cpu_unpublished (-), checkpoint_flops
/// (percent), tested_same_gradients (-), pixel_flops (percent), object_sizes (-),
/// unknown_scale (-), published_gflops (to, from), published_map (to, from), freeze_flops
/// (percent), depends_on_data (-), optimizer_step_small (-), depends_on_lr (-),
/// offload_host_copies (-), offload_cpu_same_ram (-), same_arithmetic (-),
/// validation_small (-), same_arithmetic_per_image (-), assign_passes (passes, passes now,
/// ms per pass, ms per step, percent), identical_targets (-), cache_release (-),
/// ddp_scaling (-), not_measured (-), decode_again (-), same_images (-),
/// loader_bottleneck (-), mosaic_small (-).
FigureBasis basis(FigureSource source, std::string kind, std::vector<std::string> args,
                  const std::string& detail) {
    return figureBasis(source, std::move(kind), std::move(args), detail);
}

/// A rule's whole effect: its speed and accuracy figures, each with its source.
FixEffect effect(double speedFactor, FigureBasis speedBasis, int accuracyCost,
                 std::string accuracyEffect, FigureBasis accuracyBasis) {
    FixEffect e;
    e.speedFactor = speedFactor;
    e.speedBasis = std::move(speedBasis);
    e.accuracyCost = accuracyCost;
    e.accuracyEffect = std::move(accuracyEffect);
    e.accuracyBasis = std::move(accuracyBasis);
    return e;
}

// The published strategy table (YOLOv9-c, RTX-class GPUs) that the design notes reproduce.
constexpr const char* kStrategyTable = "the published YOLOv9-c memory-strategy table";

// Step time modelled as T(b) = c0 + c1 * b: a fixed per-step cost c0 (kernel launches, the
// loss' per-batch work) plus a per-image cost c1. kStepOverheadImages = c0 / c1.
//  - CUDA: fitted to the published YOLOv9-c table (batch 16: 18 min/epoch, batch 4 +
//    accumulate 4: 21 min/epoch): (r/4 + 1) / (r/16 + 1) = 21/18  ->  r = 0.94.
//  - CPU: an assumption (GEMM/conv kernels stay efficient at small batches). The estimator's
//    timed probe steps replace it wherever they ran.
constexpr double kStepOverheadImagesCuda = 0.94;
constexpr double kStepOverheadImagesCpu = 0.5;

// AMP.
//  - CUDA fp16: the published YOLOv9-c table: batch 4 + accumulate 4 at 21 min vs batch 4 + AMP
//    at 15 min -> 0.71.
//  - CPU bf16 (autocast on CPU): an assumption (bf16 kernels of oneDNN are not always faster
//    than fp32 for small convolutions); timed probe steps replace it.
constexpr double kAmpSpeedCuda = 0.71;
constexpr double kAmpSpeedCpu = 1.25;

// Gradient checkpointing recomputes the forward of the wrapped blocks once in backward. With
// backward costing about twice the forward (gradients w.r.t. inputs and weights, the usual
// FLOP count), one extra forward of everything adds 1/3 of the step; the backbone holds about
// half of yolov8's forward FLOPs (the counts per layer in Ultralytics' model summary), so
// checkpointing it adds about 1/6.
constexpr double kCheckpointAll = 1.0 + 1.0 / 3.0;
constexpr double kBackboneForwardShare = 0.5;
constexpr double kCheckpointBackbone = 1.0 + kBackboneForwardShare / 3.0;

// Chunked assignment: every extra slice of the assigner runs its ~30 tensor operations once
// more (the arithmetic over boxes x anchors is the same): a fixed cost per operation plus the
// per-anchor running reductions over images x anchors values. From `headroom-cli bench loss` on
// the developers' CPU (1 thread, 160 boxes per image, assign_chunk auto/40/10/1, the slope of
// loss time against slices) and the training step's CPU time at the same settings; on another
// machine, or on CUDA, these are assumptions:
//   yolov8n 256 px batch 2  (images x anchors   2688): 0.215 ms per slice, step 130.0 ms
//   yolov8n 416 px batch 16 (images x anchors  56784): 1.274 ms per slice, step 2680.8 ms
// One more slice costs kSliceFixedMs + kSliceNsPerValue x images x anchors; a yolov8n step
// costs kStepNsPerValue x images x anchors (x the model's GFLOPs over yolov8n's for others).
constexpr double kSliceFixedMs = 0.162;
constexpr double kSliceNsPerValue = 19.6;
constexpr double kStepNsPerValue = 47800.0;

// Published COCO val2017 figures at 640 px (Ultralytics' model tables): mAP50-95 and GFLOPs.
struct ScaleFigures {
    char scale;
    double map;
    double gflops;
};
constexpr ScaleFigures kYolov8[] = {
    {'n', 37.3, 8.7}, {'s', 44.9, 28.6}, {'m', 50.2, 78.9}, {'l', 52.9, 165.2}, {'x', 53.9, 257.8}};
constexpr ScaleFigures kYolov9[] = {
    {'t', 38.3, 7.7}, {'s', 46.8, 26.4}, {'m', 51.4, 76.3}, {'c', 53.0, 102.1}, {'e', 55.6, 189.0}};

const ScaleFigures* findScale(int family, char scale) {
    const ScaleFigures* table = family == 9 ? kYolov9 : kYolov8;
    for (int i = 0; i < 5; ++i)
        if (table[i].scale == scale)
            return &table[i];
    return nullptr;
}

} // namespace

FixEffect smallerBatch(int fromBatch, int toBatch, bool cuda) {
    const double r = cuda ? kStepOverheadImagesCuda : kStepOverheadImagesCpu;
    FixEffect e;
    e.speedFactor = (r / toBatch + 1.0) / (r / fromBatch + 1.0);
    e.speedBasis =
        cuda ? basis(FigureSource::Published, "batch_overhead_published", {percent(e.speedFactor)},
                     std::string("per-step overhead fitted to the batch 16 vs batch "
                                 "4 + accumulate 4 epoch times of ") +
                         kStrategyTable + " (" + percent(e.speedFactor) + ")")
             : basis(FigureSource::Assumption, "batch_overhead_assumed", {percent(e.speedFactor)},
                     "assumed per-step overhead of half an image's time (" +
                         percent(e.speedFactor) + "), not measured here");
    if (toBatch >= 4) {
        e.accuracyCost = 0;
        e.accuracyEffect = "same mAP within noise: accumulation keeps the nominal batch "
                           "(published: batch 4 + accumulate 4 mAP50 0.679 vs 0.682)";
        e.accuracyBasis = basis(FigureSource::Published, "published_accumulate", {},
                                std::string(kStrategyTable) +
                                    ": batch 4 + accumulate 4 mAP50 0.679 vs batch 16 0.682");
    } else {
        e.accuracyCost = 1;
        e.accuracyEffect = "slightly lower mAP possible: BatchNorm statistics over " +
                           std::to_string(toBatch) +
                           " image(s) are noisy (published: batch 2 + AMP + accumulate 8 "
                           "mAP50 0.675 vs 0.682)";
        e.accuracyBasis = basis(FigureSource::Published, "published_small_batch", {},
                                std::string(kStrategyTable) +
                                    ": batch 2 + AMP + accumulate 8 mAP50 0.675 vs batch 16 0.682");
    }
    return e;
}

FixEffect amp(bool cuda) {
    FixEffect e;
    e.speedFactor = cuda ? kAmpSpeedCuda : kAmpSpeedCpu;
    e.speedBasis = cuda ? basis(FigureSource::Published, "published_amp_time", {},
                                std::string(kStrategyTable) +
                                    ": batch 4 + AMP 15 min vs batch 4 + accumulate 4 21 min")
                        : basis(FigureSource::Assumption, "amp_cpu_assumed", {},
                                "assumed for bf16 autocast on CPU, not measured here");
    e.accuracyCost = 1;
    e.accuracyEffect = cuda ? "mAP within noise in published runs (0.680 vs 0.682); fp16 "
                              "needs loss scaling, which the trainer does"
                            : "bf16 keeps fp32's range but 8 bits of mantissa; its mAP effect "
                              "on YOLO is not measured";
    e.accuracyBasis =
        cuda ? basis(FigureSource::Published, "published_amp_map", {},
                     std::string(kStrategyTable) + ": batch 4 + AMP mAP50 0.680 vs 0.682")
             : basis(FigureSource::NotMeasured, "amp_cpu_unpublished", {},
                     "no published YOLO figure for bf16 on CPU; not measured here");
    return e;
}

FixEffect checkpointing(Checkpointing from, Checkpointing to) {
    auto cost = [](Checkpointing c) {
        return c == Checkpointing::All        ? kCheckpointAll
               : c == Checkpointing::Backbone ? kCheckpointBackbone
                                              : 1.0;
    };
    FixEffect e;
    e.speedFactor = cost(to) / cost(from);
    e.speedBasis = basis(FigureSource::FlopCount, "checkpoint_flops", {percent(e.speedFactor)},
                         "one extra forward of the wrapped blocks, backward counted as 2 x "
                         "forward FLOPs, the backbone as half of the forward (" +
                             percent(e.speedFactor) + ")");
    e.accuracyCost = 0;
    e.accuracyEffect = "none: the same computation, recomputed (BatchNorm statistics are "
                       "updated once)";
    e.accuracyBasis = basis(FigureSource::Assumption, "tested_same_gradients", {},
                            "the same arithmetic (gradients tested equal), not an mAP "
                            "measurement");
    return e;
}

FixEffect smallerImage(int fromImgsz, int toImgsz) {
    FixEffect e;
    const double ratio = static_cast<double>(toImgsz) / fromImgsz;
    e.speedFactor = ratio * ratio;
    e.speedBasis =
        basis(FigureSource::FlopCount, "pixel_flops", {percent(e.speedFactor)},
              "convolution FLOPs scale with the pixel count (" + percent(e.speedFactor) + ")");
    e.accuracyCost = 2;
    e.accuracyEffect = "lower recall on small objects: every object shrinks to " +
                       std::to_string(static_cast<int>(std::lround(ratio * 100))) +
                       "% of its size, and ones under ~8 px vanish at stride 8";
    e.accuracyBasis = basis(FigureSource::NotMeasured, "object_sizes", {},
                            "depends on this data set's object sizes; not measured");
    return e;
}

FixEffect smallerScale(int family, char fromScale, char toScale) {
    FixEffect e;
    e.accuracyCost = 3;
    const ScaleFigures* from = findScale(family, fromScale);
    const ScaleFigures* to = findScale(family, toScale);
    if (!from || !to) {
        e.speedBasis =
            basis(FigureSource::NotMeasured, "unknown_scale", {}, "unknown scale: no figures");
        e.accuracyEffect = "a smaller model learns less; training restarts from scratch";
        e.accuracyBasis =
            basis(FigureSource::NotMeasured, "unknown_scale", {}, "unknown scale: no figures");
        return e;
    }
    e.speedFactor = to->gflops / from->gflops;
    char flops[160];
    std::snprintf(flops, sizeof flops,
                  "GFLOPs %.1f vs %.1f at 640 px, from Ultralytics' published model table",
                  to->gflops, from->gflops);
    e.speedBasis = basis(FigureSource::FlopCount, "published_gflops",
                         {oneDecimal(to->gflops), oneDecimal(from->gflops)}, flops);
    char buffer[200];
    std::snprintf(buffer, sizeof buffer,
                  "published COCO mAP50-95 %.1f vs %.1f; training restarts from scratch "
                  "(the learned weights do not fit another size)",
                  to->map, from->map);
    e.accuracyEffect = buffer;
    std::snprintf(buffer, sizeof buffer,
                  "Ultralytics' published COCO val2017 mAP50-95 at 640 px: %.1f vs %.1f", to->map,
                  from->map);
    e.accuracyBasis = basis(FigureSource::Published, "published_map",
                            {oneDecimal(to->map), oneDecimal(from->map)}, buffer);
    return e;
}

FixEffect freezeBackbone(bool pretrained) {
    FixEffect e;
    // Backward through a frozen backbone at the start of the network is skipped entirely:
    // its share of backward (about half of 2/3 of the step, see kBackboneForwardShare) goes.
    e.speedFactor = 1.0 - kBackboneForwardShare * 2.0 / 3.0;
    e.speedBasis = basis(FigureSource::FlopCount, "freeze_flops", {percent(e.speedFactor)},
                         "no backward through the backbone, counted as half of the forward "
                         "and 2 x forward in backward (" +
                             percent(e.speedFactor) + ")");
    if (pretrained) {
        e.accuracyCost = 2;
        e.accuracyEffect = "the backbone keeps its pretrained features (usual fine-tuning "
                           "practice); lower mAP when the data differs from the pretraining set";
    } else {
        e.accuracyCost = 3;
        e.accuracyEffect = "the backbone stops learning where it is now; from scratch this "
                           "costs much accuracy";
    }
    e.accuracyBasis = basis(FigureSource::NotMeasured, "depends_on_data", {},
                            "depends on the data set; not measured");
    return e;
}

FixEffect sgdInsteadOfAdam() {
    return effect(
        1.0,
        basis(FigureSource::Assumption, "optimizer_step_small", {},
              "assumed: the optimizer step is a small part of a step"),
        2,
        "different dynamics: SGD usually needs a higher lr0 (Ultralytics' auto rule uses SGD lr "
        "0.01 for long runs, AdamW for short ones)",
        basis(FigureSource::NotMeasured, "depends_on_lr", {},
              "depends on lr0 and the data; not measured"));
}

FixEffect optimizerOffload(bool cuda) {
    // On CUDA: gradients go to the host and weights come back each optimizer step, and the
    // update runs on the CPU.
    return effect(cuda ? 1.15 : 1.0,
                  cuda ? basis(FigureSource::Assumption, "offload_host_copies", {},
                               "assumed +15% for host copies and a CPU update per step")
                       : basis(FigureSource::Assumption, "offload_cpu_same_ram", {},
                               "on CPU the state stays in the same RAM, only outside the budget"),
                  0, "none: the same update, computed elsewhere",
                  basis(FigureSource::Assumption, "same_arithmetic", {}, "the same arithmetic"));
}

FixEffect smallerValidationBatch() {
    return effect(1.0,
                  basis(FigureSource::Assumption, "validation_small", {},
                        "assumed: training untouched, validation a small part of an epoch"),
                  0, "none: validation results do not depend on its batch",
                  basis(FigureSource::Assumption, "same_arithmetic_per_image", {},
                        "the same arithmetic per image"));
}

FixEffect chunkedAssignment(int fromBoxes, int toBoxes, int objects, std::int64_t images,
                            std::int64_t anchors, int family, char scale) {
    auto slices = [objects](int boxes) {
        const int per = std::max(boxes, 1);
        return (std::max(objects, 1) + per - 1) / per;
    };
    const int extra = std::max(0, slices(toBoxes) - slices(fromBoxes));
    const double values =
        double(std::max<std::int64_t>(images, 1)) * double(std::max<std::int64_t>(anchors, 1));
    // Larger models' steps take longer in proportion to their FLOPs; the assigner does not.
    const ScaleFigures* figures = findScale(family, scale);
    const double smallest = (family == 9 ? kYolov9 : kYolov8)[0].gflops;
    const double modelFactor = figures ? figures->gflops / smallest : 1.0;
    const double sliceMs = kSliceFixedMs + kSliceNsPerValue * values * 1e-6;
    const double stepMs = kStepNsPerValue * values * 1e-6 * modelFactor;
    FixEffect e;
    e.speedFactor = 1.0 + extra * sliceMs / stepMs;
    char perSlice[64];
    std::snprintf(perSlice, sizeof perSlice, "%.2f ms", sliceMs);
    e.speedBasis = basis(
        FigureSource::Assumption, "assign_passes",
        {std::to_string(slices(toBoxes)), std::to_string(slices(fromBoxes)), perSlice,
         std::to_string(std::lround(stepMs)), percent(e.speedFactor)},
        "the same arithmetic in " + std::to_string(slices(toBoxes)) + " passes instead of " +
            std::to_string(slices(fromBoxes)) + "; each more pass assumed to cost ~" + perSlice +
            " against a step of ~" + std::to_string(std::lround(stepMs)) +
            " ms (bench loss on the developers' CPU, 1 thread; " + percent(e.speedFactor) + ")");
    e.accuracyCost = 0;
    e.accuracyEffect = "no accuracy effect: same targets (each slice's results are combined "
                       "exactly; tested against one pass over all boxes)";
    e.accuracyBasis =
        basis(FigureSource::Assumption, "identical_targets", {}, "identical targets (tested)");
    return e;
}

FixEffect releaseCachedBlocks() {
    return effect(1.0,
                  basis(FigureSource::Assumption, "cache_release", {},
                        "assumed: one cache release, refilled as it goes"),
                  0, "none",
                  basis(FigureSource::Assumption, "same_arithmetic", {}, "the same arithmetic"));
}

FixEffect distributed(int devices) {
    return effect(devices > 1 ? 1.1 / devices : 1.0,
                  basis(FigureSource::Assumption, "ddp_scaling", {},
                        "assumed ideal data-parallel scaling plus 10% for the all-reduce"),
                  0, "same nominal batch; BatchNorm statistics per device unless sync_bn",
                  basis(FigureSource::NotMeasured, "not_measured", {}, "not measured"));
}

FixEffect noImageCache() {
    // Decoding images again each epoch costs little when the loader keeps ahead of the model.
    return effect(1.1,
                  basis(FigureSource::Assumption, "decode_again", {},
                        "assumed +10%: images are decoded again every epoch"),
                  0, "none", basis(FigureSource::Assumption, "same_images", {}, "the same images"));
}

FixEffect fewerWorkers(int fromWorkers, int toWorkers) {
    return effect(1.0,
                  basis(FigureSource::Assumption, "loader_bottleneck", {},
                        "assumed: slower only when the loader is the bottleneck"),
                  0,
                  "none (" + std::to_string(fromWorkers) + " -> " + std::to_string(toWorkers) +
                      " loader threads)",
                  basis(FigureSource::Assumption, "same_images", {}, "the same images"));
}

FixEffect mosaicOff() {
    return effect(1.0,
                  basis(FigureSource::Assumption, "mosaic_small", {},
                        "assumed: mosaic's assembly is a small part of loading"),
                  2,
                  "less augmentation: mosaic is one of YOLO's main augmentations (Ultralytics "
                  "turns it off only for the last close_mosaic epochs)",
                  basis(FigureSource::NotMeasured, "not_measured", {}, "not measured"));
}

FigureBasis combined(const std::vector<FigureBasis>& parts) {
    auto certainty = [](FigureSource source) {
        switch (source) {
        case FigureSource::NotMeasured:
            return 0;
        case FigureSource::Assumption:
            return 1;
        case FigureSource::FlopCount:
        case FigureSource::Published:
            return 2;
        case FigureSource::MeasuredHere:
            return 3;
        }
        return 0;
    };
    FigureBasis out;
    bool first = true;
    for (const FigureBasis& part : parts) {
        if (first || certainty(part.source) < certainty(out.source))
            out.source = part.source;
        if (!part.detail.empty())
            out.detail += (out.detail.empty() ? "" : "; ") + part.detail;
        out.parts.insert(out.parts.end(), part.parts.begin(), part.parts.end());
        first = false;
    }
    return out;
}

} // namespace hr::fixcost
