// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace hr {

/// Every coded LogMessage line: the one list of the codes and the values each carries.
/// The trainer emits them by enumerator, events.jsonl writes the name (toString), and a UI
/// words each one in a switch without a default, so a code added here without a wording
/// does not compile (ui/logwording.cpp). Values are text; epochs are 1-based.
enum class LogCode {
    Scanning,             ///< split (train|val), done, total
    BuiltinData,          ///< path
    NoValImages,          ///< -
    BatchAuto,            ///< -
    OptimizerAuto,        ///< name, lr, momentum, planned iterations
    Resumed,              ///< folder, epoch
    ResumedFromBackup,    ///< file, backup, epoch, error (core's English detail)
    ValidationSkipped,    ///< epoch
    BestWrite,            ///< detail
    ResultsWrite,         ///< detail
    UnreadableImages,     ///< count
    UnreadableImage,      ///< file, error (core's English detail)
    LabelBinary,          ///< file, line, how many more such label files
    StoppingEarly,        ///< patience, best epoch
    NoProbe,              ///< device, detail
    Transferred,          ///< done, total, file
    TransferMostlyFailed, ///< done, total, file, architecture
    ClassNamesDiffer,     ///< the checkpoint's names, the data set's names
    NprocAlone,           ///< nproc (not started as a worker: trains alone)
    SyncBn,               ///< ranks
    BatchNotMultiple,     ///< batch, ranks, each rank's batch
    GradientBuckets,      ///< ranks, buckets, launched during backward, zero (1|0)
    RankMemoryStream,     ///< rank, detail
    OptimizerShardWrite,  ///< rank, detail
    OptimizerShardMissing ///< rank, path
};

/// Every LogCode, in declaration order (for tests and docs).
inline constexpr LogCode kLogCodes[] = {LogCode::Scanning,
                                        LogCode::BuiltinData,
                                        LogCode::NoValImages,
                                        LogCode::BatchAuto,
                                        LogCode::OptimizerAuto,
                                        LogCode::Resumed,
                                        LogCode::ResumedFromBackup,
                                        LogCode::ValidationSkipped,
                                        LogCode::BestWrite,
                                        LogCode::ResultsWrite,
                                        LogCode::UnreadableImages,
                                        LogCode::UnreadableImage,
                                        LogCode::LabelBinary,
                                        LogCode::StoppingEarly,
                                        LogCode::NoProbe,
                                        LogCode::Transferred,
                                        LogCode::TransferMostlyFailed,
                                        LogCode::ClassNamesDiffer,
                                        LogCode::NprocAlone,
                                        LogCode::SyncBn,
                                        LogCode::BatchNotMultiple,
                                        LogCode::GradientBuckets,
                                        LogCode::RankMemoryStream,
                                        LogCode::OptimizerShardWrite,
                                        LogCode::OptimizerShardMissing};

/// The code as events.jsonl's "code" writes it.
inline const char* toString(LogCode code) {
    switch (code) {
    case LogCode::Scanning:
        return "scanning";
    case LogCode::BuiltinData:
        return "builtin_data";
    case LogCode::NoValImages:
        return "no_val_images";
    case LogCode::BatchAuto:
        return "batch_auto";
    case LogCode::OptimizerAuto:
        return "optimizer_auto";
    case LogCode::Resumed:
        return "resumed";
    case LogCode::ResumedFromBackup:
        return "resumed_from_backup";
    case LogCode::ValidationSkipped:
        return "validation_skipped";
    case LogCode::BestWrite:
        return "best_write";
    case LogCode::ResultsWrite:
        return "results_write";
    case LogCode::UnreadableImages:
        return "unreadable_images";
    case LogCode::UnreadableImage:
        return "unreadable_image";
    case LogCode::StoppingEarly:
        return "stopping_early";
    case LogCode::NoProbe:
        return "no_probe";
    case LogCode::Transferred:
        return "transferred";
    case LogCode::TransferMostlyFailed:
        return "transfer_mostly_failed";
    case LogCode::ClassNamesDiffer:
        return "class_names_differ";
    case LogCode::NprocAlone:
        return "nproc_alone";
    case LogCode::SyncBn:
        return "sync_bn";
    case LogCode::BatchNotMultiple:
        return "batch_not_multiple";
    case LogCode::GradientBuckets:
        return "gradient_buckets";
    case LogCode::RankMemoryStream:
        return "rank_memory_stream";
    case LogCode::OptimizerShardWrite:
        return "optimizer_shard_write";
    case LogCode::OptimizerShardMissing:
        return "optimizer_shard_missing";
    case LogCode::LabelBinary:
        return "label_binary";
    }
    return "";
}

/// The inverse of toString(LogCode); nothing for text that names no code (an older or newer
/// events file, or an uncoded line).
inline std::optional<LogCode> parseLogCode(const std::string& text) {
    for (LogCode code : kLogCodes)
        if (text == toString(code))
            return code;
    return std::nullopt;
}

} // namespace hr
