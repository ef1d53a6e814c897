// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/image_list.h"

#include "util/atomic_file.h"
#include "util/text.h"

#include <sstream>

namespace hr {

void readImageList(const std::string& path,
                   const std::function<void(const std::string& entry, int line)>& visit) {
    std::string text;
    readFile(path, text);
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        line = trim(line);
        if (line.empty() || line[0] == '#')
            continue;
        visit(line, lineNo);
    }
}

} // namespace hr
