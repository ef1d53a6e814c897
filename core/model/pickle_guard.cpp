// SPDX-License-Identifier: GPL-3.0-or-later
#include "model/pickle_guard.h"

#include <set>

namespace hr::pickle {

bool runsCode(const std::string& module, const std::string& name) {
    static const std::set<std::string> modules = {
        "os",     "posix",  "nt",      "subprocess", "sys",      "shutil",
        "socket", "runpy",  "pty",     "importlib",  "commands", "webbrowser",
        "ctypes", "pickle", "marshal", "code",       "codeop",   "multiprocessing"};
    // getattr stays allowed: torch.save writes it, and alone it reaches no code.
    static const std::set<std::string> builtins = {"eval",    "exec",       "compile",
                                                   "open",    "input",      "__import__",
                                                   "globals", "breakpoint", "execfile"};
    const std::string top = module.substr(0, module.find('.'));
    return modules.count(top) != 0 ||
           ((module == "builtins" || module == "__builtin__") && builtins.count(name) != 0);
}

} // namespace hr::pickle
