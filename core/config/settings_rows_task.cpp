// SPDX-License-Identifier: GPL-3.0-or-later
// The settings table, part one: the task and optimisation sections of a config file.
#include "config/settings_row.h"

namespace hr::settings_rows {

std::vector<Row> taskRows() {
    return {
        // --- task -------------------------------------------------------------------------
        Row("model", &C::model, G::ModelData)
            .at(0)
            .section("task")
            .flags(kMemory | kCalib)
            .words(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Model"),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "The detector architecture: an Ultralytics-format model YAML."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Larger models hold more weights, gradients, optimizer "
                                  "state and activations."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Larger models are slower per image."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Larger models usually reach a higher mAP."))
            .checked(checkModel, nullptr)
            .choices(SettingEditor::ModelFile, {}),
        Row("data", &C::data, G::ModelData)
            .at(3)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Data set"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "The data.yaml of the data set. Empty uses the built-in "
                                     "sample."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "More and better labelled images give a better model."))
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "built-in sample")),
        Row("model_scale", &C::model_scale, G::ModelData)
            .at(1)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Scale"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Width and depth multipliers of the model family."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Each step up roughly doubles to triples the memory."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Each step up is roughly two to three times slower."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Bigger scales detect small and rare objects better."))
            .checked(checkModelScale, nullptr)
            .normalise(lowerCase)
            .choices(SettingEditor::Choice,
                     {{"", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "From the file name")},
                      {"n", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "n (nano)")},
                      {"s", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "s (small)")},
                      {"m", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "m (medium)")},
                      {"l", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "l (large)")},
                      {"x", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "x (extra large)")},
                      {"t", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "t (tiny, YOLOv9)")},
                      {"c", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "c (compact, YOLOv9)")},
                      {"e", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "e (extended, YOLOv9)")}}),
        Row("weights", &C::weights, G::ModelData)
            .at(2)
            .flags(kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Start from weights"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "A .pt file from Headroom or Ultralytics (best.pt, "
                                     "yolov8n.pt) to start from instead of random weights; the "
                                     "run's log says how many tensors it transferred."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Pretrained weights reach a good mAP in far fewer epochs."))
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "none: train from scratch")),
        Row("epochs", &C::epochs, G::Schedule)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Epochs"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Passes over the training set."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Time grows in proportion."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "More epochs learn more, until the model overfits."))
            .checked(checkEpochs, "at least 1", 1, 100000),
        Row("patience", &C::patience, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Patience"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Stop early after this many epochs without improvement (0 = "
                                     "never)."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Saves time on runs that stopped improving."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Too small stops too early."))
            .range(B::NotNegative, 0, 100000, "patience", "write 0 or more epochs")
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "never stop early")),
        Row("batch", &C::batch, G::DeviceMemory)
            .at(2)
            .flags(kLoader | kMemory)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Batch"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Images per step. Auto-fit picks the largest batch the "
                                     "budget holds."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Activations grow in proportion to the batch."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Larger batches use the device better, up to a point."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Small batches make BatchNorm statistics noisier; "
                                       "accumulation keeps the effective batch."))
            .checked(checkBatch, "-1 (auto-fit) or at least 1", -1, 4096)
            .hint(batchFractionHint)
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "auto-fit")),
        Row("imgsz", &C::imgsz, G::DeviceMemory)
            .at(3)
            .flags(kLoader | kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Image size"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Training and validation image size in pixels (a multiple of "
                                     "32)."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Activations grow with the square of the size."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Time grows with the square of the size."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Smaller images lose small objects."))
            .checked(checkImgsz, "a multiple of 32", 32, 4096)
            .digits(0, 32),
        Row("device", &C::device, G::DeviceMemory)
            .at(0)
            .flags(kRuntime)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Device"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Where training runs."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "The budget applies to this device."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "A GPU is much faster than the CPU."),
                nullptr)
            .checked(checkDevice, "auto, cpu, cuda or cuda:N")
            .normalise(deviceName)
            .choices(
                SettingEditor::Editable,
                {{"auto", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "auto (GPU when present)")},
                 {"cpu", nullptr},
                 {"cuda", nullptr},
                 {"cuda:0", nullptr},
                 {"cuda:1", nullptr}}),
        Row("workers", &C::workers, G::DeviceMemory)
            .at(9)
            .flags(kLoader | kRuntime)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Loader threads"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Threads that decode and augment images."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Host memory only: each thread holds images in flight."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "More threads keep the device fed, up to the number of "
                                       "cores."),
                     nullptr)
            .range(B::NotNegative, 0, 64, "workers",
                   "write 0 (load in the training thread) or more"),
        Row("threads", &C::threads, G::DeviceMemory)
            .at(10)
            .flags(kRuntime)
            .words(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Compute threads"),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Intra-op threads for the CPU kernels."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "More threads are faster up to the number of cores."),
                     nullptr)
            .range(B::NotNegative, 0, 256, "threads", "write 0 (all cores) or a number of threads")
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "all cores")),
        Row("project", &C::project, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Runs folder"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Folder that holds the runs."))
            .range(B::NotEmpty, 0, 0, "the project folder name is empty",
                   "write e.g. project: runs"),
        Row("name", &C::name, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Run name"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Name of this run's folder; numbered when it exists."))
            .range(B::NotEmpty, 0, 0, "the run name is empty", "write e.g. name: train"),
        Row("exist_ok", &C::exist_ok, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Reuse an existing folder"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Write into an existing run folder instead of numbering a "
                                     "new one.")),
        Row("resume", &C::resume, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Resume"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Continue the named run from its last checkpoint."))
            .effects(
                nullptr, nullptr,
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Identical to an uninterrupted run.")),
        Row("seed", &C::seed, G::RunFolder)
            .flags(kLoader)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Seed"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Random seed for weights, shuffling and augmentation."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Different seeds give slightly different results."))
            .range(B::None, 0, kMaxInt),
        Row("deterministic", &C::deterministic, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Deterministic"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Use deterministic kernels so a run can be repeated "
                                     "exactly."))
            .effects(nullptr, QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Can be slower on GPUs."),
                     nullptr),
        Row("fraction", &C::fraction, G::ModelData)
            .at(5)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Fraction of training set"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Train on this share of the training images."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Epochs get shorter in proportion."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Less data, lower mAP."))
            .range(B::OpenClosed, 0, 1, "fraction", "write 1.0 to use the whole training set")
            .digits(2),
        Row("save_period", &C::save_period, G::RunFolder)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Save every N epochs"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Keep a checkpoint every N epochs besides last and best."))
            .range(B::None, -1, 100000)
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "off")),

        // --- optimisation -----------------------------------------------------------------
        Row("optimizer", &C::optimizer, G::Schedule)
            .section("optimisation")
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Optimizer"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "The update rule. Auto picks AdamW for short runs and SGD "
                                     "for long ones."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "SGD keeps one state tensor per weight, Adam and AdamW "
                                       "two."),
                     nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "AdamW converges faster on short runs; SGD often "
                                       "generalises better on long ones."))
            .checked(checkOptimizer, nullptr)
            .normalise(optimizerName)
            .choices(SettingEditor::Choice,
                     {{"auto", QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "auto")},
                      {"SGD", nullptr},
                      {"Adam", nullptr},
                      {"AdamW", nullptr}}),
        Row("lr0", &C::lr0, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Initial learning rate"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Learning rate at the end of warmup."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Too high diverges, too low learns slowly."))
            .range(B::Above, 0, 1, "the initial learning rate",
                   "write e.g. lr0: 0.01 (SGD) or 0.001 (Adam)")
            .digits(6),
        Row("lrf", &C::lrf, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Final learning rate factor"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "The last epoch's learning rate as a fraction of the "
                                     "initial one."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "A small final rate settles the weights."))
            .range(B::OpenClosed, 0, 1, "the final learning rate fraction",
                   "write e.g. lrf: 0.01 (final lr = lr0 x lrf)")
            .digits(6),
        Row("momentum", &C::momentum, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Momentum"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "SGD momentum, or Adam's beta1."))
            .effects(nullptr, nullptr, kDefaultSuits)
            .range(B::ClosedOpen, 0, 1, "momentum", "write a value from 0 to 0.99")
            .digits(4),
        Row("weight_decay", &C::weight_decay, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Weight decay"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "L2 penalty on convolution and linear weights."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Reduces overfitting; too much underfits."))
            .range(B::NotNegative, 0, 0.1, "weight decay", "write e.g. 0.0005")
            .digits(6),
        Row("warmup_epochs", &C::warmup_epochs, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Warmup epochs"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Epochs over which the learning rate ramps up."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Stabilises the first epochs."))
            .range(B::NotNegative, 0, 100, "warmup epochs", "write 0 for no warmup")
            .digits(2),
        Row("warmup_momentum", &C::warmup_momentum, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Warmup momentum"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Momentum at the start of warmup."))
            .effects(nullptr, nullptr, kDefaultSuits)
            .range(B::ClosedOpen, 0, 1, "warmup momentum", "write a value from 0 to 0.99")
            .digits(4),
        Row("warmup_bias_lr", &C::warmup_bias_lr, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Warmup bias learning rate"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Learning rate of the biases at the start of warmup."))
            .effects(nullptr, nullptr, kDefaultSuits)
            .range(B::NotNegative, 0, 1, "the warmup bias learning rate", "write e.g. 0.1")
            .digits(4),
        Row("cos_lr", &C::cos_lr, G::Schedule)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Cosine schedule"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Decay the learning rate along a cosine instead of a line."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Sometimes slightly better at the end of long runs.")),
        Row("nbs", &C::nbs, G::Schedule)
            .flags(kMemory)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Nominal batch"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Gradients are accumulated until this many images, whatever "
                                     "the batch."))
            .effects(nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "No effect on images per second."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Keeps training behaviour when the batch shrinks to fit "
                                       "memory."))
            .range(B::AtLeast, 1, 4096, "the nominal batch size", "write e.g. nbs: 64"),
        Row("box", &C::box, G::Loss)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Box loss gain"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Weight of the box (CIoU) loss."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Higher favours box precision."))
            .range(B::NotNegative, 0, 100, "a loss gain", "write 0 to switch this loss term off"),
        Row("cls", &C::cls, G::Loss)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Class loss gain"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Weight of the classification loss."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Higher favours class accuracy."))
            .range(B::NotNegative, 0, 100, "a loss gain", "write 0 to switch this loss term off"),
        Row("dfl", &C::dfl, G::Loss)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "DFL loss gain"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Weight of the distribution focal loss of box edges."))
            .effects(nullptr, nullptr, kDefaultSuits)
            .range(B::NotNegative, 0, 100, "a loss gain", "write 0 to switch this loss term off"),
        Row("amp", &C::amp, G::DeviceMemory)
            .at(4)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Mixed precision (AMP)"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "Compute in 16-bit floats where it is safe (fp16 on GPU, "
                                     "bf16 on CPU)."))
            .effects(
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                  "Activations take about half the memory."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Faster on GPUs with tensor cores."),
                QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Usually the same mAP within noise.")),
        Row("freeze", &C::freeze, G::ModelData)
            .at(6)
            .flags(kMemory | kCalib)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Frozen layers"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                     "The first N layers (a number), or a list of layer indices "
                                     "like [0, 1, 2], whose weights do not train."))
            .effects(QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Frozen layers need no gradients or optimizer state."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Faster: no weight gradients for frozen layers."),
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Usually lower unless starting from good pretrained "
                                       "weights."))
            .special(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "none, e.g. 10 or [0, 1, 2]")),
        Row("single_cls", &C::single_cls, G::ModelData)
            .at(4)
            .words(QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Single class"),
                   QT_TRANSLATE_NOOP("hr::ui::SettingsForm", "Treat every object as one class."))
            .effects(nullptr, nullptr,
                     QT_TRANSLATE_NOOP("hr::ui::SettingsForm",
                                       "Class names are lost; box quality may improve on tiny "
                                       "data sets.")),
    };
}

} // namespace hr::settings_rows
