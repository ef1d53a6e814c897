// SPDX-License-Identifier: GPL-3.0-or-later
#include "estimate/probe_session.h"

#include "estimate/probe_batch.h"
#include "eval/metrics_accumulator.h"
#include "model/detection_model.h"
#include "model/model_builder.h"
#include "util/process_time.h"

#include <torch/torch.h>

#include <ATen/Parallel.h>

#include <algorithm>

namespace hr::estimate {

ProbeSession::ProbeSession(const TrainConfig& config, const DataFacts& facts, int stepBatch,
                           std::string* error) {
    m_nc = facts.nc;
    m_probe = makeProbe(config.device, error);
    if (!m_probe)
        return;
    m_savedBudget = m_probe->budget();
    m_probe->setBudget(0);
    m_baseline = m_probe->allocated();
    ModelBuild build = buildModel(config.model, facts.nc, config.model_scale);
    if (!build.model) {
        if (error)
            *error = build.diagnostics.empty() ? "cannot build " + config.model
                                               : build.diagnostics.front().toString();
        return;
    }
    TrainConfig stepConfig = config;
    stepConfig.batch = stepBatch;
    const std::string name = m_probe->deviceName();
    const torch::Device device = name == "cpu" ? torch::Device(torch::kCPU) : torch::Device(name);
    m_step = std::make_unique<TrainStep>(stepConfig, build.model, facts.nc, device,
                                         plannedIterations(config, facts));
    StepSchedule schedule = m_step->schedule();
    schedule.accumulate = 1; // every probe step also runs the optimizer
    m_step->setSchedule(schedule);
    m_step->setPhaseCallback([this](Phase next) { enterPhase(next); });
}

ProbeSession::~ProbeSession() {
    m_step.reset();
    if (m_probe) {
        m_probe->setBudget(m_savedBudget);
        m_probe->resetPeak();
    }
}

namespace {

/// CPU time of a probe step. With one compute thread the step runs in the calling thread, whose
/// own CPU time leaves out every other thread of the process (the studio drawing its live curve
/// while a person chooses a fix); with more, the process' (OpenMP's threads do the work).
double stepCpuSeconds() {
    return at::get_num_threads() == 1 ? threadCpuSeconds() : processCpuSeconds();
}

} // namespace

StepPeaks ProbeSession::trainPeaks(const Batch& batch) {
    m_parts.fill(0);
    m_seconds = {};
    m_probe->resetPeak();
    m_recording = true;
    m_phaseStart = stepCpuSeconds();
    try {
        m_step->step(batch);
    } catch (...) {
        m_recording = false;
        throw;
    }
    m_recording = false;
    return m_parts;
}

std::int64_t ProbeSession::trainPeak(const Batch& batch) {
    const StepPeaks parts = trainPeaks(batch);
    return *std::max_element(parts.begin(), parts.end());
}

std::int64_t ProbeSession::valPeak(const Batch& batch) {
    MetricsAccumulator metrics(std::max(m_nc, 1));
    m_probe->resetPeak();
    m_step->validateBatch(batch, &metrics);
    return m_probe->peak() - m_baseline;
}

void ProbeSession::enterPhase(Phase next) {
    if (m_recording) {
        std::int64_t& part = m_parts[partOf(m_phase)];
        part = std::max(part, m_probe->peak() - m_baseline);
        m_probe->resetPeak();
        const double now = stepCpuSeconds();
        (partOf(m_phase) == PartOptimizer ? m_seconds.optimizer : m_seconds.work) +=
            now - m_phaseStart;
        m_phaseStart = now;
    }
    m_phase = next;
}

StepPart partOf(Phase phase) {
    switch (phase) {
    case Phase::Loss:
        return PartLoss;
    case Phase::Backward:
        return PartBackward;
    case Phase::Optimizer:
    case Phase::Ema:
        return PartOptimizer;
    default:
        return PartForward; // data, forward
    }
}

/// The median of the values; 0 for none.
double median(std::vector<double> values) {
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void timePairs(ProbeSession& session, const Batch& batch, int pairs, std::vector<double>& work,
               std::vector<double>& optimizer) {
    for (int i = 0; i < pairs; ++i) {
        session.trainPeaks(batch);
        work.push_back(session.lastSeconds().work);
        session.trainPeaks(batch);
        work.push_back(session.lastSeconds().work);
        optimizer.push_back(session.lastSeconds().optimizer);
    }
}

} // namespace hr::estimate

namespace hr {

Batch probeBatch(int batch, int imgsz, int objects, int nc) {
    Batch out;
    out.images = torch::randint(256, {batch, 3, imgsz, imgsz}, torch::kUInt8);
    const std::int64_t n = std::int64_t(batch) * objects;
    auto targets = torch::empty({n, 6});
    targets.select(1, 0).copy_(torch::arange(batch).repeat_interleave(objects).to(torch::kFloat));
    targets.select(1, 1).copy_(torch::randint(std::max(nc, 1), {n}).to(torch::kFloat));
    targets.narrow(1, 2, 2).copy_(torch::rand({n, 2}) * 0.6 + 0.2);
    targets.narrow(1, 4, 2).copy_(torch::rand({n, 2}) * 0.25 + 0.05);
    out.targets = targets;
    out.paths.assign(std::size_t(batch), std::string());
    return out;
}

} // namespace hr
