// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/pickle_guard.h"

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

std::string codeCallIn(const unsigned char* data, std::size_t size) {
    const auto line = [&](std::size_t from, std::size_t& end) {
        std::size_t at = from;
        while (at < size && at - from < 256 && data[at] != '\n')
            ++at;
        end = at;
        return at < size && data[at] == '\n'
                   ? std::string(reinterpret_cast<const char*>(data + from), at - from)
                   : std::string();
    };
    std::string last, beforeLast; // the strings pushed last (SHORT_BINUNICODE)
    for (std::size_t i = 0; i < size; ++i) {
        const unsigned char op = data[i];
        if (op == 'c') { // GLOBAL "module\nname\n"
            std::size_t end = 0, nameEnd = 0;
            const std::string module = line(i + 1, end);
            const std::string name = module.empty() ? std::string() : line(end + 1, nameEnd);
            if (!name.empty() && runsCode(module, name))
                return module + "." + name;
        } else if (op == 0x8c && i + 1 < size && i + 2 + data[i + 1] <= size) {
            beforeLast = last;
            last.assign(reinterpret_cast<const char*>(data + i + 2), data[i + 1]);
            i += 1 + data[i + 1];
            if (i + 1 < size && data[i + 1] == 0x94) // MEMOIZE
                ++i;
            if (i + 1 < size && data[i + 1] == 0x93 && runsCode(beforeLast, last))
                return beforeLast + "." + last;
        }
    }
    return {};
}

} // namespace hr::pickle
