// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/strategy_runner.h"

#include "train/trainer.h"
#include "util/user_message.h"

#include <exception>

namespace hr {

StrategyRunner::StrategyRunner(TrainConfig base, std::vector<Strategy> strategies)
    : m_base(std::move(base)), m_strategies(std::move(strategies)) {}

StrategyRunner::~StrategyRunner() = default;

void StrategyRunner::requestStop() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    if (m_current)
        m_current->requestStop();
}

Comparison StrategyRunner::run() {
    Comparison comparison;
    for (size_t i = 0; i < m_strategies.size(); ++i) {
        const Strategy& strategy = m_strategies[i];
        ComparisonRow row;
        row.strategy = strategy.name;
        row.description =
            strategy.description.empty() ? describeOverrides(strategy) : strategy.description;
        row.claim = strategy.claim;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_stop) {
                row.status = "not run";
                row.message = "the comparison was stopped";
                row.messageCode = "comparison_stopped";
                comparison.rows.push_back(row);
                continue;
            }
        }
        Diagnostics problems;
        const std::optional<TrainConfig> config = applyStrategy(m_base, strategy, problems);
        if (!config) {
            row.status = "invalid";
            for (const Diagnostic& d : problems)
                if (d.severity == Diagnostic::Severity::Error) {
                    row.message += (row.message.empty() ? "" : "; ") + d.toString();
                    row.problems.push_back(d);
                }
            row.messageCode = "strategy_invalid";
            comparison.rows.push_back(row);
            continue;
        }
        std::string runDir, failure, failureCode, oomPhase;
        std::vector<std::string> failureArgs;
        try {
            Trainer trainer(*config, [&](const TrainEvent& event) {
                if (const auto* started = std::get_if<RunStarted>(&event))
                    runDir = started->runDir;
                else if (const auto* failed = std::get_if<RunFailed>(&event)) {
                    failure = failed->message;
                    failureCode = failed->code;
                    failureArgs = failed->args;
                } else if (const auto* oom = std::get_if<OomOccurred>(&event))
                    oomPhase = oomPhase.empty() ? toString(oom->report.phase) : oomPhase;
                if (m_sink)
                    m_sink(i, event);
            });
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_current = &trainer;
                if (m_stop)
                    trainer.requestStop();
            }
            trainer.run();
            std::lock_guard<std::mutex> lock(m_mutex);
            m_current = nullptr;
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_current = nullptr;
            failure = userMessage(e);
            failureCode = "unexpected";
            failureArgs = {failure};
        }
        std::string loadError;
        std::optional<RunRecord> record;
        if (!runDir.empty())
            record = RunStore::load(runDir, &loadError);
        if (record) {
            ComparisonRow measured = rowFromRun(*record, &strategy);
            if (measured.oomPhase.empty())
                measured.oomPhase = oomPhase;
            if (measured.message.empty()) {
                measured.message = failure;
                measured.messageCode = failureCode;
                measured.messageArgs = failureArgs;
            }
            comparison.rows.push_back(std::move(measured));
        } else {
            row.runDir = runDir;
            row.status = oomPhase.empty() ? "failed" : "OOM";
            row.oomPhase = oomPhase;
            row.message = failure.empty() ? loadError : failure;
            row.messageCode = failure.empty() ? "run_unreadable" : failureCode;
            row.messageArgs = failure.empty() ? std::vector<std::string>{loadError} : failureArgs;
            comparison.rows.push_back(row);
        }
    }
    markParetoFront(comparison);
    return comparison;
}

} // namespace hr
