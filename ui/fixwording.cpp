// SPDX-License-Identifier: GPL-3.0-or-later
#include "fixwording.h"

#include "bytestext.h"
#include "language.h"

#include <QStringList>

namespace hr::ui {

namespace {

QString value(const FixPart& part, const char* key) {
    return QString::fromStdString(part.value(key));
}

bool flag(const FixPart& part, const char* key) {
    return part.value(key) == "1";
}

QString bytesValue(const FixPart& part, const char* key) {
    return bytesText(value(part, key).toLongLong());
}

/// One lever's title; empty for a lever this UI does not know.
QString partTitle(const FixPart& p) {
    const std::string& lever = p.lever;
    if (lever == "batch")
        return FixWording::tr("batch %1 + accumulate %2 (nominal batch %3)")
            .arg(value(p, "batch"), value(p, "accumulate"), value(p, "nominal"));
    if (lever == "amp")
        return flag(p, "cuda") ? FixWording::tr("AMP (fp16 with loss scaling)")
                               : FixWording::tr("AMP (bf16 autocast)");
    if (lever == "checkpointing")
        return p.value("mode") == "all" ? FixWording::tr("gradient checkpointing of all blocks")
                                        : FixWording::tr("gradient checkpointing of the backbone");
    if (lever == "imgsz")
        return FixWording::tr("image size %1").arg(value(p, "imgsz"));
    if (lever == "freeze")
        return FixWording::tr("freeze the backbone (layers 0-%1)").arg(value(p, "last_layer"));
    if (lever == "scale")
        return FixWording::tr("model scale %1 instead of %2").arg(value(p, "to"), value(p, "from"));
    if (lever == "sgd")
        return p.value("from") == "auto"
                   ? FixWording::tr("SGD instead of auto (AdamW for short runs)")
                   : FixWording::tr("SGD instead of %1").arg(value(p, "from"));
    if (lever == "offload")
        return FixWording::tr("optimizer state in host memory");
    if (lever == "val_batch")
        return FixWording::tr("validation batch %1").arg(value(p, "val_batch"));
    if (lever == "assign_chunk")
        return FixWording::tr("chunked assignment: %1 boxes at a time (now %2)")
            .arg(value(p, "boxes"), value(p, "now"));
    if (lever == "ddp")
        return FixWording::tr("%1 devices, data parallel, optimizer state sharded")
            .arg(value(p, "devices"));
    if (lever == "release_cache")
        return FixWording::tr("release cached blocks and retry");
    if (lever == "host_cache")
        return FixWording::tr("host fix: image cache on disk instead of RAM");
    if (lever == "host_workers")
        return FixWording::tr("host fix: %1 loader workers instead of %2")
            .arg(value(p, "workers"), value(p, "from"));
    if (lever == "host_mosaic")
        return flag(p, "mixup") ? FixWording::tr("host fix: mosaic and mixup off")
                                : FixWording::tr("host fix: mosaic off");
    return {};
}

QString partReason(const FixPart& p) {
    const std::string& lever = p.lever;
    if (lever == "batch")
        return FixWording::tr(
                   "activations scale with the batch; accumulating %1 steps keeps the nominal "
                   "batch")
                   .arg(value(p, "accumulate")) +
               (flag(p, "val_follows") ? FixWording::tr(" (validation's batch shrinks with it)")
                                       : QString());
    if (lever == "amp")
        return FixWording::tr("activations are kept in 16 bits instead of 32");
    if (lever == "checkpointing")
        return FixWording::tr(
            "wrapped blocks keep only their inputs and recompute the rest in backward");
    if (lever == "imgsz")
        return FixWording::tr("activations scale with the pixel count (%1% of now)")
            .arg(value(p, "pixels_percent"));
    if (lever == "freeze")
        return FixWording::tr(
            "no gradients, optimizer state or saved activations for the backbone");
    if (lever == "scale")
        return FixWording::tr("fewer and narrower layers: less of everything");
    if (lever == "sgd")
        return FixWording::tr("SGD keeps one state tensor per weight (momentum), Adam/AdamW two");
    if (lever == "offload")
        return FixWording::tr("the optimizer state leaves the device");
    if (lever == "val_batch")
        return FixWording::tr("validation activations scale with its batch (now %1)")
            .arg(value(p, "now"));
    if (lever == "assign_chunk") {
        const QString objects =
            p.value("objects") == "0"
                ? FixWording::tr("the data set's boxes per image are unknown")
                : FixWording::tr("up to %1 boxes per image").arg(value(p, "objects"));
        return FixWording::tr("the label assigner compares each box with all %1 anchors of every "
                              "image at once; %2, taken %3 at a time, need %4× less for its "
                              "temporaries")
            .arg(value(p, "anchors"), objects, value(p, "boxes"), value(p, "less"));
    }
    if (lever == "ddp")
        return FixWording::tr("each device holds 1/%1 of the batch and of the optimizer state")
            .arg(value(p, "devices"));
    if (lever == "release_cache")
        return FixWording::tr("the allocator held %1 in cached blocks that the failed request "
                              "could not use (fragmentation); the step itself needed %2")
            .arg(bytesValue(p, "cached"), bytesValue(p, "need"));
    if (lever == "host_cache")
        return FixWording::tr("the decoded images of the whole data set leave host RAM");
    if (lever == "host_workers")
        return FixWording::tr("each worker holds batches being prepared in host RAM");
    if (lever == "host_mosaic")
        return FixWording::tr("mosaic assembles a 2 × imgsz canvas from four images per sample");
    return {};
}

QString partAccuracy(const FixPart& p) {
    const std::string& lever = p.lever;
    if (lever == "batch")
        return p.accuracyCost == 0
                   ? FixWording::tr("same mAP within noise: accumulation keeps the nominal batch")
                   : FixWording::tr("slightly lower mAP possible: BatchNorm statistics over %1 "
                                    "images are noisy")
                         .arg(value(p, "batch"));
    if (lever == "amp")
        return flag(p, "cuda")
                   ? FixWording::tr("mAP within noise in published runs; fp16 needs loss "
                                    "scaling, which the trainer does")
                   : FixWording::tr("bf16 keeps fp32's range but 8 bits of mantissa: mAP within "
                                    "noise in published mixed-precision runs");
    if (lever == "checkpointing")
        return FixWording::tr(
            "none: the same computation, recomputed (BatchNorm statistics are updated once)");
    if (lever == "imgsz")
        return FixWording::tr("lower recall on small objects: every object shrinks to %1% of "
                              "its size, and ones under ~8 px vanish at stride 8")
            .arg(value(p, "side_percent"));
    if (lever == "freeze")
        return flag(p, "pretrained")
                   ? FixWording::tr("the backbone keeps its pretrained features (usual "
                                    "fine-tuning practice); lower mAP when the data differs "
                                    "from the pretraining set")
                   : FixWording::tr("the backbone stops learning where it is now; from scratch "
                                    "this costs much accuracy");
    if (lever == "scale")
        return FixWording::tr("a smaller model learns less; training restarts from scratch (the "
                              "learned weights do not fit another size)");
    if (lever == "sgd")
        return FixWording::tr("different dynamics: SGD usually needs a higher lr0 (Ultralytics' "
                              "auto rule uses SGD for long runs, AdamW for short ones)");
    if (lever == "offload")
        return FixWording::tr("none: the same update, computed elsewhere");
    if (lever == "val_batch")
        return FixWording::tr("none: validation results do not depend on its batch");
    if (lever == "assign_chunk")
        return FixWording::tr(
            "no accuracy effect: the same targets (the slices' results are combined exactly)");
    if (lever == "ddp")
        return FixWording::tr("same nominal batch; BatchNorm statistics per device unless sync_bn");
    if (lever == "host_mosaic")
        return FixWording::tr("less augmentation: mosaic is one of YOLO's main augmentations "
                              "(Ultralytics turns it off only for the last close_mosaic epochs)");
    if (lever == "release_cache" || lever == "host_cache" || lever == "host_workers")
        return FixWording::tr("none");
    return {};
}

/// One clause of a figure's detail (FigureDetail, kinds listed in fix_cost_model.cpp and
/// fix_search.cpp); empty for a kind this UI does not know.
QString detailClause(const FigureDetail& d) {
    const auto arg = [&d](std::size_t i) {
        return i < d.args.size() ? QString::fromStdString(d.args[i]) : QString();
    };
    const std::string& k = d.kind;
    const QString table = FixWording::tr("the published YOLOv9-c memory-strategy table");
    if (k == "batch_overhead_published")
        return FixWording::tr("per-step overhead fitted to the batch 16 vs batch 4 + accumulate 4 "
                              "epoch times of %1 (%2)")
            .arg(table, arg(0));
    if (k == "batch_overhead_assumed")
        return FixWording::tr("assumed per-step overhead of half an image's time (%1), not "
                              "measured here")
            .arg(arg(0));
    if (k == "published_accumulate")
        return FixWording::tr("%1: batch 4 + accumulate 4 mAP50 0.679 vs batch 16 0.682")
            .arg(table);
    if (k == "published_small_batch")
        return FixWording::tr("%1: batch 2 + AMP + accumulate 8 mAP50 0.675 vs batch 16 0.682")
            .arg(table);
    if (k == "published_amp_time")
        return FixWording::tr("%1: batch 4 + AMP 15 min vs batch 4 + accumulate 4 21 min")
            .arg(table);
    if (k == "amp_cpu_assumed")
        return FixWording::tr("assumed for bf16 autocast on CPU, not measured here");
    if (k == "published_amp_map")
        return FixWording::tr("%1: batch 4 + AMP mAP50 0.680 vs 0.682").arg(table);
    if (k == "amp_cpu_unpublished")
        return FixWording::tr("no published YOLO figure for bf16 on CPU; not measured here");
    if (k == "checkpoint_flops")
        return FixWording::tr("one extra forward of the wrapped blocks, backward counted as 2 × "
                              "forward FLOPs, the backbone as half of the forward (%1)")
            .arg(arg(0));
    if (k == "tested_same_gradients")
        return FixWording::tr("the same arithmetic (gradients tested equal), not an mAP "
                              "measurement");
    if (k == "pixel_flops")
        return FixWording::tr("convolution FLOPs scale with the pixel count (%1)").arg(arg(0));
    if (k == "object_sizes")
        return FixWording::tr("depends on this data set's object sizes; not measured");
    if (k == "unknown_scale")
        return FixWording::tr("unknown scale: no figures");
    if (k == "published_gflops")
        return FixWording::tr("GFLOPs %1 vs %2 at 640 px, from Ultralytics' published model table")
            .arg(arg(0), arg(1));
    if (k == "published_map")
        return FixWording::tr("Ultralytics' published COCO val2017 mAP50-95 at 640 px: %1 vs %2")
            .arg(arg(0), arg(1));
    if (k == "freeze_flops")
        return FixWording::tr("no backward through the backbone, counted as half of the forward "
                              "and 2 × forward in backward (%1)")
            .arg(arg(0));
    if (k == "depends_on_data")
        return FixWording::tr("depends on the data set; not measured");
    if (k == "optimizer_step_small")
        return FixWording::tr("assumed: the optimizer step is a small part of a step");
    if (k == "depends_on_lr")
        return FixWording::tr("depends on lr0 and the data; not measured");
    if (k == "offload_host_copies")
        return FixWording::tr("assumed +15% for host copies and a CPU update per step");
    if (k == "offload_cpu_same_ram")
        return FixWording::tr("on CPU the state stays in the same RAM, only outside the budget");
    if (k == "same_arithmetic")
        return FixWording::tr("the same arithmetic");
    if (k == "validation_small")
        return FixWording::tr("assumed: training untouched, validation a small part of an epoch");
    if (k == "same_arithmetic_per_image")
        return FixWording::tr("the same arithmetic per image");
    if (k == "assign_passes")
        return FixWording::tr("the same arithmetic in %1 passes instead of %2; each more pass "
                              "assumed to cost ~%3 against a step of ~%4 ms (bench loss on the "
                              "developers' CPU, 1 thread; %5)")
            .arg(arg(0), arg(1), arg(2), arg(3), arg(4));
    if (k == "identical_targets")
        return FixWording::tr("identical targets (tested)");
    if (k == "cache_release")
        return FixWording::tr("assumed: one cache release, refilled as it goes");
    if (k == "ddp_scaling")
        return FixWording::tr("assumed ideal data-parallel scaling plus 10% for the all-reduce");
    if (k == "not_measured")
        return FixWording::tr("not measured");
    if (k == "decode_again")
        return FixWording::tr("assumed +10%: images are decoded again every epoch");
    if (k == "same_images")
        return FixWording::tr("the same images");
    if (k == "loader_bottleneck")
        return FixWording::tr("assumed: slower only when the loader is the bottleneck");
    if (k == "mosaic_small")
        return FixWording::tr("assumed: mosaic's assembly is a small part of loading");
    if (k == "scaled_to_failed_step")
        return FixWording::tr("scaled by %1 to what the failed step needed").arg(arg(0));
    if (k == "cached_probe_steps")
        return FixWording::tr("the estimator's cached probe steps on this machine (another image "
                              "size scaled by the pixel count)");
    if (k == "host_not_predicted")
        return FixWording::tr("host memory is not predicted");
    if (k == "failed_step_need")
        return FixWording::tr("what the failed step needed");
    if (k == "measured_map")
        return FixWording::tr("measured here on this data set: mAP50-95 %1 (mAP50 %2) in run %3 "
                              "against %4 (%5) in run %6")
            .arg(arg(0), arg(1), arg(2), arg(3), arg(4), arg(5));
    if (k == "timed_here")
        return FixWording::tr("timed on this machine by the estimator's probe steps (CPU time, "
                              "medians of 3 or more steps): %1 ms per image instead of %2 ms")
            .arg(arg(0), arg(1));
    if (k == "speed_check")
        return FixWording::tr("×%1: the last run on this machine that applied this fix measured "
                              "that much against its prediction")
            .arg(arg(0));
    if (k == "probe_steps")
        return FixWording::tr("the estimator's probe steps on this machine");
    if (k == "report_scaling")
        return FixWording::tr("scaled from the failed step's measured breakdown by batch × image "
                              "size; AMP assumed to keep 60% (one CPU bf16 test)");
    return {};
}

/// A basis' detail in the UI's words; empty when it has none or a clause this UI does not know.
QString detailWords(const FigureBasis& basis) {
    QStringList clauses;
    for (const FigureDetail& d : basis.parts) {
        const QString clause = detailClause(d);
        if (clause.isEmpty())
            return {};
        clauses << clause;
    }
    return clauses.join(FixWording::tr("; "));
}

/// True when this UI words every lever of `fix`; otherwise core's English is shown whole.
bool known(const FixSuggestion& fix) {
    if (fix.parts.empty())
        return false;
    for (const FixPart& p : fix.parts)
        if (partTitle(p).isEmpty())
            return false;
    return true;
}

} // namespace

QString FixWording::title(const FixSuggestion& fix) {
    if (!known(fix))
        return QString::fromStdString(fix.title);
    QStringList titles;
    for (const FixPart& p : fix.parts)
        titles << partTitle(p);
    return titles.join(QStringLiteral(" + "));
}

QString FixWording::reason(const FixSuggestion& fix) {
    if (!known(fix))
        return QString::fromStdString(fix.reason);
    QStringList reasons;
    for (const FixPart& p : fix.parts)
        reasons << partReason(p);
    QString text = reasons.join(tr("; ")) + tr(".");
    if (fix.hostFix)
        text += QLatin1Char(' ') +
                tr("Host memory is not predicted; this frees host RAM, not device memory.");
    if (fix.predictionScale > 1.0)
        text += QLatin1Char(' ') + tr("Predictions scaled by %1: the estimator predicted less "
                                      "than the failed step needed.")
                                       .arg(fix.predictionScale, 0, 'f', 2);
    return text;
}

QString FixWording::accuracyEffect(const FixSuggestion& fix) {
    if (!known(fix))
        return QString::fromStdString(fix.accuracyEffect);
    QStringList effects;
    for (const FixPart& p : fix.parts)
        // Combined fixes name only the parts that cost accuracy (core's rule for its text).
        if (fix.parts.size() == 1 || p.accuracyCost > 0)
            effects << partAccuracy(p);
    return effects.isEmpty() ? tr("none expected") : effects.join(tr("; "));
}

QString FixWording::basis(const FigureBasis& basis) {
    QString source;
    switch (basis.source) {
    case FigureSource::MeasuredHere:
        source = tr("measured here");
        break;
    case FigureSource::Published:
        source = tr("published figure");
        break;
    case FigureSource::FlopCount:
        source = tr("FLOP count");
        break;
    case FigureSource::Assumption:
        source = tr("assumption, not measured");
        break;
    case FigureSource::NotMeasured:
        source = tr("not measured");
        break;
    }
    if (basis.detail.empty())
        return source;
    // An English UI shows core's detail as given; a translated one words it from its kinds and
    // values, and shows the kind of source alone for a detail it cannot word (English inside a
    // translated sentence would be worse).
    if (!translationInstalled())
        return tr("%1 (%2)").arg(source, QString::fromStdString(basis.detail));
    const QString words = detailWords(basis);
    return words.isEmpty() ? source : tr("%1 (%2)").arg(source, words);
}

QString FixWording::cited(FigureSource source, const std::string& citation) {
    return tr("%1 (%2)").arg(basis(FigureBasis{source, {}}), QString::fromStdString(citation));
}

QString FixWording::speedNote(const FixSuggestion& fix) {
    switch (fix.speedBasis.source) {
    case FigureSource::MeasuredHere:
        return tr("(measured here)");
    case FigureSource::NotMeasured:
        return tr("(not measured)");
    case FigureSource::Published:
        return tr("(estimate: published figure, not measured here)");
    case FigureSource::FlopCount:
        return tr("(estimate: FLOP count, not measured here)");
    case FigureSource::Assumption:
        break;
    }
    return tr("(estimate: assumption, not measured here)");
}

QString FixWording::figuresTooltip(const FixSuggestion& fix) {
    QStringList lines;
    lines << tr("Memory figure: %1").arg(basis(fix.memoryBasis))
          << tr("Speed figure: %1").arg(basis(fix.speedBasis))
          << tr("Accuracy figure: %1").arg(basis(fix.accuracyBasis));
    return lines.join(QLatin1Char('\n'));
}

} // namespace hr::ui
