// SPDX-License-Identifier: GPL-3.0-or-later
// bench train's measurements beside the step: the step's CPU time by operator (--profile) and
// the model's convolutions run alone (the rate they could reach).
#pragma once

#include "memory/phase.h"
#include "model/model_summary.h"

#include <ATen/record_function.h>
#include <c10/core/ScalarType.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hr::cli {

/// Self CPU time (the thread's own, not wall time) of every operator (and autograd node) that
/// runs on the calling thread while it lives: what a step's time is made of, by operator,
/// forward and backward alike. Built on RecordFunction's thread-local callbacks, which both
/// LibTorch 1.13 and 2.x have.
class OperatorProfile {
public:
    struct Row {
        std::string phase; ///< the step's phase when the operator started
        std::string name;
        std::string type; ///< its kind of layer work, or the enclosing operator's when "other"
        double selfSeconds = 0;
        long long calls = 0;
    };

    OperatorProfile();
    ~OperatorProfile() { stop(); }
    OperatorProfile(const OperatorProfile&) = delete;
    OperatorProfile& operator=(const OperatorProfile&) = delete;

    /// Operators started from now on count in `phase`.
    void setPhase(Phase phase) { m_phase = toString(phase); }
    void stop();
    /// Every operator, largest self time first.
    std::vector<Row> rows() const;

private:
    struct Open {
        double start; ///< threadCpuSeconds()
        const char* phase;
        std::string type;
        double children = 0;
    };

    static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn);
    static void leave(const at::RecordFunction& fn, at::ObserverContext*);

    static thread_local OperatorProfile* t_active;
    at::CallbackHandle m_handle = 0;
    const char* m_phase = "idle";
    std::vector<Open> m_open;
    std::map<std::string, Row> m_rows;
};

/// The profile for a terminal: time per layer type, then the ten largest operators.
void printProfile(const std::vector<OperatorProfile::Row>& rows, long long steps,
                  double stepCpuSeconds);

/// The convolutions of a step run alone, in one precision: the rate the step's convolutions
/// could reach on this CPU with these threads, for the step's own shapes and batch.
struct ConvolutionPeak {
    double gflop = 0;   ///< forward + backward of every call, one step
    double seconds = 0; ///< the calls' best times (the calling thread's CPU time), summed
    double gflops() const { return seconds > 0 ? gflop / seconds : 0; }
};

/// Times forward and backward (input and weight gradients; no input gradient for the first
/// convolution, whose input is the image) of each of the model's convolution shapes at `batch`
/// in channels-last tensors of `dtype`, the layout training uses; best of three after a warm-up.
/// Timed in the calling thread's CPU time, like the step it is compared with, so that other
/// programs on the machine stretch neither.
ConvolutionPeak measureConvolutionPeak(const std::vector<ConvolutionCall>& calls, int batch,
                                       at::ScalarType dtype);

} // namespace hr::cli
