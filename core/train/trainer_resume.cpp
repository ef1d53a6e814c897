// SPDX-License-Identifier: GPL-3.0-or-later
// resume: which run continues, and with which settings.
#include "train/trainer_impl.h"

#include "config/settings_table.h"

#include <filesystem>

namespace hr {

namespace {

namespace fs = std::filesystem;

/// The run to resume: the newest `project/name*` folder with weights/last.pt.
std::string findResumeFolder(const TrainConfig& config) {
    const auto hasCheckpoint = [](const fs::path& folder) {
        std::error_code ec;
        return fs::exists(folder / "weights" / "last.pt", ec) ||
               fs::exists(folder / "weights" / "last.pt.bak", ec);
    };
    const fs::path exact = fs::path(config.project) / config.name;
    if (hasCheckpoint(exact))
        return exact.string();
    std::string best;
    fs::file_time_type newest{};
    std::error_code ec;
    if (!fs::is_directory(config.project, ec))
        return {};
    for (const auto& entry : fs::directory_iterator(config.project, ec)) {
        fs::path last = entry.path() / "weights" / "last.pt";
        if (entry.path().filename().string().rfind(config.name, 0) != 0 ||
            !hasCheckpoint(entry.path()))
            continue;
        if (!fs::exists(last, ec))
            last += ".bak";
        const auto time = fs::last_write_time(last, ec);
        if (best.empty() || time > newest) {
            best = entry.path().string();
            newest = time;
        }
    }
    return best;
}

/// Settings that only concern this process, taken from the new command line on resume.
/// A data set given on the command line wins over the stored one (it may have moved).
void keepRuntimeSettings(TrainConfig& stored, const TrainConfig& given) {
    copySettings(stored, given, kRuntime);
    stored.resume = true;
    if (!given.data.empty())
        stored.data = given.data;
    stored.project = given.project;
}

// `path` against the working folder when it names something there; else as it is (a model
// name such as yolov8n.yaml is found under resources/ later).
void makeAbsolute(std::string& path, bool mustExist) {
    std::error_code ec;
    if (path.empty() || fs::path(path).is_absolute() || (mustExist && !fs::exists(path, ec)))
        return;
    const fs::path absolute = fs::absolute(path, ec);
    if (!ec)
        path = absolute.lexically_normal().string();
}

} // namespace

void makePathsAbsolute(TrainConfig& config) {
    makeAbsolute(config.data, true);
    makeAbsolute(config.weights, true);
    makeAbsolute(config.model, true);
    makeAbsolute(config.project, false);
}

std::string Trainer::Impl::prepareResume(std::string& resumeDir) {
    resumeDir = findResumeFolder(config);
    if (resumeDir.empty())
        throw RunError("resume: no run with weights/last.pt under " + config.project + "/" +
                           config.name + "*",
                       "resume_no_run", {config.project + "/" + config.name + "*"});
    c10::IValue yaml;
    std::string checkpoint = readableCheckpoint(resumeDir + "/weights/last.pt", yaml);
    TrainConfigResult stored = parseTrainConfig(yaml.toStringRef(), checkpoint);
    if (!stored.config)
        throw RunError("resume: the checkpoint's config is unusable:\n" +
                           formatDiagnostics(stored.diagnostics),
                       "resume_config", argsWithDiagnostics({checkpoint}, stored.diagnostics));
    TrainConfig resumed = *stored.config;
    // A run from before paths were stored absolute: its relative paths as seen from here.
    makePathsAbsolute(resumed);
    keepRuntimeSettings(resumed, config);
    config = resumed;
    return checkpoint;
}

} // namespace hr
