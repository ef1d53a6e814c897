// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/user_message.h"

#include "util/text.h"

#include <vector>

namespace hr {

namespace {

/// The message without a trailing backtrace: everything from the first line that starts a
/// backtrace ("Exception raised from", "frame #", a bare "Traceback") is dropped, and so are
/// the lines c10 puts around it.
std::string withoutBacktrace(const std::string& raw) {
    std::string out;
    for (const std::string& line : split(raw, '\n')) {
        const std::string t = trim(line);
        if (t.rfind("Exception raised from", 0) == 0 || t.rfind("frame #", 0) == 0 ||
            t.rfind("Traceback", 0) == 0)
            break;
        if (t.empty())
            continue;
        if (!out.empty())
            out += ' ';
        out += t;
    }
    return out;
}

/// "a: a: b" -> "a: b": nested catch sites that each add their context repeat it.
std::string collapseRepeatedPrefixes(const std::string& text) {
    std::string out;
    std::string previous;
    std::size_t start = 0;
    for (;;) {
        const std::size_t colon = text.find(": ", start);
        const std::string part =
            text.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (part != previous || colon == std::string::npos) {
            if (!out.empty())
                out += ": ";
            out += part;
        }
        if (colon == std::string::npos)
            return out;
        previous = part;
        start = colon + 2;
    }
}

bool contains(const std::string& lower, const char* needle) {
    return lower.find(needle) != std::string::npos;
}

std::string named(const std::string& file) {
    return file.empty() ? std::string("the file") : file;
}

/// The words of an error without backtrace and repeated prefixes; never empty.
std::string cleaned(const std::string& raw) {
    const std::string text = collapseRepeatedPrefixes(withoutBacktrace(raw));
    return text.empty() ? std::string("unknown error") : text;
}

} // namespace

std::string exceptionText(const std::exception& error) {
    return cleaned(error.what());
}

std::string userText(const std::string& raw, const std::string& file) {
    const std::string text = cleaned(raw);
    const std::string lower = toLower(text);
    if (contains(lower, "pytorchstreamreader") || contains(lower, "central directory") ||
        contains(lower, "zip archive")) {
        return "the checkpoint " + named(file) +
               " is damaged or incomplete (it was cut short while being written, or is not a "
               "Headroom checkpoint); use its backup (last.pt.bak next to it) or start a new "
               "run";
    }
    // A text that already carries its remedy (worded once at the catch site that knew the
    // file) keeps it as it is.
    if (contains(lower, " - the disk is full") || contains(lower, " - headroom cannot write"))
        return text;
    if (contains(lower, "no space left on device") || contains(lower, "disk quota exceeded") ||
        contains(lower, "file too large")) {
        return text + " - the disk is full: free some space" +
               (file.empty() ? std::string() : " where " + file + " is written") +
               " (old runs, caches), or choose another project folder, then resume";
    }
    if (contains(lower, "permission denied") || contains(lower, "read-only file system") ||
        contains(lower, "not a directory")) {
        return text + " - Headroom cannot write there: choose a project folder you can write " +
               "(project=...), or fix the folder's permissions";
    }
    if ((contains(lower, "no such file") || contains(lower, "does not exist") ||
         contains(lower, "cannot open") || contains(lower, "cannot read")) &&
        !file.empty()) {
        return text + " - " + file +
               " was moved or deleted while Headroom used it: put it back, or check the data "
               "set (headroom-cli data check) and start again";
    }
    return text;
}

std::string userMessage(const std::exception& error, const std::string& file) {
    return userText(error.what(), file);
}

} // namespace hr
