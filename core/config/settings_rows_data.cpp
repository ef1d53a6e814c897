// SPDX-License-Identifier: GPL-3.0-or-later
// The settings table, part two: augmentation, validation, memory and distributed.
#include "config/settings_row.h"

namespace hr::settings_rows {

std::vector<Row> dataRows() {
    return {
        // --- augmentation -----------------------------------------------------------------
        Row("hsv_h", &C::hsv_h, G::Augmentation)
            .section("augmentation")
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Hue"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random hue shift (fraction)."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Robustness to colour changes."))
            .range(B::Closed, 0, 1, "the hue gain", kUnitFix),
        Row("hsv_s", &C::hsv_s, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Saturation"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random saturation gain (fraction)."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Robustness to colour changes."))
            .range(B::Closed, 0, 1, "the saturation gain", kUnitFix),
        Row("hsv_v", &C::hsv_v, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Brightness"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random brightness gain (fraction)."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Robustness to lighting changes."))
            .range(B::Closed, 0, 1, "the value gain", kUnitFix),
        Row("degrees", &C::degrees, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Rotation (degrees)"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random rotation range."))
            .effects(
                nullptr, kAugSpeed,
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Helps when objects appear rotated."))
            .range(B::None, 0, 180)
            .digits(1),
        Row("translate", &C::translate, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Translation"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Random shift as a fraction of the image size."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Robustness to object position."))
            .range(B::Closed, 0, 1, "translate", kUnitFix),
        Row("scale", &C::scale, G::Augmentation)
            .alias("scale_aug")
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Scale gain"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random zoom range."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Robustness to object size."))
            .range(B::NotNegative, 0, 0.99, "the scale gain",
                   "write e.g. scale: 0.5 (random zoom 0.5x..1.5x)"),
        Row("shear", &C::shear, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Shear (degrees)"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random shear range."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Helps with perspective variety."))
            .range(B::None, 0, 90)
            .digits(1),
        Row("perspective", &C::perspective, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Perspective"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Random perspective distortion."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Helps with camera angles."))
            .range(B::Closed, 0, 0.001, "perspective", "write 0, or a small value like 0.0001")
            .digits(5),
        Row("flipud", &C::flipud, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Vertical flip"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Probability of an upside-down flip."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Only useful when objects can appear upside down."))
            .range(B::Closed, 0, 1, "the up-down flip probability", kUnitFix)
            .digits(2),
        Row("fliplr", &C::fliplr, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Horizontal flip"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Probability of a mirror flip."))
            .effects(nullptr, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Usually helps; not for text or left/right classes."))
            .range(B::Closed, 0, 1, "the left-right flip probability", kUnitFix)
            .digits(2),
        Row("mosaic", &C::mosaic, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Mosaic"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Probability of combining four images into one."))
            .effects(
                kAugMemory,
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Mosaic images cost more loader time."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Strong gain on small data sets; more objects per image."))
            .range(B::Closed, 0, 1, "the mosaic probability", kUnitFix)
            .digits(2),
        Row("mixup", &C::mixup, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Mixup"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Probability of blending two images."))
            .effects(kAugMemory, kAugSpeed,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Helps larger models; can hurt small ones."))
            .range(B::Closed, 0, 1, "the mixup probability", kUnitFix)
            .digits(2),
        Row("close_mosaic", &C::close_mosaic, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Close mosaic (last epochs)"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Turn mosaic off for this many final epochs."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Ends training on realistic images; usually better mAP."))
            .range(B::NotNegative, 0, 100000, "close_mosaic", "write 0 to keep mosaic to the end"),
        Row("cache", &C::cache, G::DeviceMemory)
            .at(11)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Image cache"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Keep decoded images in RAM or on disk between epochs."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Host memory (RAM cache), not device memory."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Faster epochs when decoding is the bottleneck."),
                     nullptr)
            .range(B::OneOf, 0, 0, "cache mode", "write none, ram or disk (true means ram)")
            .normalise(cacheMode)
            .choices(SettingEditor::Choice,
                     {{"none", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "none")},
                      {"ram", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "RAM")},
                      {"disk", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "disk")}}),
        Row("rect", &C::rect, G::Augmentation)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Rectangular batches"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Batch images of similar aspect ratio with less padding."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Less padding, slightly less memory."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Slightly faster."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Not compatible with mosaic; may lower mAP in training.")),

        // --- validation -------------------------------------------------------------------
        Row("val", &C::val, G::Validation)
            .section("validation")
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Validate each epoch"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Compute mAP on the validation set after each epoch."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Validation has its own peak; it can run out of memory "
                                       "too."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Adds the validation time to each epoch."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Needed to pick the best weights.")),
        Row("conf", &C::conf, G::Validation)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Confidence threshold"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Minimum score of a detection in validation."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Higher is faster (fewer boxes to match)."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Keep it low for a faithful mAP."))
            .range(B::Closed, 0, 1, "the confidence threshold", kUnitFix)
            .digits(4),
        Row("iou", &C::iou, G::Validation)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "NMS IoU"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Overlap above which non-maximum suppression merges boxes."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Lower merges more boxes."))
            .range(B::OpenClosed, 0, 1, "the NMS IoU threshold", "write e.g. iou: 0.7"),
        Row("max_det", &C::max_det, G::Validation)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Maximum detections"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Detections kept per image in validation."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Fewer is a little faster."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Too few lowers recall on crowded images."))
            .range(B::AtLeast, 1, 100000, "max_det", "write e.g. max_det: 300"),
        Row("val_batch", &C::val_batch, G::Validation)
            .flags(kMemory)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Validation batch"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Images per validation step; 0 validates at the training "
                                     "batch, in the memory training already holds."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Higher values need more."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Larger can be faster on a GPU, not on the CPU."),
                     nullptr)
            .range(B::NotNegative, 0, 4096, "val_batch",
                   "write 0 (the training batch) or a number of images")
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "same as batch")),

        // --- memory (Headroom) ------------------------------------------------------------
        Row("memory_budget", &C::memory_budget, G::DeviceMemory)
            .at(1)
            .section("memory (Headroom)")
            .flags(kRuntime)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Memory budget"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Make the device behave as if it had only this much memory "
                                     "(KiB, MiB, GiB or bytes). Past it a step runs out of "
                                     "memory, as on a smaller GPU."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "The limit itself."), nullptr,
                     nullptr)
            .checked(checkBudget, "at least 64MiB, or none")
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "none, e.g. 3 GiB")),
        Row("checkpointing", &C::checkpointing, G::DeviceMemory)
            .at(5)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Gradient checkpointing"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Recompute block activations in the backward pass instead "
                                     "of keeping them."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Much less activation memory."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "About a third slower per step."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Same result: the computation is identical."))
            .choices(SettingEditor::Choice,
                     {{"none", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "off")},
                      {"backbone", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "backbone")},
                      {"all", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "all blocks")}}),
        Row("on_oom", &C::on_oom, G::DeviceMemory)
            .at(8)
            .flags(kRuntime)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "On out of memory"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "What happens when a step runs out of memory: ask with the "
                                     "advisor, apply the best fix and continue, or stop."))
            .choices(SettingEditor::Choice,
                     {{"ask", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "ask me")},
                      {"auto", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "apply the best fix")},
                      {"stop", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "stop the run")}}),
        Row("optimizer_offload", &C::optimizer_offload, G::DeviceMemory)
            .at(6)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Optimizer state on host"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Keep the optimizer's state tensors in host memory."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Frees the optimizer state from the device."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Slower optimizer steps (copies to and from the host)."),
                     nullptr),
        Row("assign_chunk", &C::assign_chunk, G::DeviceMemory)
            .at(7)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Assigner boxes per slice"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "How many labelled boxes the loss's label assignment "
                                     "compares with every anchor at once."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Lower needs less in the loss phase on images with many "
                                  "objects."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Lower is a little slower (more, smaller passes)."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "No effect: the targets are the same."))
            .range(B::NotNegative, 0, 100000, "assign_chunk",
                   "write 0 (automatic) or the number of boxes the assigner takes at once")
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "automatic")),
        Row("memory_sample_hz", &C::memory_sample_hz, G::DeviceMemory)
            .at(12)
            .flags(kRuntime)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Memory samples per second"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "How often the memory timeline is sampled."))
            .effects(
                nullptr,
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Very high rates cost a little time."),
                nullptr)
            .range(B::OpenClosed, 0, 1000, "memory_sample_hz", "write e.g. 20")
            .digits(1),

        // --- distributed (Headroom) -------------------------------------------------------
        Row("nproc", &C::nproc, G::Distributed)
            .section("distributed (Headroom)")
            .flags(kMemory)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Processes"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Data-parallel processes (one per device)."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Each device holds a share of the batch."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Faster with more devices."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "The same as one device with the same total batch."))
            .range(B::AtLeast, 1, 64, "nproc", "write 1 for a single process"),
        Row("zero", &C::zero, G::Distributed)
            .flags(kMemory)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Shard optimizer state"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "1 = split the optimizer state across processes (ZeRO stage "
                                     "1)."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Optimizer state per device divided by the number of "
                                       "processes."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "A little communication overhead."),
                     nullptr)
            .checked(checkZero, "0 or 1", 0, 1),
        Row("sync_bn", &C::sync_bn, G::Distributed)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Synchronised BatchNorm"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Compute BatchNorm statistics over all processes."))
            .effects(
                nullptr,
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Slower: each batch all-reduces twice per BatchNorm layer "
                                  "(its statistics in forward, its gradient sums in "
                                  "backward; once more in backward for layers that "
                                  "checkpointing recomputes) and twice more to close "
                                  "forward and backward, every message the size of the "
                                  "widest layer: 116 per batch for yolov8n's 57 BatchNorm "
                                  "layers."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Better with small per-device batches.")),
    };
}

} // namespace hr::settings_rows
