// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the pickle reader: which callables a pickle may name.
#pragma once

#include <string>

namespace hr::pickle {

/// True when Python, loading the pickle, would run code through `module`.`name` (os.system,
/// builtins.eval, subprocess.Popen ...). The reader calls nothing; a file that asks for these
/// is an attack, not a checkpoint, and is named as one.
bool runsCode(const std::string& module, const std::string& name);

} // namespace hr::pickle
