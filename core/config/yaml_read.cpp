// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/yaml_read.h"

#include "util/text.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace hr::yaml {

int lineOf(const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    return mark.is_null() ? 0 : mark.line + 1;
}

std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
        return "nothing";
    case YAML::NodeType::Sequence:
        return "a list";
    case YAML::NodeType::Map:
        return "a map";
    case YAML::NodeType::Scalar:
        break;
    }
    return "'" + node.Scalar() + "'";
}

std::optional<double> toNumber(const YAML::Node& node) {
    if (!node.IsScalar())
        return std::nullopt;
    const std::string text = trim(node.Scalar());
    if (text.empty())
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<long long> toWhole(const YAML::Node& node) {
    const std::optional<double> value = toNumber(node);
    if (!value || std::floor(*value) != *value || std::fabs(*value) > 9.0e15)
        return std::nullopt;
    return static_cast<long long>(*value);
}

std::optional<bool> toBool(const YAML::Node& node) {
    if (!node.IsScalar())
        return std::nullopt;
    const std::string text = toLower(trim(node.Scalar()));
    if (text == "true" || text == "yes" || text == "on")
        return true;
    if (text == "false" || text == "no" || text == "off")
        return false;
    return std::nullopt;
}

std::string formatNumber(double value) {
    char buffer[64];
    const double magnitude = std::fabs(value);
    if (magnitude == 0 || (magnitude >= 1e-5 && magnitude < 1e15)) {
        // Fixed notation reads best ("20.0", "0.0005"); use the fewest decimals that give the
        // exact value back.
        for (int decimals = 0; decimals <= 20; ++decimals) {
            std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
            if (std::strtod(buffer, nullptr) == value)
                break;
        }
    } else {
        for (int precision = 1; precision <= 17; ++precision) {
            std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
            if (std::strtod(buffer, nullptr) == value)
                break;
        }
    }
    std::string text = buffer;
    // "20" would read back as a whole number; keep it visibly a real number for readers.
    if (text.find_first_of(".eEn") == std::string::npos)
        text += ".0";
    return text;
}

std::string quoteIfNeeded(const std::string& text) {
    bool quote = text.empty() || text != trim(text);
    if (!quote) {
        const YAML::Node asScalar(text);
        const std::string lowered = toLower(text);
        quote = toNumber(asScalar).has_value() || toBool(asScalar).has_value() ||
                lowered == "null" || lowered == "~" || lowered == "y" || lowered == "n" ||
                std::string("-?:,[]{}#&*!|>'\"%@`").find(text.front()) != std::string::npos ||
                text.back() == ':' || text.find(": ") != std::string::npos ||
                text.find(" #") != std::string::npos ||
                text.find_first_of("\n\t") != std::string::npos;
    }
    if (!quote)
        return text;
    YAML::Emitter emitter;
    emitter << YAML::DoubleQuoted << text;
    return emitter.c_str();
}

SyntaxError syntaxError(const std::string& message) {
    namespace M = YAML::ErrorMsg;
    // The parser's messages (the scanner's and the document builder's); the last three end
    // with the offending text.
    static const std::pair<const char*, const char*> kMessages[] = {
        {"yaml_directive_args", M::YAML_DIRECTIVE_ARGS},
        {"yaml_major_version", M::YAML_MAJOR_VERSION},
        {"repeated_yaml_directive", M::REPEATED_YAML_DIRECTIVE},
        {"tag_directive_args", M::TAG_DIRECTIVE_ARGS},
        {"repeated_tag_directive", M::REPEATED_TAG_DIRECTIVE},
        {"char_in_tag_handle", M::CHAR_IN_TAG_HANDLE},
        {"tag_with_no_suffix", M::TAG_WITH_NO_SUFFIX},
        {"end_of_verbatim_tag", M::END_OF_VERBATIM_TAG},
        {"end_of_map", M::END_OF_MAP},
        {"end_of_map_flow", M::END_OF_MAP_FLOW},
        {"end_of_seq", M::END_OF_SEQ},
        {"end_of_seq_flow", M::END_OF_SEQ_FLOW},
        {"multiple_tags", M::MULTIPLE_TAGS},
        {"multiple_anchors", M::MULTIPLE_ANCHORS},
        {"multiple_aliases", M::MULTIPLE_ALIASES},
        {"alias_content", M::ALIAS_CONTENT},
        {"invalid_hex", M::INVALID_HEX},
        {"unknown_token", M::UNKNOWN_TOKEN},
        {"doc_in_scalar", M::DOC_IN_SCALAR},
        {"eof_in_scalar", M::EOF_IN_SCALAR},
        {"char_in_scalar", M::CHAR_IN_SCALAR},
        {"tab_in_indentation", M::TAB_IN_INDENTATION},
        {"flow_end", M::FLOW_END},
        {"block_entry", M::BLOCK_ENTRY},
        {"map_key", M::MAP_KEY},
        {"map_value", M::MAP_VALUE},
        {"alias_not_found", M::ALIAS_NOT_FOUND},
        {"anchor_not_found", M::ANCHOR_NOT_FOUND},
        {"char_in_alias", M::CHAR_IN_ALIAS},
        {"char_in_anchor", M::CHAR_IN_ANCHOR},
        {"zero_indent_in_block", M::ZERO_INDENT_IN_BLOCK},
        {"char_in_block", M::CHAR_IN_BLOCK},
        {"ambiguous_anchor", M::AMBIGUOUS_ANCHOR},
        {"unknown_anchor", M::UNKNOWN_ANCHOR},
        {"yaml_version", M::YAML_VERSION},
        {"invalid_unicode", M::INVALID_UNICODE},
        {"invalid_escape", M::INVALID_ESCAPE},
    };
    for (const auto& [code, text] : kMessages) {
        const std::string known = text;
        const bool withValue = !known.empty() && known.back() == ' '; // "...: " + the text
        if (withValue ? message.rfind(known, 0) == 0 : message == known)
            return {code, withValue ? message.substr(known.size()) : std::string()};
    }
    return {};
}

std::string tooLarge(const std::string& text) {
    // yaml-cpp spends hundreds of bytes on each node: a 50 MB flow list would take gigabytes
    // before any check could look at it. Separators bound the number of items from above.
    std::size_t items = 0;
    for (const char c : text)
        items += c == ',' || c == '\n' || c == '[' || c == '{';
    if (text.size() > kMostYamlBytes)
        return "the file is " + std::to_string(text.size() >> 20) + " MiB, more than the " +
               std::to_string(kMostYamlBytes >> 20) + " MiB a settings or data set file can be";
    if (items > kMostYamlItems)
        return "the file holds about " + std::to_string(items) + " items, more than the " +
               std::to_string(kMostYamlItems) + " a settings or data set file can";
    return {};
}

std::optional<YAML::Node> parseDocument(const std::string& text, const std::string& sourceName,
                                        Diagnostics& diagnostics) {
    if (const std::string why = tooLarge(text); !why.empty()) {
        diagnostics.push_back(
            makeDiagnostic(Diagnostic::Severity::Error, sourceName, 0, {}, why,
                           "this is not a Headroom or Ultralytics settings file; check the path"));
        diagnostics.back().code = "yaml_too_large";
        return std::nullopt;
    }
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        const int line = e.mark.is_null() ? 0 : e.mark.line + 1;
        diagnostics.push_back(makeDiagnostic(Diagnostic::Severity::Error, sourceName, line, {},
                                             "malformed YAML: " + e.msg,
                                             "check the indentation, colons and quotes near "
                                             "this line"));
        const SyntaxError syntax = syntaxError(e.msg);
        diagnostics.back().code = "malformed_yaml";
        diagnostics.back().args = {
            syntax.code, std::to_string(e.mark.is_null() ? 0 : e.mark.column + 1), syntax.value};
        return std::nullopt;
    }
}

std::string suggestion(const std::string& word, const std::vector<std::string>& known,
                       const std::string& otherwise) {
    const std::string near = nearestMatch(word, known);
    return near.empty() ? otherwise : "did you mean '" + near + "'?";
}

} // namespace hr::yaml
