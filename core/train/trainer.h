// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/train_config.h"
#include "train/events.h"

#include <memory>

namespace hr {

/// A complete training run: data, model, loss, optimizer, validation, the run folder.
/// The header is LibTorch-free so that the GUI adapter can own a Trainer without pulling in
/// torch. Every method except run() may be called from any thread.
class Trainer {
public:
    /// `sink` receives every event, on the thread that calls run().
    Trainer(TrainConfig config, EventSink sink);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// Trains to the end (or until stopped) on the calling thread. Returns 0 when the run
    /// finished or was stopped by the user, non-zero when it failed (a RunFailed event says
    /// why). Never throws.
    int run();

    /// Pauses / resumes between steps.
    void requestPause(bool paused);
    /// Stops after the current step; the run folder keeps the last checkpoint.
    void requestStop();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace hr
