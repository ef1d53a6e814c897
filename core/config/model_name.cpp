// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/model_name.h"

#include "util/resources.h"
#include "util/text.h"

#include <cctype>

namespace hr {

namespace {

constexpr const char* kScaleLetters = "nsmlxtce";

bool isDigit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

} // namespace

ModelName parseModelName(const std::string& name) {
    ModelName result;
    const std::size_t slash = name.find_last_of("/\\");
    const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    const std::string lowered = toLower(name);
    for (std::size_t at = lowered.find("yolo", base); at != std::string::npos;
         at = lowered.find("yolo", at + 1)) {
        std::size_t i = at + 4;
        if (lowered.compare(i, 2, "e-") == 0)
            i += 2;
        if (i < lowered.size() && lowered[i] == 'v')
            ++i;
        const std::size_t digits = i;
        while (i < lowered.size() && isDigit(lowered[i]))
            ++i;
        if (i == digits)
            continue;
        result.family = std::stoi(lowered.substr(digits, std::min<std::size_t>(i - digits, 6)));
        if (i < lowered.size() && isScaleLetter(lowered[i])) {
            result.scale = lowered[i];
            result.scalePos = i;
        }
        return result;
    }
    return result;
}

std::string scaleLettersOf(int family) {
    if (family == 8)
        return "nsmlx";
    if (family == 9)
        return "tsmce";
    return {};
}

bool isScaleLetter(char letter) {
    return letter != 0 && std::string(kScaleLetters).find(letter) != std::string::npos;
}

std::string unscaledModelFile(const std::string& name) {
    const ModelName parsed = parseModelName(name);
    if (parsed.scalePos == std::string::npos)
        return {};
    const std::string rest = toLower(name.substr(parsed.scalePos + 1));
    if (!rest.empty() && rest != ".yaml" && rest != ".yml")
        return {};
    const std::string stem = name.substr(0, parsed.scalePos);
    return stem + (rest.empty() ? std::string(".yaml") : name.substr(parsed.scalePos + 1));
}

ModelFileLookup lookUpModelFile(const std::string& name) {
    ModelFileLookup found;
    found.path = findModelFile(name);
    if (!found.path.empty())
        return found;
    const std::string unscaled = unscaledModelFile(name);
    if (unscaled.empty())
        return found;
    found.path = findModelFile(unscaled);
    if (!found.path.empty())
        found.scale = parseModelName(name).scale;
    return found;
}

} // namespace hr
