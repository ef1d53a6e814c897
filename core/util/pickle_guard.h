// SPDX-License-Identifier: GPL-3.0-or-later
// Which callables a pickle may name: the model's pickle reader and the zip check ask here.
#pragma once

#include <cstddef>
#include <string>

namespace hr::pickle {

/// True when Python, loading the pickle, would run code through `module`.`name` (os.system,
/// builtins.eval, subprocess.Popen ...). The reader calls nothing; a file that asks for these
/// is an attack, not a checkpoint, and is named as one.
bool runsCode(const std::string& module, const std::string& name);

/// The first callable that runs code ("posix.system") that `data`, a pickle, names the way
/// Python's pickler writes a global (GLOBAL, or STACK_GLOBAL right after its two strings);
/// "" when none. A quick look for the zip check's message, not a parse: the pickle reader
/// refuses every form.
std::string codeCallIn(const unsigned char* data, std::size_t size);

} // namespace hr::pickle
