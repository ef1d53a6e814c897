// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli fit: the settings that fit a memory budget (largest batch, accumulation, AMP,
// checkpointing, image size), with the reasons.
#include "command.h"
#include "common.h"

#include "estimate/auto_fit.h"
#include "util/bytes.h"

#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <thread>

namespace hr::cli {
namespace {

int runFit(const ParsedArgs& args) {
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    if (config.memory_budget <= 0) {
        std::cerr << "fit: --budget SIZE is required (e.g. --budget 3GiB)\n";
        return ExitUsage;
    }
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    at::set_num_threads(config.threads > 0 ? config.threads : cores);
    std::string error;
    const FitResult fit = fitToBudget(config, config.memory_budget, &error);
    if (fit.summary.empty()) {
        std::cerr << "fit: " << error << "\n";
        return ExitFailure;
    }
    for (const std::string& reason : fit.reasons)
        std::cout << "- " << reason << "\n";
    std::cout << (fit.fits ? "Chosen: " : "") << fit.summary << "\n";
    if (fit.fits)
        std::cout << "Use: batch=" << fit.config.batch
                  << " amp=" << (fit.config.amp ? "true" : "false")
                  << " checkpointing=" << toString(fit.config.checkpointing)
                  << " imgsz=" << fit.config.imgsz << "\n";
    return fit.fits ? ExitOk : ExitFailure;
}

Command makeFitCommand() {
    Command command;
    command.name = "fit";
    command.summary = "choose batch, AMP, checkpointing and image size for a memory budget";
    command.usage = "headroom-cli fit --data D --model M --budget B [key=value ...]";
    command.description =
        "Predicts peaks with the estimator and picks the largest batch whose training and "
        "validation peaks stay under 90% of the budget, keeping the nominal batch (nbs) through "
        "accumulation. When even batch 1 does not fit it turns on AMP, then gradient "
        "checkpointing, then lowers the image size. A budget nothing fits is reported with the "
        "smallest budget that would work (exit code 1).";
    command.options = trainConfigOptions();
    command.acceptsOverrides = true;
    command.run = runFit;
    return command;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeFitCommand);

} // namespace hr::cli
