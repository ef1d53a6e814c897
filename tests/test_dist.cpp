// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel training on c10d/Gloo over loopback: ranks run as threads of this process, each
// with its own ProcessGroupGloo on a shared HashStore. 2 ranks x batch 8 must give the same
// weights as 1 rank x batch 16 (with and without ZeRO-1), gradient buckets must launch during
// backward, a failed step on one rank must leave every rank's weights untouched, and a rank
// that disappears must end the others with an error instead of a hang. With BatchNorm in
// training mode, synchronised BatchNorm must make 2 x 8 match 1 x 16 again (weights and running
// statistics), and a rank that fails while the others wait inside a BatchNorm must end the step
// on every rank with the channel still usable.
#include "config/train_config.h"
#include "data/data_loader.h"
#include "dist/data_parallel_group.h"
#include "dist/gradient_sync.h"
#include "dist/launch_env.h"
#include "dist/stderr_library_log.h"
#include "dist/sync_batch_norm.h"
#include "dist/worker_launcher.h"
#include "dist/zero_sharding.h"
#include "train/optimizer_factory.h"
#include "train/weight_updater.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/torch.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <set>
#include <thread>

namespace {

using namespace std::chrono_literals;

/// Conv + BatchNorm (eval mode: per-batch statistics would differ between 8 and 16 images) +
/// linear head: all three of Ultralytics' parameter groups are non-empty.
struct TinyNetImpl : torch::nn::Module {
    TinyNetImpl()
        : conv1(register_module("conv1",
                                torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)))),
          bn(register_module("bn", torch::nn::BatchNorm2d(8))),
          conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3)))),
          conv3(register_module("conv3", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3)))),
          fc(register_module("fc", torch::nn::Linear(8, 3))) {}
    torch::Tensor forward(const torch::Tensor& x) {
        const torch::Tensor h = conv1->forward(x);
        torch::Tensor y = torch::silu(sync ? sync->forward(*bn, h) : bn->forward(h));
        y = torch::silu(conv3->forward(torch::silu(conv2->forward(y)))).mean({2, 3});
        return fc->forward(y);
    }
    torch::nn::Conv2d conv1;
    torch::nn::BatchNorm2d bn;
    torch::nn::Conv2d conv2, conv3;
    torch::nn::Linear fc;
    hr::SyncBatchNorm* sync = nullptr; ///< synchronised BatchNorm when set
};
TORCH_MODULE(TinyNet);

TinyNet makeNet() {
    torch::manual_seed(7);
    TinyNet net;
    net->eval();
    return net;
}

hr::TrainConfig trainConfig() {
    hr::TrainConfig c;
    c.batch = 16; // the total batch: ranks see 16 / world each
    c.nbs = 16;   // one batch per optimizer step
    c.optimizer = "SGD";
    c.lr0 = 0.05;
    c.momentum = 0.9;
    c.weight_decay = 0.01;
    return c;
}

std::unique_ptr<hr::WeightUpdater> makeUpdater(TinyNet& net) {
    const hr::TrainConfig c = trainConfig();
    return std::make_unique<hr::WeightUpdater>(c, net.ptr(), hr::resolveOptimizer(c, 3, 0), nullptr,
                                               torch::kCPU);
}

/// Runs `body(rank)` on `world` threads and returns the first error message (empty if none).
std::string runRanks(int world, const std::function<void(int)>& body) {
    std::vector<std::string> errors(static_cast<size_t>(world));
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
        threads.emplace_back([&, r] {
            try {
                body(r);
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(r)] = "rank " + std::to_string(r) + ": " + e.what();
            }
        });
    for (auto& t : threads)
        t.join();
    for (const auto& e : errors)
        if (!e.empty())
            return e;
    return {};
}

double maxDifference(TinyNet& a, TinyNet& b) {
    double worst = 0;
    const auto pa = a->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pa.size(); ++i)
        worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
    return worst;
}

/// Largest difference of the BatchNorm running statistics.
double maxStatsDifference(TinyNet& a, TinyNet& b) {
    return std::max((a->bn->running_mean - b->bn->running_mean).abs().max().item<double>(),
                    (a->bn->running_var - b->bn->running_var).abs().max().item<double>());
}

constexpr int kSteps = 3;

} // namespace

class TestDist : public QObject {
    Q_OBJECT

private slots:
    void launchEnvironment();
    void ownersBalanced();
    void loaderShards();
    void dataParallelMatchesOneProcess_data();
    void dataParallelMatchesOneProcess();
    void syncBatchNormMatchesOneProcess_data();
    void syncBatchNormMatchesOneProcess();
    void syncBatchNormPeerFailure();
    void failedStepOnOneRankUndoesAll();
    void lostRankEndsTheOthers();
    void launcherEndsWorkersAfterAFailure();
    void lastLinesOfOutput();
    void libraryLinesAreRecognised();
    void ownStderrLibraryLinesGoToTheLog();
};

void TestDist::launchEnvironment() {
    std::string error;
    ::unsetenv("RANK");
    ::unsetenv("WORLD_SIZE");
    auto env = hr::readLaunchEnv(&error);
    QVERIFY(env);
    QCOMPARE(env->worldSize, 1);
    QVERIFY(!env->distributed());

    ::setenv("RANK", "1", 1);
    ::setenv("WORLD_SIZE", "4", 1);
    ::setenv("MASTER_ADDR", "10.0.0.2", 1);
    ::setenv("MASTER_PORT", "29611", 1);
    env = hr::readLaunchEnv(&error);
    QVERIFY(env);
    QCOMPARE(env->rank, 1);
    QCOMPARE(env->worldSize, 4);
    QCOMPARE(env->masterAddr, std::string("10.0.0.2"));
    QCOMPARE(env->masterPort, 29611);

    ::setenv("RANK", "4", 1);
    QVERIFY(!hr::readLaunchEnv(&error));
    QVERIFY2(error.find("RANK=4 must be below WORLD_SIZE=4") != std::string::npos, error.c_str());
    ::setenv("RANK", "one", 1);
    QVERIFY(!hr::readLaunchEnv(&error));
    QVERIFY2(error.find("RANK='one'") != std::string::npos, error.c_str());
    for (const char* name : {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"})
        ::unsetenv(name);
}

void TestDist::ownersBalanced() {
    const std::vector<std::int64_t> numels{100, 10, 60, 50, 5, 5};
    const std::vector<int> owners = hr::assignParameterOwners(numels, 2);
    // 100 -> 0, 60 -> 1, 50 -> 1 (60 < 100), 10 -> 0 (100 < 110), 5 -> 0 (tie), 5 -> 1.
    QCOMPARE(owners, (std::vector<int>{0, 0, 1, 1, 0, 1}));
    std::int64_t load[2] = {0, 0};
    for (size_t i = 0; i < numels.size(); ++i)
        load[owners[i]] += numels[i];
    QCOMPARE(load[0], std::int64_t(115));
    QCOMPARE(load[1], std::int64_t(115));
    QCOMPARE(hr::assignParameterOwners(numels, 0), std::vector<int>(numels.size(), 0));
}

void TestDist::loaderShards() {
    // 10 images over 3 ranks: padded to 12, 4 per rank, every image in some rank's share.
    auto data = std::make_shared<hr::DatasetReport>();
    for (int i = 0; i < 10; ++i) {
        hr::ImageRecord record;
        record.imagePath = "missing-" + std::to_string(i) + ".png"; // loads as grey
        record.width = record.height = 32;
        data->images.push_back(record);
    }
    auto shareOf = [&](int rank, int epoch) {
        hr::LoaderOptions options;
        options.imgsz = 32;
        options.batch = 3;
        options.workers = 0;
        options.augment = false;
        options.seed = 5;
        options.shardRank = rank;
        options.shardCount = 3;
        hr::DataLoader loader(data, options);
        if (loader.batchesPerEpoch() != 2 || loader.size() != 4)
            return std::vector<std::string>{"batches " + std::to_string(loader.batchesPerEpoch()),
                                            "size " + std::to_string(loader.size())};
        loader.startEpoch(epoch);
        std::vector<std::string> paths;
        hr::Batch batch;
        while (loader.next(batch))
            paths.insert(paths.end(), batch.paths.begin(), batch.paths.end());
        return paths;
    };
    for (int epoch = 0; epoch < 2; ++epoch) {
        std::multiset<std::string> seen;
        for (int r = 0; r < 3; ++r) {
            const std::vector<std::string> mine = shareOf(r, epoch);
            std::string joined;
            for (const auto& m : mine)
                joined += m + " ";
            QVERIFY2(mine.size() == 4, joined.c_str());
            QCOMPARE(shareOf(r, epoch), mine); // deterministic
            seen.insert(mine.begin(), mine.end());
        }
        QCOMPARE(seen.size(), size_t(12));
        for (const auto& record : data->images)
            QVERIFY(seen.count(record.imagePath) >= 1); // two are repeated as padding
    }
    QVERIFY(shareOf(0, 0) != shareOf(0, 1)); // reshuffled every epoch
}

void TestDist::dataParallelMatchesOneProcess_data() {
    QTest::addColumn<bool>("zero");
    QTest::newRow("all-reduce") << false;
    QTest::newRow("zero-1") << true;
}

void TestDist::dataParallelMatchesOneProcess() {
    QFETCH(bool, zero);
    torch::manual_seed(1);
    const torch::Tensor images = torch::randn({16, 3, 8, 8});
    const torch::Tensor targets = torch::randn({16, 3});

    TinyNet reference = makeNet();
    auto referenceUpdater = makeUpdater(reference);
    for (int s = 0; s < kSteps; ++s) {
        referenceUpdater->backward(torch::mse_loss(reference->forward(images), targets));
        QVERIFY(referenceUpdater->step());
    }
    const std::int64_t referenceState = hr::optimizerStateBytes(referenceUpdater->optimizer());
    QVERIFY(referenceState > 0);

    constexpr int world = 2;
    std::vector<TinyNet> nets;
    std::vector<std::unique_ptr<hr::WeightUpdater>> updaters;
    for (int r = 0; r < world; ++r) {
        nets.push_back(makeNet());
        updaters.push_back(makeUpdater(nets.back()));
    }
    std::vector<std::int64_t> stateBytes(world, 0);
    std::vector<int> buckets(world, 0), overlapped(world, 0);
    auto store = c10::make_intrusive<c10d::HashStore>();
    const std::string error = runRanks(world, [&](int rank) {
        hr::DataParallelGroup group(store, rank, world, 20s);
        TinyNet& net = nets[static_cast<size_t>(rank)];
        hr::WeightUpdater& updater = *updaters[static_cast<size_t>(rank)];
        // Small buckets so that there are several and backward can overlap them.
        hr::GradientSync sync(group, net->parameters(), 512);
        std::unique_ptr<hr::OptimizerSharding> sharding;
        hr::WeightUpdater::StepHooks hooks;
        hooks.agree = [&](bool ok) {
            if (!group.failedRanks(ok).empty())
                throw std::runtime_error("another rank failed");
        };
        if (zero) {
            sharding = std::make_unique<hr::OptimizerSharding>(group, net->parameters());
            updater.setParameterFilter([&](const torch::Tensor& p) { return sharding->owns(p); });
            hooks.afterStep = [&] { sharding->broadcastUpdated(); };
        }
        updater.setStepHooks(hooks);
        const torch::Tensor x = images.slice(0, rank * 8, rank * 8 + 8);
        const torch::Tensor y = targets.slice(0, rank * 8, rank * 8 + 8);
        for (int s = 0; s < kSteps; ++s) {
            sync.setEnabled(true);
            updater.backward(torch::mse_loss(net->forward(x), y));
            overlapped[static_cast<size_t>(rank)] = sync.bucketsLaunchedDuringBackward();
            sync.finish();
            if (!updater.step())
                throw std::runtime_error("the step was skipped");
        }
        buckets[static_cast<size_t>(rank)] = sync.bucketCount();
        stateBytes[static_cast<size_t>(rank)] = hr::optimizerStateBytes(updater.optimizer());
    });
    QVERIFY2(error.empty(), error.c_str());

    for (int r = 0; r < world; ++r) {
        const double diff = maxDifference(reference, nets[static_cast<size_t>(r)]);
        qInfo("rank %d: max |w - w_single| = %.3g, %d buckets, %d launched during backward, "
              "optimizer state %lld of %lld bytes",
              r, diff, buckets[r], overlapped[r], static_cast<long long>(stateBytes[r]),
              static_cast<long long>(referenceState));
        QVERIFY2(diff < 1e-5, qPrintable(QString::number(diff)));
        QVERIFY(buckets[r] >= 3);
        // Every bucket but possibly the first parameters' own is launched by a hook.
        QVERIFY(overlapped[r] >= buckets[r] - 1);
    }
    if (zero) {
        QCOMPARE(stateBytes[0] + stateBytes[1], referenceState);
        for (int r = 0; r < world; ++r) {
            const double share = static_cast<double>(stateBytes[r]) / referenceState;
            QVERIFY2(share > 0.35 && share < 0.65, qPrintable(QString::number(share)));
        }
    } else {
        QCOMPARE(stateBytes[0], referenceState);
        QCOMPARE(stateBytes[1], referenceState);
    }
}

void TestDist::syncBatchNormMatchesOneProcess_data() {
    QTest::addColumn<bool>("sync");
    QTest::newRow("sync_bn") << true;
    QTest::newRow("per-rank BatchNorm") << false;
}

void TestDist::syncBatchNormMatchesOneProcess() {
    QFETCH(bool, sync);
    torch::manual_seed(2);
    // Channels with a large mean and a small spread: the combination of the ranks' sums
    // must not lose the variance.
    const torch::Tensor images = torch::randn({16, 3, 8, 8}) * 0.5 + 3.0;
    const torch::Tensor targets = torch::randn({16, 3});

    TinyNet reference = makeNet();
    reference->train();
    auto referenceUpdater = makeUpdater(reference);
    for (int s = 0; s < kSteps; ++s) {
        referenceUpdater->backward(torch::mse_loss(reference->forward(images), targets));
        QVERIFY(referenceUpdater->step());
    }

    constexpr int world = 2;
    std::vector<TinyNet> nets;
    std::vector<std::unique_ptr<hr::WeightUpdater>> updaters;
    for (int r = 0; r < world; ++r) {
        nets.push_back(makeNet());
        nets.back()->train();
        updaters.push_back(makeUpdater(nets.back()));
    }
    std::vector<std::int64_t> messages(world, 0);
    auto store = c10::make_intrusive<c10d::HashStore>();
    const std::string error = runRanks(world, [&](int rank) {
        hr::DataParallelGroup group(store, rank, world, 20s);
        std::unique_ptr<hr::DataParallelGroup> channel = group.openChannel("sync_bn");
        TinyNet& net = nets[static_cast<size_t>(rank)];
        hr::SyncBatchNorm syncBn(*channel, 8);
        if (sync)
            net->sync = &syncBn;
        hr::WeightUpdater& updater = *updaters[static_cast<size_t>(rank)];
        hr::GradientSync gradients(group, net->parameters(), 512);
        const torch::Tensor x = images.slice(0, rank * 8, rank * 8 + 8);
        const torch::Tensor y = targets.slice(0, rank * 8, rank * 8 + 8);
        for (int s = 0; s < kSteps; ++s) {
            gradients.setEnabled(true);
            const torch::Tensor loss = torch::mse_loss(net->forward(x), y);
            if (syncBn.closePhase(true) >= 0)
                throw std::runtime_error("a rank failed in forward");
            updater.backward(loss);
            if (syncBn.closePhase(true) >= 0)
                throw std::runtime_error("a rank failed in backward");
            gradients.finish();
            if (!updater.step())
                throw std::runtime_error("the step was skipped");
        }
        messages[static_cast<size_t>(rank)] = syncBn.messages();
        net->sync = nullptr;
    });
    QVERIFY2(error.empty(), error.c_str());

    for (int r = 0; r < world; ++r) {
        const double dw = maxDifference(reference, nets[static_cast<size_t>(r)]);
        const double stats = maxStatsDifference(reference, nets[static_cast<size_t>(r)]);
        qInfo("%s, rank %d: max |w - w_single| = %.3g, max |running stats - single| = %.3g, "
              "%lld messages",
              sync ? "sync_bn" : "per-rank BatchNorm", r, dw, stats,
              static_cast<long long>(messages[static_cast<size_t>(r)]));
        if (sync) {
            QVERIFY2(dw < 1e-5, qPrintable(QString::number(dw)));
            QVERIFY2(stats < 1e-5, qPrintable(QString::number(stats)));
            // Per step: forward statistics, backward sums, and the two phase ends.
            QCOMPARE(messages[static_cast<size_t>(r)], std::int64_t(4 * kSteps));
        } else {
            // Per-rank statistics of 8 images are not those of 16: at the same tolerance the
            // test tells them apart.
            QVERIFY2(dw > 1e-5, qPrintable(QString::number(dw)));
            QVERIFY2(stats > 1e-5, qPrintable(QString::number(stats)));
        }
    }
    QCOMPARE(maxDifference(nets[0], nets[1]), 0.0);
    QCOMPARE(reference->bn->num_batches_tracked.item<std::int64_t>(),
             nets[0]->bn->num_batches_tracked.item<std::int64_t>());
}

void TestDist::syncBatchNormPeerFailure() {
    // Rank 1 "runs out of memory" before its BatchNorm, while rank 0 waits inside it; both
    // must leave the step at the same point (rank 0 with an out-of-memory error naming rank 1)
    // and the next step must work on the same channel.
    constexpr int world = 2;
    std::vector<TinyNet> nets{makeNet(), makeNet()};
    for (auto& net : nets)
        net->train();
    torch::manual_seed(4);
    const torch::Tensor x = torch::randn({4, 3, 8, 8});
    std::string rank0Error;
    std::vector<int> phaseResult(world, -2), nextResult(world, -2);
    auto store = c10::make_intrusive<c10d::HashStore>();
    const std::string error = runRanks(world, [&](int rank) {
        hr::DataParallelGroup group(store, rank, world, 5s);
        std::unique_ptr<hr::DataParallelGroup> channel = group.openChannel("sync_bn");
        hr::SyncBatchNorm syncBn(*channel, 8);
        TinyNet& net = nets[static_cast<size_t>(rank)];
        net->sync = &syncBn;
        bool ok = true;
        if (rank == 1) {
            ok = false; // failed before reaching the BatchNorm
        } else {
            try {
                net->forward(x);
            } catch (const c10::OutOfMemoryError& e) {
                ok = false;
                rank0Error = e.what();
                if (!syncBn.failureReceived())
                    throw std::runtime_error("rank 0 does not know the failure came from rank 1");
            }
        }
        phaseResult[static_cast<size_t>(rank)] = syncBn.closePhase(ok);
        // The next step: forward and backward on both ranks, channel aligned.
        net->forward(x).sum().backward();
        nextResult[static_cast<size_t>(rank)] = syncBn.closePhase(true);
        net->sync = nullptr;
    });
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY2(rank0Error.find("rank 1 ran out of memory") != std::string::npos, rank0Error.c_str());
    QCOMPARE(phaseResult, (std::vector<int>{1, 1}));
    QCOMPARE(nextResult, (std::vector<int>{-1, -1}));
    QCOMPARE(maxStatsDifference(nets[0], nets[1]), 0.0);
}

void TestDist::failedStepOnOneRankUndoesAll() {
    // Rank 1's optimizer step "fails" (as an OOM would): rank 0 has stepped already, learns it
    // from the agreement and must restore its weights and momentum.
    constexpr int world = 2;
    std::vector<TinyNet> nets{makeNet(), makeNet()};
    auto updater = makeUpdater(nets[0]);
    torch::manual_seed(3);
    const torch::Tensor x = torch::randn({8, 3, 8, 8});
    const torch::Tensor y = torch::randn({8, 3});
    bool rank0Threw = false;
    auto store = c10::make_intrusive<c10d::HashStore>();
    const std::string error = runRanks(world, [&](int rank) {
        hr::DataParallelGroup group(store, rank, world, 20s);
        if (rank == 1) {
            const std::vector<int> failed = group.failedRanks(false);
            if (failed != std::vector<int>{1})
                throw std::runtime_error("rank 1 sees the wrong failed ranks");
            return;
        }
        hr::WeightUpdater::StepHooks hooks;
        hooks.agree = [&](bool ok) {
            const std::vector<int> failed = group.failedRanks(ok);
            if (!failed.empty())
                throw std::runtime_error("rank " + std::to_string(failed.front()) + " failed");
        };
        updater->setStepHooks(hooks);
        updater->backward(torch::mse_loss(nets[0]->forward(x), y));
        try {
            updater->step();
        } catch (const std::runtime_error& e) {
            rank0Threw = std::string(e.what()) == "rank 1 failed";
        }
    });
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(rank0Threw);
    QCOMPARE(maxDifference(nets[0], nets[1]), 0.0);
    QCOMPARE(hr::optimizerStateBytes(updater->optimizer()), std::int64_t(0));
}

void TestDist::lostRankEndsTheOthers() {
    constexpr int world = 2;
    auto store = c10::make_intrusive<c10d::HashStore>();
    std::string message;
    double seconds = 0;
    const std::string error = runRanks(world, [&](int rank) {
        hr::DataParallelGroup group(store, rank, world, 3s);
        if (rank == 1)
            return; // leaves without taking part: its group closes its connections
        torch::Tensor t = torch::ones({4});
        const auto start = std::chrono::steady_clock::now();
        try {
            group.allReduceSum(t);
        } catch (const hr::DistributedError& e) {
            message = e.what();
        }
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
    QVERIFY2(error.empty(), error.c_str());
    qInfo("%s (after %.2f s)", message.c_str(), seconds);
    QVERIFY2(message.find("rank 0 of 2: all-reduce failed") != std::string::npos, message.c_str());
    QVERIFY(seconds < 10);
}

void TestDist::launcherEndsWorkersAfterAFailure() {
    // Rank 1 fails at once and says why on stderr; rank 0 would wait for a minute. With the
    // CLI's 30 s grace the launcher must still end rank 0 at once (SIGTERM) and quote rank 1.
    // Each worker checks its variables first.
    hr::WorkerPlan plan;
    plan.nproc = 2;
    plan.executable = "/bin/sh";
    plan.arguments = {"sh", "-c",
                      "test \"$WORLD_SIZE $LOCAL_WORLD_SIZE $MASTER_ADDR\" = \"2 2 127.0.0.1\" "
                      "|| exit 9; test \"$RANK\" = \"$LOCAL_RANK\" || exit 9; "
                      "test \"$MASTER_PORT\" -gt 0 || exit 9; "
                      "if test \"$RANK\" = 1; then echo 'loading the settings' >&2; "
                      "echo \"rank $RANK: batch: not a number\" >&2; exit 3; fi; "
                      "exec sleep 60"};
    // Runs the plan's workers; `seconds`: how long the launcher took.
    const auto timedRun = [&plan](std::chrono::seconds grace, double& seconds) {
        const auto start = std::chrono::steady_clock::now();
        hr::WorkerOutcome outcome = hr::runWorkers(plan, grace);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("%s(after %.2f s)", outcome.summary.c_str(), seconds);
        return outcome;
    };
    double seconds = 0;
    const hr::WorkerOutcome outcome = timedRun(30s, seconds);
    QCOMPARE(outcome.exitCode, 3);
    QCOMPARE(outcome.firstFailedRank, 1);
    QCOMPARE(outcome.statuses, (std::vector<int>{128 + SIGTERM, 3}));
    QVERIFY2(outcome.summary.find("rank 1 exited with status 3 before the run ended; the end "
                                  "of its output:\n    | loading the settings\n    | rank 1: "
                                  "batch: not a number\n") == 0,
             outcome.summary.c_str());
    QVERIFY2(outcome.summary.find("the other 1 worker(s) were asked to end (SIGTERM) at once") !=
                 std::string::npos,
             outcome.summary.c_str());
    QCOMPARE(outcome.errorTails[1], std::string("loading the settings\nrank 1: batch: not a "
                                                "number\n"));
    QVERIFY(outcome.errorTails[0].empty());
    QVERIFY2(seconds < 5, qPrintable(QString::number(seconds)));

    // A worker that ignores SIGTERM is killed after the grace period. Rank 1 fails only once
    // rank 0 has set its trap (a marker file), so the SIGTERM never arrives before the trap.
    QTemporaryDir marks;
    QVERIFY(marks.isValid());
    const std::string marker = marks.filePath("trapped").toStdString();
    plan.arguments = {"sh", "-c",
                      "if test \"$RANK\" = 1; then while ! test -e '" + marker +
                          "'; do sleep 0.02; done; exit 4; fi; trap '' TERM; touch '" + marker +
                          "'; while :; do sleep 0.1; done"};
    double killSeconds = 0;
    const hr::WorkerOutcome killed = timedRun(1s, killSeconds);
    QCOMPARE(killed.statuses, (std::vector<int>{128 + SIGKILL, 4}));
    QVERIFY2(killed.summary.find("it wrote nothing to stderr") != std::string::npos,
             killed.summary.c_str());
    QVERIFY2(killed.summary.find("rank 0 was still running 1 s later and was killed") !=
                 std::string::npos,
             killed.summary.c_str());
    QVERIFY(killSeconds >= 1 && killSeconds < 10);

    plan.nnodes = 2; // several machines need an explicit port
    const hr::WorkerOutcome refused = hr::runWorkers(plan, 1s);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.summary.find("need --master-port") != std::string::npos,
             refused.summary.c_str());
}

void TestDist::libraryLinesAreRecognised() {
    // glog's format (Debian 12's LibTorch), c10's own without glog (Debian 13's), and the
    // backtrace c10 prints under a warning; Headroom's own lines are none of these.
    QVERIFY(hr::isLibraryLogLine("E20261207 20:55:53.988090 30207 socket.cpp:860] [c10d] x\n"));
    QVERIFY(hr::isLibraryLogLine("[E1208 02:19:46.837287552 socket.cpp:1023] [c10d] The client "
                                 "socket has timed out\n"));
    QVERIFY(hr::isLibraryLogLine("[W1208 02:19:46.837447391 TCPStore.cpp:330] [c10d] retrying\n"));
    QVERIFY(hr::isLibraryLogLine("WARNING: Logging before InitGoogleLogging() is written to STDERR\n"));
    QVERIFY(!hr::isLibraryLogLine("rank 1 of 2 cannot join the run at 127.0.0.1:29500: timeout\n"));
    QVERIFY(!hr::isLibraryLogLine("[headroom] epoch 1/2\n"));
    QVERIFY(hr::continuesLibraryEntry("Exception raised from throwTimeoutError at socket.cpp:1025\n"));
    QVERIFY(hr::continuesLibraryEntry("frame #7: c10d::TCPStore::TCPStore(...) + 0x239\n"));
    QVERIFY(hr::continuesLibraryEntry("\n"));
    QVERIFY(!hr::continuesLibraryEntry("train: rank 1 of 2 cannot join the run\n"));
}

void TestDist::lastLinesOfOutput() {
    QCOMPARE(hr::lastLines("a\n\nb  \r\nc\n", 2, "> "), std::string("> b\n> c\n"));
    QCOMPARE(hr::lastLines("only", 3, ""), std::string("only\n"));
    QCOMPARE(hr::lastLines("\n\n", 3, ""), std::string());
}

void TestDist::ownStderrLibraryLinesGoToTheLog() {
    // The studio trains as rank 0 in its own process: its c10d lines go to network.log, its
    // other stderr lines stay where they went (a file here, standing in for the terminal).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string shown = dir.filePath("terminal.txt").toStdString();
    const std::string logPath = dir.filePath("runs/network.log").toStdString();
    std::fflush(stderr);
    const int terminal = ::dup(STDERR_FILENO);
    const int file = ::open(shown.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    QVERIFY(terminal >= 0 && file >= 0);
    ::dup2(file, STDERR_FILENO);
    ::close(file);
    const std::string glog = "W20261208 01:02:03.456789  4242 socket.cpp:755] [c10d] The client "
                             "socket has failed to connect to [localhost]:29500\n";
    // c10's own format without glog (Debian 13), with the backtrace it prints under a warning.
    const std::string c10 = "[W1208 02:19:46.837447391 TCPStore.cpp:330] [c10d] retrying\n"
                            "Exception raised from throwTimeoutError at socket.cpp:1025\n"
                            "frame #0: c10::Error::Error(...) + 0x92\n"
                            "\n";
    bool active = false;
    long lines = 0;
    {
        hr::StderrLibraryLog log(logPath, 0);
        active = log.active();
        std::fputs("a line of the studio's own\n", stderr);
        std::fflush(stderr);
        QVERIFY(::write(STDERR_FILENO, glog.data(), glog.size()) == ssize_t(glog.size()));
        QVERIFY(::write(STDERR_FILENO, c10.data(), c10.size()) == ssize_t(c10.size()));
        std::fputs("the end, without a newline", stderr);
        std::fflush(stderr);
        QTRY_COMPARE_WITH_TIMEOUT(log.lines(), 5L, 10000);
        lines = log.lines();
    }
    ::dup2(terminal, STDERR_FILENO);
    ::close(terminal);
    QVERIFY(active);
    QCOMPARE(lines, 5L);
    const auto read = [](const std::string& path) {
        QFile f(QString::fromStdString(path));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    QString logged = "rank 0: " + QString::fromStdString(glog);
    for (const QString& line : QString::fromStdString(c10).split('\n', Qt::SkipEmptyParts))
        logged += "rank 0: " + line + "\n";
    logged += "rank 0: \n";
    QCOMPARE(read(logPath), logged);
    QCOMPARE(read(shown), QString("a line of the studio's own\nthe end, without a newline\n"));
}

QTEST_GUILESS_MAIN(TestDist)
#include "test_dist.moc"
