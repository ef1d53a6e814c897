// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "results/tfevents_writer.h"
#include "train/events.h"

#include <string>
#include <utility>
#include <vector>

namespace hr {

/// A run's TensorBoard log: per epoch the losses, metrics, learning rates, memory peaks and
/// speed under Ultralytics' tags (those of results.csv: "train/box_loss", "metrics/mAP50(B)",
/// "lr/pg0", ...; Headroom's own under "memory/" and "time/"), and each memory sample as
/// "memory/allocated_MiB" and "memory/reserved_MiB" against milliseconds since the sampler
/// started. `tensorboard --logdir <project>` shows every run. RunFolder owns one.
class TensorBoardLog {
public:
    /// The event file is named by the current time; a resumed run gets a second file, which
    /// TensorBoard reads together with the first.
    explicit TensorBoardLog(const std::string& folder);

    /// Records what TensorBoard shows of `event` (EpochEnd, MemorySample; others are left out).
    void add(const TrainEvent& event);
    bool flush(std::string* error) { return m_writer.flush(error); }
    const std::string& path() const { return m_writer.path(); }

    /// The scalars of one epoch.
    static std::vector<std::pair<std::string, float>> epochScalars(const EpochEnd& epoch);

private:
    TfEventsWriter m_writer;
};

} // namespace hr
