// SPDX-License-Identifier: GPL-3.0-or-later
// The advisor's levers: each kind of change with its settings, mildest first, and what each
// costs (from the cost model).
#include "advisor/fix_levers.h"

#include "advisor/fix_cost_model.h"
#include "config/model_name.h"
#include "config/train_rules.h"
#include "model/model_builder.h"
#include "util/text.h"

#include <cctype>
#include <cmath>

namespace hr::advisor {
namespace {

bool isAdamFamily(const std::string& optimizer) {
    const std::string name = toLower(optimizer);
    return name == "adam" || name == "adamw";
}

std::string optimizerName(const TrainConfig& c) {
    return toLower(c.optimizer) == "auto" ? "auto (AdamW for short runs)" : c.optimizer;
}

/// Model family (8 or 9), scale letter and where the letter sits in `model` (npos when the
/// scale comes from TrainConfig::scale or is unknown).
struct ModelScale {
    int family = 0;
    char scale = 0;
    std::size_t letterPos = std::string::npos;
};

ModelScale parseModelScale(const TrainConfig& c) {
    const ModelName name = parseModelName(c.model);
    ModelScale m;
    if (scaleLettersOf(name.family).empty())
        return m;
    m.family = name.family;
    if (!c.model_scale.empty())
        m.scale = static_cast<char>(std::tolower(static_cast<unsigned char>(c.model_scale[0])));
    else {
        m.scale = name.scale;
        m.letterPos = name.scalePos;
    }
    return m;
}

Lever batchLever(const TrainConfig& c, bool cuda) {
    Lever lever{"batch", {}};
    const int nominal = c.batch * accumulateSteps(c);
    // Keep the effective batch when batch > nbs (accumulate was 1): nbs becomes the old batch.
    const int nbs = c.nbs < c.batch ? nominal : c.nbs;
    for (int b = c.batch / 2; b >= 1; b /= 2) {
        TrainConfig probe = c;
        probe.batch = b;
        probe.nbs = nbs;
        const int accumulate = accumulateSteps(probe);
        Step s;
        s.title = "batch " + std::to_string(b) + " + accumulate " + std::to_string(accumulate) +
                  " (nominal batch " + std::to_string(b * accumulate) + ")";
        s.changes = {{"batch", std::to_string(b)}};
        if (nbs != c.nbs)
            s.changes.emplace_back("nbs", std::to_string(nbs));
        s.apply = [b, nbs](TrainConfig& t) {
            t.batch = b;
            t.nbs = nbs;
        };
        s.effect = fixcost::smallerBatch(c.batch, b, cuda);
        s.values = {{"batch", std::to_string(b)},
                    {"accumulate", std::to_string(accumulate)},
                    {"nominal", std::to_string(b * accumulate)},
                    {"val_follows", c.val_batch == 0 ? "1" : "0"}};
        s.reason = "activations scale with the batch; accumulating " + std::to_string(accumulate) +
                   " steps keeps the nominal batch";
        if (c.val_batch == 0)
            s.reason += " (validation's batch shrinks with it)";
        lever.steps.push_back(std::move(s));
        if (b == 1)
            break;
    }
    return lever;
}

Lever ampLever(const TrainConfig& c, bool cuda) {
    Lever lever{"amp", {}};
    if (c.amp)
        return lever;
    Step s;
    s.title = cuda ? "AMP (fp16 with loss scaling)" : "AMP (bf16 autocast)";
    s.changes = {{"amp", "true"}};
    s.apply = [](TrainConfig& t) { t.amp = true; };
    s.effect = fixcost::amp(cuda);
    s.values = {{"cuda", cuda ? "1" : "0"}};
    s.reason = "activations are kept in 16 bits instead of 32";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever checkpointingLever(const TrainConfig& c) {
    Lever lever{"checkpointing", {}};
    for (Checkpointing mode : {Checkpointing::Backbone, Checkpointing::All}) {
        if (static_cast<int>(mode) <= static_cast<int>(c.checkpointing))
            continue;
        Step s;
        s.title = mode == Checkpointing::All ? "gradient checkpointing of all blocks"
                                             : "gradient checkpointing of the backbone";
        s.changes = {{"checkpointing", toString(mode)}};
        s.apply = [mode](TrainConfig& t) { t.checkpointing = mode; };
        s.effect = fixcost::checkpointing(c.checkpointing, mode);
        s.values = {{"mode", toString(mode)}};
        s.reason = "wrapped blocks keep only their inputs and recompute the rest in backward";
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever imageSizeLever(const TrainConfig& c) {
    Lever lever{"imgsz", {}};
    const int smallest = std::max(64, (c.imgsz / 2 + 31) / 32 * 32);
    for (int size = (c.imgsz - 1) / 32 * 32; size >= smallest; size -= 32) {
        Step s;
        s.title = "imgsz " + std::to_string(size);
        s.changes = {{"imgsz", std::to_string(size)}};
        s.apply = [size](TrainConfig& t) { t.imgsz = size; };
        s.effect = fixcost::smallerImage(c.imgsz, size);
        const int percent =
            static_cast<int>(std::lround(100.0 * size * size / (double(c.imgsz) * c.imgsz)));
        s.values = {{"imgsz", std::to_string(size)},
                    {"from", std::to_string(c.imgsz)},
                    {"pixels_percent", std::to_string(percent)},
                    {"side_percent", std::to_string(std::lround(100.0 * size / c.imgsz))}};
        s.reason =
            "activations scale with the pixel count (" + std::to_string(percent) + "% of now)";
        s.severity = 1.0 - static_cast<double>(size) / c.imgsz;
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever freezeLever(const TrainConfig& c) {
    Lever lever{"freeze", {}};
    if (!c.freeze.empty())
        return lever;
    const int rows = backboneRows(c.model);
    if (rows <= 0)
        return lever;
    std::vector<int> layers(rows);
    for (int i = 0; i < rows; ++i)
        layers[i] = i;
    Step s;
    s.title = "freeze the backbone (layers 0-" + std::to_string(rows - 1) + ")";
    s.changes = {{"freeze", std::to_string(rows)}};
    s.apply = [layers](TrainConfig& t) { t.freeze = layers; };
    s.effect = fixcost::freezeBackbone(!c.weights.empty());
    s.values = {{"last_layer", std::to_string(rows - 1)},
                {"pretrained", c.weights.empty() ? "0" : "1"}};
    s.reason = "no gradients, optimizer state or saved activations for the backbone";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever sgdLever(const TrainConfig& c) {
    Lever lever{"sgd", {}};
    const std::string name = toLower(c.optimizer);
    if (!isAdamFamily(name) && name != "auto")
        return lever;
    Step s;
    s.title = "SGD instead of " + optimizerName(c);
    s.changes = {{"optimizer", "SGD"}};
    s.apply = [](TrainConfig& t) { t.optimizer = "SGD"; };
    s.effect = fixcost::sgdInsteadOfAdam();
    s.values = {{"from", toLower(c.optimizer) == "auto" ? "auto" : c.optimizer}};
    s.reason = "SGD keeps one state tensor per weight (momentum), Adam/AdamW two";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever offloadLever(const TrainConfig& c, bool cuda) {
    Lever lever{"offload", {}};
    // On a CPU device the state already lives in host RAM: "offloading" it would only hide it
    // from the budget, which frees nothing real.
    if (c.optimizer_offload || !cuda)
        return lever;
    Step s;
    s.title = "optimizer state in host memory";
    s.changes = {{"optimizer_offload", "true"}};
    s.apply = [](TrainConfig& t) { t.optimizer_offload = true; };
    s.effect = fixcost::optimizerOffload(cuda);
    s.reason = "the optimizer state leaves the device";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever validationBatchLever(const TrainConfig& c) {
    Lever lever{"val_batch", {}};
    for (int v = validationBatch(c) / 2; v >= 1; v /= 2) {
        Step s;
        s.title = "validation batch " + std::to_string(v);
        s.changes = {{"val_batch", std::to_string(v)}};
        s.apply = [v](TrainConfig& t) { t.val_batch = v; };
        s.effect = fixcost::smallerValidationBatch();
        s.values = {{"val_batch", std::to_string(v)}, {"now", std::to_string(validationBatch(c))}};
        s.reason = "validation activations scale with its batch (now " +
                   std::to_string(validationBatch(c)) + ")";
        lever.steps.push_back(std::move(s));
        if (v == 1)
            break;
    }
    return lever;
}

/// Anchors of a 3-level (strides 8, 16, 32) detection head at `imgsz`: what the assigner
/// compares every box with.
std::int64_t anchorsAt(int imgsz) {
    std::int64_t anchors = 0;
    for (int stride : {8, 16, 32}) {
        const std::int64_t side = (imgsz + stride - 1) / stride;
        anchors += side * side;
    }
    return anchors;
}

/// Chunked assignment: the assigner takes fewer ground-truth boxes at a time (assign_chunk),
/// for an OOM in the loss phase on crowded images. The targets are the same.
Lever assignChunkLever(const TrainConfig& c, Phase phase, int objects) {
    Lever lever{"assign_chunk", {}};
    if (phase != Phase::Loss || (objects > 0 && objects < kManyObjectsPerImage))
        return lever;
    const std::int64_t images = rankBatch(c.batch, c.nproc);
    const std::int64_t anchors = anchorsAt(c.imgsz);
    // Unknown object count: size for Ultralytics' detection cap, the most a data set offers.
    const std::int64_t boxes = objects > 0 ? objects : 300;
    const std::int64_t now = assignerBoxesPerSlice(c.assign_chunk, images, boxes, anchors);
    const ModelScale model = parseModelScale(c);
    // A quarter of the slice, then one box at a time: the temporaries shrink in proportion.
    std::vector<std::int64_t> sizes;
    for (std::int64_t to : {now / 4, std::int64_t(1)})
        if (to >= 1 && to < now && (sizes.empty() || to < sizes.back()))
            sizes.push_back(to);
    for (std::int64_t to : sizes) {
        Step s;
        s.title = "chunked assignment: " + std::to_string(to) + (to == 1 ? " box" : " boxes") +
                  " at a time (now " + std::to_string(now) + ")";
        s.changes = {{"assign_chunk", std::to_string(to)}};
        const int value = static_cast<int>(to);
        s.apply = [value](TrainConfig& t) { t.assign_chunk = value; };
        s.effect = fixcost::chunkedAssignment(static_cast<int>(now), value, static_cast<int>(boxes),
                                              images, anchors, model.family, model.scale);
        s.values = {{"boxes", std::to_string(to)},
                    {"now", std::to_string(now)},
                    {"anchors", std::to_string(anchors)},
                    {"objects", std::to_string(objects > 0 ? objects : 0)},
                    {"less", std::to_string(std::max<std::int64_t>(1, now / to))}};
        s.reason = "the label assigner compares each box with all " + std::to_string(anchors) +
                   " anchors of every image at once; " +
                   (objects > 0 ? "up to " + std::to_string(objects) + " boxes per image"
                                : std::string("the data set's boxes per image are unknown")) +
                   ", taken " + std::to_string(to) + " at a time, need " +
                   std::to_string(std::max<std::int64_t>(1, now / to)) +
                   "x less for its temporaries";
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

Lever distributedLever(const TrainConfig& c, int devices) {
    Lever lever{"ddp", {}};
    if (devices <= 1 || (c.nproc >= devices && c.zero >= 1))
        return lever;
    const int n = std::max(devices, c.nproc);
    Step s;
    s.title = std::to_string(n) + " devices, data parallel, optimizer state sharded";
    if (c.nproc != n)
        s.changes.emplace_back("nproc", std::to_string(n));
    s.changes.emplace_back("zero", "1");
    s.apply = [n](TrainConfig& t) {
        t.nproc = n;
        t.zero = 1;
    };
    s.effect = fixcost::distributed(c.nproc >= n ? 1 : n / std::max(1, c.nproc));
    s.values = {{"devices", std::to_string(n)}};
    s.reason =
        "each device holds 1/" + std::to_string(n) + " of the batch and of the optimizer state";
    lever.steps.push_back(std::move(s));
    return lever;
}

Lever scaleLever(const TrainConfig& c) {
    Lever lever{"scale", {}};
    const ModelScale m = parseModelScale(c);
    if (m.family == 0 || m.scale == 0)
        return lever;
    const std::string order = scaleLettersOf(m.family);
    const std::size_t at = order.find(m.scale);
    if (at == std::string::npos || at == 0)
        return lever;
    for (std::size_t i = at; i-- > 0;) {
        const char to = order[i];
        TrainConfig changed = c;
        Step s;
        if (m.letterPos != std::string::npos) {
            changed.model[m.letterPos] = to;
            s.changes = {{"model", changed.model}};
        } else {
            changed.model_scale = std::string(1, to);
            s.changes = {{"model_scale", changed.model_scale}};
        }
        s.title = "model scale " + std::string(1, to) + " instead of " + std::string(1, m.scale);
        const std::string model = changed.model;
        const std::string scale = changed.model_scale;
        s.apply = [model, scale](TrainConfig& t) {
            t.model = model;
            t.model_scale = scale;
        };
        s.effect = fixcost::smallerScale(m.family, m.scale, to);
        s.values = {{"to", std::string(1, to)}, {"from", std::string(1, m.scale)}};
        s.reason = "fewer and narrower layers: less of everything";
        s.severity = static_cast<double>(at - i);
        s.restarts = true;
        lever.steps.push_back(std::move(s));
    }
    return lever;
}

} // namespace

bool isCuda(const std::string& device) {
    return device.rfind("cuda", 0) == 0;
}

std::vector<Lever> deviceLevers(const TrainConfig& c, bool cuda, Phase phase, int objectsPerImage,
                                int deviceCount) {
    std::vector<Lever> levers;
    if (phase == Phase::Validation)
        levers.push_back(validationBatchLever(c));
    // No accuracy cost and a small speed cost: ranked ahead of every lever that changes
    // training, as the decision flow does with other free fixes.
    levers.push_back(assignChunkLever(c, phase, objectsPerImage));
    levers.push_back(distributedLever(c, deviceCount));
    levers.push_back(imageSizeLever(c));
    levers.push_back(batchLever(c, cuda));
    levers.push_back(ampLever(c, cuda));
    levers.push_back(checkpointingLever(c));
    levers.push_back(freezeLever(c));
    levers.push_back(scaleLever(c));
    levers.push_back(sgdLever(c));
    levers.push_back(offloadLever(c, cuda));
    return levers;
}

std::vector<Lever> hostLevers(const TrainConfig& c) {
    std::vector<Lever> levers;
    if (toLower(c.cache) == "ram") {
        Lever l{"host_cache", {}};
        Step s;
        s.title = "host fix: image cache on disk instead of RAM";
        s.changes = {{"cache", "disk"}};
        s.apply = [](TrainConfig& t) { t.cache = "disk"; };
        s.effect = fixcost::noImageCache();
        s.reason = "the decoded images of the whole data set leave host RAM";
        s.values = {{"cache", "disk"}};
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    if (c.workers > 1) {
        const int to = c.workers / 2;
        Lever l{"host_workers", {}};
        Step s;
        s.title = "host fix: " + std::to_string(to) + " loader workers instead of " +
                  std::to_string(c.workers);
        s.changes = {{"workers", std::to_string(to)}};
        s.apply = [to](TrainConfig& t) { t.workers = to; };
        s.effect = fixcost::fewerWorkers(c.workers, to);
        s.values = {{"workers", std::to_string(to)}, {"from", std::to_string(c.workers)}};
        s.reason = "each worker holds batches being prepared in host RAM";
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    if (c.mosaic > 0.0 || c.mixup > 0.0) {
        Lever l{"host_mosaic", {}};
        Step s;
        s.title = c.mixup > 0.0 ? "host fix: mosaic and mixup off" : "host fix: mosaic off";
        s.changes = {{"mosaic", "0"}};
        if (c.mixup > 0.0)
            s.changes.emplace_back("mixup", "0");
        s.apply = [](TrainConfig& t) {
            t.mosaic = 0.0;
            t.mixup = 0.0;
        };
        s.effect = fixcost::mosaicOff();
        s.values = {{"mixup", c.mixup > 0.0 ? "1" : "0"}};
        s.reason = "mosaic assembles a 2 x imgsz canvas from four images per sample";
        l.steps.push_back(std::move(s));
        levers.push_back(std::move(l));
    }
    return levers;
}

} // namespace hr::advisor

namespace hr {

std::vector<LeverChange> leverFirstSteps(const TrainConfig& config, const std::string& device,
                                         int objectsPerImage) {
    // Chunked assignment as for a loss-phase OOM; one device: no data-parallel lever.
    const std::vector<advisor::Lever> levers =
        advisor::deviceLevers(config, advisor::isCuda(device), Phase::Loss, objectsPerImage, 1);
    std::vector<LeverChange> out;
    for (const advisor::Lever& lever : levers) {
        // Both checkpointing settings are levers of their own in practice; others: the first.
        const std::size_t count = lever.id == "checkpointing"
                                      ? lever.steps.size()
                                      : std::min<std::size_t>(1, lever.steps.size());
        for (std::size_t i = 0; i < count; ++i) {
            const advisor::Step& step = lever.steps[i];
            LeverChange change;
            change.lever = lever.id;
            change.title = step.title;
            change.changes = step.changes;
            change.config = config;
            step.apply(change.config);
            change.speedFactor = step.effect.speedFactor;
            change.speedBasis = step.effect.speedBasis;
            out.push_back(std::move(change));
        }
    }
    return out;
}

} // namespace hr
