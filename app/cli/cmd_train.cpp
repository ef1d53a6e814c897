// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli train: a complete training run with a progress line per epoch.
#include "command.h"
#include "common.h"
#include "oom_prompt.h"

#include "advisor/oom_diagnosis.h"
#include "config/data_config.h"
#include "config/machine_limits.h"
#include "config/train_rules.h"
#include "dist/launch_env.h"
#include "dist/worker_launcher.h"
#include "estimate/auto_fit.h"
#include "estimate/host_memory.h"
#include "estimate/memory_estimator.h"
#include "train/trainer.h"
#include "util/bytes.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace hr::cli {
namespace {

std::atomic<Trainer*> g_running{nullptr};
std::atomic<int> g_stopSignal{0}; ///< the SIGINT or SIGTERM that asked the run to stop

void onInterrupt(int signal) {
    // First Ctrl-C (or SIGTERM of one process): stop after the current step, with last.pt
    // written; the default handler is back for a second one.
    g_stopSignal = signal;
    if (Trainer* trainer = g_running.load())
        trainer->requestStopFromSignal();
    std::signal(signal, SIG_DFL);
}

/// The exit code of a run a signal stopped: the shell's 128 + N, never success.
int stoppedBySignal(int signal) {
    return 128 + signal;
}

void onTerminate(int signal) {
    // A worker of a data-parallel run: the launcher ends the others this way when one has
    // failed. Give up the rendezvous wait or fail at the next batch; a second one kills.
    std::signal(SIGTERM, SIG_DFL);
    if (Trainer* trainer = g_running.load())
        trainer->abortFromSignal(signal);
    else
        std::raise(signal);
}

std::string duration(double seconds) {
    if (!(seconds >= 0) || seconds > 1e7)
        return "?";
    const long s = static_cast<long>(seconds + 0.5);
    std::ostringstream out;
    if (s >= 3600)
        out << s / 3600 << "h" << std::setw(2) << std::setfill('0') << (s / 60) % 60 << "m";
    else if (s >= 60)
        out << s / 60 << "m" << std::setw(2) << std::setfill('0') << s % 60 << "s";
    else
        out << s << "s";
    return out.str();
}

/// Prints the event stream as a terminal progress display.
class ProgressPrinter {
public:
    explicit ProgressPrinter(int epochs) : m_tty(::isatty(STDOUT_FILENO) == 1), m_epochs(epochs) {}

    void operator()(const TrainEvent& event) {
        std::visit([this](const auto& e) { show(e); }, event);
    }

private:
    void endLine() {
        if (m_open)
            std::cout << "\n";
        m_open = false;
    }
    void show(const RunStarted& e) {
        m_epochs = e.config.epochs;
        std::cout << "run folder " << e.runDir << "\n"
                  << "model " << e.config.model << ", " << e.parameters << " parameters; imgsz "
                  << e.config.imgsz << ", batch " << e.config.batch << ", " << e.batchesPerEpoch
                  << " batches per epoch, device " << e.config.device
                  << (e.config.amp ? ", AMP" : "") << "\n";
        if (e.startEpoch > 0)
            std::cout << "resuming at epoch " << e.startEpoch + 1 << "\n";
        std::cout << std::flush;
    }
    void show(const BatchEnd& e) {
        const bool last = e.batchIndex + 1 == e.batchesPerEpoch;
        if (!m_tty && !last)
            return;
        const double itPerSecond =
            e.imagesPerSecond > 0 && m_batchImages > 0 ? e.imagesPerSecond / m_batchImages : 0;
        std::ostringstream line;
        line << std::fixed << std::setprecision(3) << "epoch " << e.epoch + 1 << "/" << m_epochs
             << "  " << e.batchIndex + 1 << "/" << e.batchesPerEpoch << "  box " << e.boxLoss
             << " cls " << e.clsLoss << " dfl " << e.dflLoss << std::setprecision(1) << "  "
             << e.imagesPerSecond << " img/s";
        if (itPerSecond > 0)
            line << " (" << std::setprecision(2) << itPerSecond << " it/s)";
        line << "  mem " << formatBytes(e.peakBytes) << "  ETA " << duration(e.etaSeconds);
        if (m_tty) {
            std::string text = line.str();
            const size_t width = std::max(m_lastWidth, text.size());
            m_lastWidth = text.size();
            text.resize(width, ' ');
            std::cout << "\r" << text << std::flush;
            m_open = true;
        } else {
            std::cout << line.str() << "\n" << std::flush;
        }
    }
    void show(const EpochEnd& e) {
        endLine();
        std::cout << std::fixed << std::setprecision(3) << "epoch " << e.epoch + 1 << "/"
                  << e.epochs << "  P " << e.precision << " R " << e.recall << " mAP50 " << e.map50
                  << " mAP50-95 " << e.map << "  val box " << e.valBoxLoss << " cls "
                  << e.valClsLoss << " dfl " << e.valDflLoss << std::setprecision(1) << "  "
                  << e.epochSeconds << " s, " << e.imagesPerSecond << " img/s, peak "
                  << formatBytes(e.peakBytes()) << (e.best ? "  *best" : "") << "\n"
                  << std::flush;
        m_lastWidth = 0;
    }
    void show(const MemorySample&) {}
    void show(const OomOccurred& e) {
        endLine();
        std::cout << "out of memory in the " << toString(e.report.phase) << " phase (epoch "
                  << e.report.epoch + 1 << ", batch " << e.report.batchIndex + 1
                  << "): " << e.report.rawMessage << "\n"
                  << std::flush;
    }
    void show(const FixApplied& e) {
        endLine();
        std::cout << "fix applied: " << e.description << " (" << e.fixId << "); continuing at "
                  << "epoch " << e.epoch + 1 << ", batch size " << e.config.batch << ", imgsz "
                  << e.config.imgsz;
        if (e.predictedPeak > 0)
            std::cout << ", predicted peak " << formatBytes(e.predictedPeak);
        std::cout << "\n" << std::flush;
    }
    void show(const FixChecked& e) {
        std::cout << "fix check (" << e.fixId << "): " << describeFixCheck(e) << "\n" << std::flush;
    }
    void show(const RunFinished& e) {
        endLine();
        m_stopped = e.state == RunState::Stopped;
        switch (e.state) {
        case RunState::Failed:
            std::cerr << "training failed: " << e.reason << "\n";
            break;
        case RunState::StoppedByOom:
            std::cerr << "stopped: " << e.reason << "\n";
            break;
        case RunState::Finished:
        case RunState::Stopped:
            if (e.state == RunState::Stopped && g_stopSignal != 0)
                std::cerr << "stopped by " << (g_stopSignal == SIGTERM ? "SIGTERM" : "SIGINT")
                          << " after the current step: weights/last.pt holds the last finished "
                             "epoch ("
                          << e.epochsDone << "); add --resume to the same command to continue\n";
            std::cout << std::fixed << std::setprecision(3)
                      << (e.state == RunState::Stopped ? "stopped by the user after " : "finished ")
                      << e.epochsDone << " epochs"
                      << (e.stoppedEarly ? " (stopped early: patience)" : "") << "; best mAP50 "
                      << e.map50 << ", mAP50-95 " << e.map << "\n";
            break;
        }
        if (!e.runDir.empty())
            std::cout << "results in " << e.runDir << "\n";
        std::cout << std::flush;
    }
    void show(const RunFailed&) {} // RunFinished follows with the same reason
    void show(const LogMessage& e) {
        endLine();
        (e.level == LogMessage::Level::Info ? std::cout : std::cerr)
            << (e.level == LogMessage::Level::Warning ? "warning: "
                : e.level == LogMessage::Level::Error ? "error: "
                                                      : "")
            << e.text << "\n"
            << std::flush;
    }

public:
    void setBatchImages(int images) { m_batchImages = images; }
    /// The run ended as stopped (by the user or a signal).
    bool stopped() const { return m_stopped; }

private:
    bool m_tty;
    bool m_open = false;
    int m_epochs;
    int m_batchImages = 0;
    size_t m_lastWidth = 0;
    bool m_stopped = false;
};

/// nproc and the memory the run needs against this machine (before any worker starts);
/// prints the errors. A resumed run's settings are in its checkpoint: here only nproc is
/// checked, the trainer checks the rest (Trainer::setMachineCheck).
bool fitsThisMachine(const TrainConfig& config) {
    int nc = 0; // 0: the memory is not checked
    if (config.single_cls && !config.resume)
        nc = 1;
    else if (!config.resume && !config.data.empty())
        if (const DataConfigResult data = loadDataConfig(config.data); data.config)
            nc = data.config->nc();
    // An unreadable data set is named by the run's own start; the built-in one is small.
    const Diagnostics problems = machineLimitProblems(config, nc);
    std::cerr << formatDiagnostics(problems);
    return !hasErrors(problems);
}

/// `--nproc N` (or nproc=N) without torchrun's variables set: start N workers of this same
/// command line, which find RANK/WORLD_SIZE in their environment and train.
int launchWorkers(const ParsedArgs& args, const TrainConfig& config) {
    WorkerPlan plan;
    plan.nproc = config.nproc;
    std::string error;
    const auto integer = [&](const char* name, int fallback) {
        if (!args.has(name))
            return fallback;
        const auto value = args.integer(name, &error);
        return value ? static_cast<int>(*value) : fallback;
    };
    plan.nnodes = integer("--nnodes", 1);
    plan.nodeRank = integer("--node-rank", 0);
    plan.masterPort = integer("--master-port", 0);
    plan.masterAddr = args.value("--master-addr", plan.masterAddr);
    if (!error.empty()) {
        std::cerr << "train: " << error << "\n";
        return ExitUsage;
    }
    if (config.batch < 1) {
        std::cerr << "train: batch=-1 (auto-fit) works with one process; give batch=N (the "
                     "total over all processes) with --nproc\n";
        return ExitUsage;
    }
    plan.arguments = ownArguments();
    if (plan.arguments.empty()) {
        std::cerr << "train: cannot read this process's command line to start the workers\n";
        return ExitFailure;
    }
    const int world = plan.nproc * plan.nnodes;
    std::cout << "starting " << plan.nproc << " worker processes (ranks "
              << plan.nodeRank * plan.nproc << "-" << (plan.nodeRank + 1) * plan.nproc - 1 << " of "
              << world << "); batch " << config.batch << " in total, "
              << rankBatch(config.batch, world) << " per process; rank 0 writes the run\n"
              << std::flush;
    plan.libraryLog = (std::filesystem::path(config.project) / "network.log").string();
    const WorkerOutcome outcome = runWorkers(plan, kWorkerGrace);
    if (outcome.libraryLogLines > 0)
        std::cerr << "train: " << outcome.libraryLogLines
                  << " lines of the network library's log (c10d, Gloo) are in " << plan.libraryLog
                  << "\n";
    if (outcome.exitCode != 0) {
        std::cerr << "train: " << outcome.summary;
        if (outcome.firstFailedRank >= 0)
            std::cerr << "train: the run cannot go on without rank " << outcome.firstFailedRank
                      << ". Fix what its output above says and run the same command again; "
                         "add --resume to continue from the last finished epoch "
                         "(weights/last.pt of the run folder).\n";
        return ExitFailure;
    }
    return ExitOk;
}

int runTrain(const ParsedArgs& args) {
    TrainConfig config;
    if (!buildTrainConfig(args, config))
        return ExitUsage;
    if (args.has("--resume"))
        config.resume = true;
    std::string launchError;
    const std::optional<LaunchEnv> launch = readLaunchEnv(&launchError);
    if (!launch) {
        std::cerr << "train: " << launchError << "\n";
        return ExitUsage;
    }
    if (!launch->distributed() && !args.has("--force") && !fitsThisMachine(config))
        return ExitUsage;
    if (!launch->distributed() && (config.nproc > 1 || args.has("--nnodes")))
        return launchWorkers(args, config);
    if (launch->rank != 0) {
        // A worker other than rank 0: rank 0 reports; this one says only what goes wrong.
        Trainer worker(config, [rank = launch->rank](const TrainEvent& event) {
            if (const auto* failed = std::get_if<RunFailed>(&event))
                std::cerr << "rank " << rank << ": training failed: " << failed->message << "\n";
            else if (const auto* log = std::get_if<LogMessage>(&event);
                     log && log->level == LogMessage::Level::Error)
                std::cerr << "rank " << rank << ": " << log->text << "\n";
        });
        worker.confirmLargeScan(args.has("--yes"));
        g_running = &worker;
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onTerminate);
        const int rc = worker.run();
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        g_running = nullptr;
        return rc == 0 ? ExitOk : ExitFailure;
    }
    if (config.batch == -1 && !config.resume) {
        // Auto-fit: the budget, or the machine's RAM on CPU when there is none.
        const std::int64_t ram =
            static_cast<std::int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
        std::string error;
        const FitResult fit = resolveAutoBatch(config, ram, &error);
        if (!error.empty() || !fit.fits) {
            std::cerr << "train: batch=-1: " << (error.empty() ? fit.summary : error) << "\n";
            return ExitFailure;
        }
        std::cout << "auto-fit: " << fit.summary << "\n";
        config = fit.config;
    }
    ProgressPrinter printer(config.epochs);
    printer.setBatchImages(config.batch);
    Trainer trainer(config, [&printer](const TrainEvent& event) {
        if (const auto* fix = std::get_if<FixApplied>(&event))
            printer.setBatchImages(fix->config.batch);
        printer(event);
    });
    // Fixes are ranked with the estimator's predicted peaks (calibrated once, then cached).
    trainer.setOomHandler(makeOomHandler(config, predictPeak));
    if (config.resume && !args.has("--force"))
        trainer.setMachineCheck(machineLimitProblems); // the stored settings, once read
    trainer.confirmLargeScan(args.has("--yes"));
    trainer.setMinimumBudget(smallestWorkingBudget);
    g_running = &trainer;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, launch->distributed() ? onTerminate : onInterrupt);
    const int rc = trainer.run();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_running = nullptr;
    if (rc == 0 && printer.stopped() && g_stopSignal != 0)
        return stoppedBySignal(g_stopSignal);
    return rc == 0 ? ExitOk : ExitFailure;
}

Command makeTrainCommand() {
    Command c(
        "train", runTrain, "train a YOLO detector (runs/<name>/ gets results, events, weights)",
        "headroom-cli train --data D --model M [--epochs N] [--budget B] [--resume] "
        "[key=value ...]",
        "Trains from scratch (or from weights=FILE) on a YOLO-format data set; without --data "
        "the built-in synthetic set is used. Settings use Ultralytics' names as key=value "
        "(imgsz=320 batch=16 epochs=30 optimizer=SGD amp=false project=runs name=exp ...).\n"
        "The run folder PROJECT/NAME (numbered train, train2, ...) receives config.yaml, "
        "results.csv, events.jsonl, memory.csv and weights/last.pt, best.pt. --resume (or "
        "resume=true) continues the newest PROJECT/NAME* run from its last.pt.\n"
        "On an out-of-memory error on_oom=auto applies the advisor's top fix and continues, "
        "ask prompts, stop saves and exits non-zero. Ctrl-C (SIGINT) or SIGTERM stops after the "
        "current step (exit code 130 or 143; the run's state is stopped). A data set whose "
        "folders hold more than 100000 files (path: / in data.yaml) is scanned only with "
        "--yes.\n"
        "--nproc N starts N data-parallel worker processes (c10d, Gloo): batch is the total, "
        "each process reads its own share of every epoch, gradients are averaged, rank 0 "
        "writes the run folder and validates; zero=1 shards the optimizer state. The "
        "variables RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (torchrun's) start "
        "a worker directly.");
    c.options = trainConfigOptions({
        {"--resume", "", "continue the newest run PROJECT/NAME* from last.pt"},
        {"--nproc", "N", "data-parallel worker processes on this machine"},
        {"--force", "", "start even when nproc or the memory needed exceeds this machine"},
        largeScanOption(),
        {"--nnodes", "N", "machines in a multi-machine run (default 1)"},
        {"--node-rank", "I", "this machine's index, 0 to nnodes-1"},
        {"--master-addr", "HOST", "address of rank 0's machine (127.0.0.1)"},
        {"--master-port", "PORT", "rank 0's rendezvous port (default: a free one)"},
    });
    c.acceptsOverrides = true;
    c.listsSettings = true;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makeTrainCommand);

} // namespace hr::cli
