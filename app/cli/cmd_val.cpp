// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli val: mAP of a weights file on a data set's validation split.
#include "command.h"
#include "common.h"

#include "config/data_config.h"
#include "config/weights_source.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "data/synthetic_dataset.h"
#include "eval/metrics_accumulator.h"
#include "memory/cpu_memory_tracker.h"
#include "model/model_io.h"
#include "results/results_files.h"
#include "train/compute_threads.h"
#include "train/train_step.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>

namespace hr::cli {
namespace {

/// Ultralytics' validator table: "%22s" then "%11i" x 2 and "%11.3g" x 4, a row "all" first.
void printTable(const std::vector<PerClassRow>& rows) {
    char line[256];
    std::snprintf(line, sizeof line, "%22s%11s%11s%11s%11s%11s%11s\n", "Class", "Images",
                  "Instances", "Box(P", "R", "mAP50", "mAP50-95)");
    std::cout << line;
    for (const PerClassRow& r : rows) {
        std::snprintf(line, sizeof line, "%22s%11i%11i%11.3g%11.3g%11.3g%11.3g\n", r.name.c_str(),
                      r.images, r.instances, r.precision, r.recall, r.ap50, r.ap);
        std::cout << line;
    }
}

int runVal(const ParsedArgs& given) {
    // split=val|test is val's own key (Ultralytics' spelling), not a training setting.
    ParsedArgs args = given;
    const std::string splitName = args.takeOverride("split").value_or("val");
    if (splitName != "val" && splitName != "test") {
        std::cerr << "val: split must be val or test, got '" << splitName << "'\n";
        return ExitUsage;
    }
    const Split split = splitName == "test" ? Split::Test : Split::Val;
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    const std::string weights = startingWeights(config);
    if (weights.empty()) {
        std::cerr << "val: --weights FILE is required (a .pt from Headroom or Ultralytics, e.g. "
                     "runs/train/weights/best.pt or yolov8n.pt)\n";
        return ExitUsage;
    }
    useComputeThreads(config.threads);
    LoadedModel loaded = loadModel(weights);
    if (!loaded.model) {
        std::cerr << "val: " << loaded.error << "\n";
        return ExitFailure;
    }
    // Like Ultralytics, validate at the size the weights were trained at unless told otherwise.
    const bool imgszGiven =
        args.has("--config") || std::any_of(args.overrides().begin(), args.overrides().end(),
                                            [](const auto& kv) { return kv.first == "imgsz"; });
    if (const int trained = trainedImageSize(loaded.trainingConfigYaml);
        !imgszGiven && trained > 0 && trained != config.imgsz) {
        config.imgsz = trained;
        std::cerr << "val: imgsz " << trained
                  << ", the size these weights were trained at (imgsz=N to choose another)\n";
    }
    std::string dataPath = config.data;
    if (dataPath.empty()) {
        std::string error;
        dataPath = ensureBuiltinDataset(&error);
        if (dataPath.empty()) {
            std::cerr << "val: " << error << "\n";
            return ExitFailure;
        }
    }
    const DataConfigResult data = loadDataConfig(dataPath);
    std::cerr << formatDiagnostics(data.diagnostics);
    if (!data.config)
        return ExitFailure;
    ScanOptions scan;
    scan.singleCls = config.single_cls;
    scan.largeScanConfirmed = args.has("--yes");
    if (split == Split::Test && data.config->test.empty()) {
        std::cerr << "val: " << dataPath
                  << " has no 'test' split (add 'test: images/test', or use split=val)\n";
        return ExitFailure;
    }
    auto report = std::make_shared<DatasetReport>(scanDataset(*data.config, split, scan));
    if (!report->usable()) {
        std::cerr << formatReport(*report);
        return ExitFailure;
    }
    const int nc = loaded.model->nc();
    if (static_cast<int>(report->names.size()) != nc) {
        std::cerr << "val: " << weights << " has " << nc << " classes, the data set " << dataPath
                  << " has " << report->names.size()
                  << " (validate on a data set of the weights' classes, or fine-tune on this one "
                     "first: headroom-cli train model="
                  << weights << " data=" << dataPath << ")\n";
        return ExitFailure;
    }
    if (const std::string w = classNamesMismatch(loaded.classNames, report->names); !w.empty())
        std::cerr << "val: warning: " << w
                  << "; the scores count the weights' class i as the data set's class i\n";
    const torch::Device device = config.device == "cpu" || !torch::cuda::is_available()
                                     ? torch::Device(torch::kCPU)
                                     : torch::Device(torch::kCUDA, 0);
    config.checkpointing = Checkpointing::None;
    config.freeze.clear();
    // The allocator a run validates with: it keeps freed blocks for the next batch, where
    // glibc's own would hand them back and fault them in again (4-5 s of a 10 s run in the
    // kernel; docs/decisions.md, "8-bit batches").
    CpuMemoryTracker::instance().install();
    TrainStep step(config, loaded.model, nc, device);
    // Nothing trains here: BatchNorm folded into its convolution saves a pass per layer.
    step.emaModel()->fuse();
    DataLoader loader(report, LoaderOptions::fromConfig(config, false, device));
    MetricsAccumulator metrics(nc);
    std::array<double, 3> losses{0, 0, 0};
    int batches = 0;
    const auto start = std::chrono::steady_clock::now();
    loader.startEpoch(0);
    Batch batch;
    while (loader.next(batch)) {
        const ValidationOutput out = step.validateBatch(batch, &metrics);
        for (int k = 0; k < 3; ++k)
            losses[k] += out.items[k];
        ++batches;
    }
    if (!loader.error().empty()) {
        std::cerr << "val: " << loader.error() << "\n";
        return ExitFailure;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const MetricsResult result = metrics.compute();
    // As Ultralytics: the per-class rows only when there is more than one class.
    std::vector<PerClassRow> rows =
        perClassRows(result, loaded.classNames.empty() ? report->names : loaded.classNames);
    if (nc == 1)
        rows.resize(1);
    printTable(rows);
    const double n = std::max(batches, 1);
    std::cout << std::fixed << std::setprecision(4) << "val losses: box " << losses[0] / n
              << " cls " << losses[1] / n << " dfl " << losses[2] / n << "\n"
              << std::setprecision(1) << metrics.imageCount() / std::max(seconds, 1e-9)
              << " images/s, mAP50 " << std::setprecision(4) << result.map50 << " mAP50-95 "
              << result.map << " fitness " << result.fitness() << "\n";
    return ExitOk;
}

Command makeValCommand() {
    Command c("val", runVal,
              "evaluate weights on a validation split (P, R, mAP50, mAP50-95 per class)",
              "headroom-cli val --data D --weights W [split=val|test] [key=value ...]",
              "Validates as training does: letterboxed rectangular batches at imgsz, NMS "
              "with conf=0.001 iou=0.7 max_det=300 (all overridable), AP with 101-point "
              "interpolation at IoU 0.50:0.05:0.95, under the amp setting as in training "
              "(bf16 on a CPU; amp=false validates in fp32). split=test evaluates the data "
              "set's 'test' images instead of 'val'. Without --data: the built-in set.");
    c.options = trainConfigOptions({largeScanOption()});
    c.acceptsOverrides = true;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeValCommand);

} // namespace hr::cli
