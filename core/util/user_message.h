// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <exception>
#include <string>

namespace hr {

/// The one place an exception becomes text a user reads (CLI output, status line, dialogs,
/// events.jsonl). It
/// - drops C++ backtraces: LibTorch's c10::Error::what() appends "Exception raised from ..."
///   and "frame #N: ..." lines; only the message before them is kept;
/// - collapses a prefix repeated by nested catch sites ("data loader: data loader: x" ->
///   "data loader: x");
/// - adds the remedy of a known failure: a damaged or truncated checkpoint (`file`, when given,
///   is named), a full disk, a folder that cannot be written, a file that disappeared.
/// `file` is the file the failed operation read or wrote, when the caller knows it.
std::string userMessage(const std::exception& error, const std::string& file = {});

/// userMessage() for text that already left an exception (a stored error string).
std::string userText(const std::string& raw, const std::string& file = {});

/// The exception's own words as userMessage() cleans them (no backtrace, no repeated prefix),
/// without a remedy: for a catch site that says what to do itself. A weights file someone
/// gives is not a run's checkpoint, so the damaged-checkpoint remedy would mislead there.
std::string exceptionText(const std::exception& error);

} // namespace hr
