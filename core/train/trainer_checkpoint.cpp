// SPDX-License-Identifier: GPL-3.0-or-later
// The checkpoint file: last.pt with its backup, the ZeRO optimizer shards, and reading them.
#include "train/trainer_impl.h"

#include "memory/cpu_memory_tracker.h"
#include "util/atomic_file.h"
#include "util/user_message.h"
#include "util/zip_check.h"

#include <filesystem>
#include <sstream>

namespace hr {

namespace {

namespace fs = std::filesystem;

/// The backup a checkpoint write keeps of the previous last.pt: a torn or damaged last.pt
/// loses at most the epoch since.
std::string backupOf(const std::string& checkpoint) {
    return checkpoint + ".bak";
}

} // namespace

std::string Trainer::Impl::readableCheckpoint(const std::string& path, c10::IValue& configYaml) {
    std::error_code ec;
    std::string firstError;
    for (const std::string& candidate : {path, backupOf(path)}) {
        if (!fs::exists(candidate, ec))
            continue;
        try {
            // A flipped byte loads without a word and drifts the run: check every CRC first.
            std::string damaged;
            if (!checkZipArchive(candidate, &damaged))
                throw std::runtime_error(damaged);
            torch::serialize::InputArchive archive;
            archive.load_from(candidate);
            archive.read("config_yaml", configYaml);
            c10::IValue value;
            archive.read("epoch", value);
            if (candidate != path) {
                // Set the damaged file aside, or the next checkpoint would make it the backup.
                fs::rename(path, path + ".damaged", ec);
                log(LogMessage::Level::Warning,
                    firstError + "; resuming from its backup " + candidate + " (epoch " +
                        std::to_string(value.toInt()) + "; the damaged file is now " + path +
                        ".damaged)",
                    LogCode::ResumedFromBackup,
                    {path, candidate, std::to_string(value.toInt()), firstError});
            }
            return candidate;
        } catch (const std::exception& e) {
            if (firstError.empty())
                firstError = userMessage(e, candidate);
        }
    }
    if (firstError.empty())
        throw RunError("resume: " + path + " does not exist", "resume_missing", {path});
    if (fs::exists(backupOf(path), ec))
        throw RunError("resume: the checkpoint " + path + " and its backup " + backupOf(path) +
                           " are both damaged or incomplete, so start a new run (without resume)",
                       "resume_both_damaged", {path, backupOf(path)});
    throw RunError("resume: " + firstError, "resume_damaged", {path, firstError});
}

void Trainer::Impl::saveCheckpoint(const std::string& path, int completedEpochs,
                                   const std::string& bestPath) {
    std::optional<OomFailure> failure;
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            if (sampler)
                sampler->setPhase(Phase::Checkpoint);
            // Serialising is host work (on a GPU it copies to host RAM): outside the budget.
            HostAllocationScope host;
            hostFault.enter(Phase::Checkpoint);
            writeCheckpoint(path, completedEpochs, bestPath);
            if (sampler)
                sampler->setPhase(Phase::Idle);
            return;
        } catch (const c10::Error& e) {
            if (!isOomMessage(e.what_without_backtrace()))
                throw RunError(userMessage(e, path), "checkpoint_write",
                               {path, userMessage(e, path)});
            failure = OomFailure{e.what_without_backtrace(), true};
        } catch (const std::bad_alloc& e) {
            failure = OomFailure{std::string("host memory exhausted: ") + e.what(), true};
        }
        // Host RAM ran out while writing: the validation loader's batches (rebuilt at the next
        // validation) are freed, the advisor may free more (cache, workers), and the write is
        // tried once more even without a fix: the finished epoch is worth the try.
        if (attempt == 0) {
            valLoader.reset();
            recover(*failure, Phase::Checkpoint, completedEpochs - 1, 0);
        }
    }
    throw OomStop("out of memory while writing " + path + " (" + failure->message +
                      "); the previous checkpoint is kept. Free host memory (fewer workers, "
                      "cache=none) and resume.",
                  "oom_checkpoint", {path});
}

void Trainer::Impl::writeCheckpoint(const std::string& path, int completedEpochs,
                                    const std::string& bestPath) {
    torch::serialize::OutputArchive archive;
    step->save(archive, names);
    archive.write("format", c10::IValue(std::string("headroom-checkpoint-1")));
    archive.write("epoch", c10::IValue(static_cast<std::int64_t>(completedEpochs)));
    archive.write("global_step", c10::IValue(globalStep));
    archive.write("best_fitness", c10::IValue(bestFitness));
    archive.write("best_epoch", c10::IValue(static_cast<std::int64_t>(bestEpoch)));
    archive.write("best_map50", c10::IValue(bestMap50));
    archive.write("best_map", c10::IValue(bestMap));
    archive.write("config_yaml", c10::IValue(toYaml(config)));
    std::ostringstream bytes;
    archive.save_to(bytes);
    std::string error;
    // best.pt before last.pt: last.pt is what a resume trusts, so it is written last.
    if (!bestPath.empty() && !writeFileAtomically(bestPath, bytes.str(), &error))
        throw RunError(userText(error, bestPath), "checkpoint_write",
                       {bestPath, userText(error, bestPath)});
    // Keep the previous checkpoint as the backup (a hard link: no copy, and no moment without
    // a complete last.pt or backup) before the new one replaces it.
    std::error_code ec;
    if (fs::exists(path, ec)) {
        const std::string backup = backupOf(path);
        const std::string staging = backup + ".tmp";
        fs::remove(staging, ec);
        fs::create_hard_link(path, staging, ec);
        if (ec)
            fs::copy_file(path, staging, fs::copy_options::overwrite_existing, ec);
        if (!ec)
            fs::rename(staging, backup, ec);
        // rename() of two links to one file (a backup already equal to last.pt) does nothing
        // and leaves the staging name.
        fs::remove(staging, ec);
    }
    if (!writeFileAtomically(path, bytes.str(), &error))
        throw RunError(userText(error, path), "checkpoint_write", {path, userText(error, path)});
}

void Trainer::Impl::saveOptimizerShard() {
    torch::serialize::OutputArchive archive;
    step->saveOptimizerShard(archive);
    std::ostringstream bytes;
    archive.save_to(bytes);
    std::string error;
    if (!writeFileAtomically(shardPath(), bytes.str(), &error))
        log(LogMessage::Level::Warning,
            "rank " + std::to_string(launch.rank) + ": cannot write its optimizer shard (" + error +
                "); a resumed run restarts it",
            LogCode::OptimizerShardWrite, {std::to_string(launch.rank), error});
}

void Trainer::Impl::loadCheckpoint(const std::string& path) {
    torch::serialize::InputArchive archive;
    archive.load_from(path, device);
    step->load(archive);
    if (step->ownsSeparateOptimizerShard()) {
        std::error_code ec;
        if (fs::exists(shardPath(), ec)) {
            torch::serialize::InputArchive shard;
            shard.load_from(shardPath(), device);
            step->loadOptimizerShard(shard);
        } else {
            log(LogMessage::Level::Warning,
                "rank " + std::to_string(launch.rank) + ": no optimizer shard " + shardPath() +
                    "; its optimizer state starts afresh",
                LogCode::OptimizerShardMissing, {std::to_string(launch.rank), shardPath()});
        }
    }
    c10::IValue value;
    archive.read("epoch", value);
    startEpoch = static_cast<int>(value.toInt());
    completedEpochs = startEpoch;
    archive.read("global_step", value);
    globalStep = value.toInt();
    archive.read("best_fitness", value);
    bestFitness = value.toDouble();
    archive.read("best_epoch", value);
    bestEpoch = static_cast<int>(value.toInt());
    archive.read("best_map50", value);
    bestMap50 = value.toDouble();
    archive.read("best_map", value);
    bestMap = value.toDouble();
}

} // namespace hr
