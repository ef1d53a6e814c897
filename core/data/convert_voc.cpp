// SPDX-License-Identifier: GPL-3.0-or-later
// Pascal VOC XML -> YOLO. VOC annotation files are plain element trees (no DTD, namespaces or
// mixed content), so a small reader here does instead of an XML library (docs/decisions.md).
#include "data/convert_internal.h"

#include "data/image_io.h"
#include "util/atomic_file.h"
#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

namespace fs = std::filesystem;

namespace hr::convert {

namespace {

using Severity = Diagnostic::Severity;

struct XmlNode {
    std::string name;
    std::string text;
    int line = 0;
    std::vector<std::unique_ptr<XmlNode>> children;

    const XmlNode* child(const char* n) const {
        for (const auto& c : children)
            if (c->name == n)
                return c.get();
        return nullptr;
    }
    std::string childText(const char* n) const {
        const XmlNode* c = child(n);
        return c ? trim(c->text) : std::string();
    }
};

class XmlReader {
public:
    explicit XmlReader(const std::string& text) : m_text(text) {}

    // The root element, or nothing with `error` naming the line.
    std::unique_ptr<XmlNode> parse(std::string& error) {
        std::unique_ptr<XmlNode> root;
        std::vector<XmlNode*> open;
        while (m_pos < m_text.size()) {
            const size_t lt = m_text.find('<', m_pos);
            if (lt == std::string::npos) {
                m_pos = m_text.size();
                break;
            }
            if (!open.empty())
                open.back()->text += decode(m_text.substr(m_pos, lt - m_pos));
            advanceTo(lt);
            if (starts("<?"))
                skipPast("?>");
            else if (starts("<!--"))
                skipPast("-->");
            else if (starts("<![CDATA[")) {
                const size_t end = m_text.find("]]>", m_pos);
                if (end == std::string::npos)
                    return fail(error, "unterminated CDATA section");
                if (!open.empty())
                    open.back()->text += m_text.substr(m_pos + 9, end - m_pos - 9);
                advanceTo(end + 3);
            } else if (starts("<!"))
                skipPast(">");
            else if (starts("</")) {
                const size_t end = m_text.find('>', m_pos);
                if (end == std::string::npos)
                    return fail(error, "unterminated closing tag");
                const std::string name = trim(m_text.substr(m_pos + 2, end - m_pos - 2));
                if (open.empty() || open.back()->name != name)
                    return fail(error, "closing tag </" + name + "> does not match " +
                                           (open.empty() ? std::string("any open element")
                                                         : "<" + open.back()->name + ">"));
                open.pop_back();
                advanceTo(end + 1);
            } else {
                const int line = m_line;
                size_t end = m_pos + 1;
                char quote = 0;
                for (; end < m_text.size(); ++end) {
                    const char c = m_text[end];
                    if (quote) {
                        quote = c == quote ? 0 : quote;
                    } else if (c == '"' || c == '\'') {
                        quote = c;
                    } else if (c == '>') {
                        break;
                    }
                }
                if (end >= m_text.size())
                    return fail(error, "unterminated tag");
                const bool selfClosing = m_text[end - 1] == '/';
                const std::string inside =
                    m_text.substr(m_pos + 1, end - m_pos - 1 - (selfClosing ? 1 : 0));
                const size_t space = inside.find_first_of(" \t\r\n");
                auto node = std::make_unique<XmlNode>();
                node->name = inside.substr(0, space);
                node->line = line;
                if (node->name.empty())
                    return fail(error, "a tag without a name");
                XmlNode* raw = node.get();
                if (open.empty()) {
                    if (root)
                        return fail(error, "a second root element <" + node->name + ">");
                    root = std::move(node);
                } else {
                    open.back()->children.push_back(std::move(node));
                }
                if (!selfClosing)
                    open.push_back(raw);
                advanceTo(end + 1);
            }
        }
        if (!open.empty())
            return fail(error, "<" + open.back()->name + "> (line " +
                                   std::to_string(open.back()->line) + ") is never closed");
        if (!root)
            return fail(error, "no XML element");
        return root;
    }

private:
    bool starts(const char* prefix) const {
        return m_text.compare(m_pos, std::strlen(prefix), prefix) == 0;
    }
    void advanceTo(size_t pos) {
        m_line += static_cast<int>(std::count(m_text.begin() + static_cast<long>(m_pos),
                                              m_text.begin() + static_cast<long>(pos), '\n'));
        m_pos = pos;
    }
    void skipPast(const char* end) {
        const size_t at = m_text.find(end, m_pos);
        advanceTo(at == std::string::npos ? m_text.size() : at + std::strlen(end));
    }
    std::unique_ptr<XmlNode> fail(std::string& error, const std::string& message) const {
        error = "line " + std::to_string(m_line) + ": " + message;
        return nullptr;
    }
    static std::string decode(const std::string& s) {
        if (s.find('&') == std::string::npos)
            return s;
        std::string out;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] != '&') {
                out += s[i];
                continue;
            }
            const size_t semi = s.find(';', i);
            const std::string entity =
                semi == std::string::npos ? "" : s.substr(i + 1, semi - i - 1);
            static const std::map<std::string, char> named = {
                {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
            if (named.count(entity)) {
                out += named.at(entity);
                i = semi;
            } else if (entity.size() > 1 && entity[0] == '#') {
                const bool hex = entity[1] == 'x';
                const long code =
                    std::strtol(entity.c_str() + (hex ? 2 : 1), nullptr, hex ? 16 : 10);
                if (code > 0 && code < 128)
                    out += static_cast<char>(code);
                i = semi;
            } else {
                out += s[i];
            }
        }
        return out;
    }

    const std::string& m_text;
    size_t m_pos = 0;
    int m_line = 1;
};

bool toNumber(const std::string& text, double& value) {
    const std::string t = trim(text);
    const auto result = std::from_chars(t.data(), t.data() + t.size(), value);
    return result.ec == std::errc() && result.ptr == t.data() + t.size() && std::isfinite(value);
}

struct VocObject {
    std::string name;
    bool difficult = false;
    double xmin = 0, ymin = 0, xmax = 0, ymax = 0;
    int number = 0; ///< 1-based position among the file's <object>s
    int line = 0;
};

struct VocFile {
    std::string xml;
    std::string image;
    int width = 0, height = 0;
    std::vector<VocObject> objects;
};

// Image ids listed in ImageSets/Main/<split>.txt ("2008_000002" or "2008_000002  1").
std::set<std::string> idsIn(const fs::path& list) {
    std::set<std::string> ids;
    std::string text;
    if (!readFile(list.string(), text))
        return ids;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = trim(text.substr(start, end - start));
        if (!line.empty())
            ids.insert(line.substr(0, line.find_first_of(" \t")));
        start = end + 1;
    }
    return ids;
}

} // namespace

bool collectVoc(const std::string& input, const ConvertOptions& options, Collected& out,
                ConvertReport& report) {
    const fs::path root(input);
    const fs::path annotations =
        fs::is_directory(root / "Annotations") ? root / "Annotations" : root;
    std::vector<fs::path> xmls;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             annotations, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".xml" && it->is_regular_file(ec))
            xmls.push_back(it->path());
    std::sort(xmls.begin(), xmls.end());
    if (xmls.empty()) {
        report.error = "found no .xml annotation file in " + annotations.string();
        return false;
    }

    std::vector<VocFile> files;
    std::set<std::string> classNames;
    int total = static_cast<int>(xmls.size()), done = 0;
    for (const fs::path& xmlPath : xmls) {
        if (options.progress && done % 64 == 0 && !options.progress(done, total)) {
            report.error = "cancelled; nothing was written";
            return false;
        }
        ++done;
        const std::string file = xmlPath.string();
        std::string text, error;
        if (!readFile(file, text, &error)) {
            record(report, Severity::Warning, "unreadable XML file", file, 0,
                   error + ": left it out");
            continue;
        }
        XmlReader reader(text);
        const std::unique_ptr<XmlNode> doc = reader.parse(error);
        if (!doc) {
            const int line = std::atoi(error.c_str() + 5);
            record(report, Severity::Warning, "broken XML file", file, line,
                   "broken XML (" + error + "): left the image out");
            continue;
        }
        if (doc->name != "annotation") {
            record(report, Severity::Warning, "not a VOC annotation", file, doc->line,
                   "the root element is <" + doc->name + ">, not <annotation>: left it out");
            continue;
        }
        VocFile voc;
        voc.xml = file;
        const std::string filename = doc->childText("filename");
        const fs::path folder = xmlPath.parent_path();
        std::vector<std::string> candidates;
        for (const fs::path& dir : {root / "JPEGImages", folder, root / "images", root}) {
            if (!filename.empty())
                candidates.push_back((dir / filename).string());
            for (const auto& ext : imageExtensions())
                candidates.push_back((dir / xmlPath.stem()).string() + ext);
        }
        voc.image = firstExisting(candidates);
        if (voc.image.empty()) {
            record(report, Severity::Warning, "image file not found", file, 0,
                   "image '" + (filename.empty() ? xmlPath.stem().string() : filename) +
                       "' is not in JPEGImages/ or beside the XML: left it out");
            continue;
        }
        if (sourceInsideRoots(voc.image, options.imageRoots).empty()) {
            refuseOutside(report, file, 0, "<filename>", voc.image);
            continue;
        }
        double w = 0, h = 0;
        if (const XmlNode* size = doc->child("size")) {
            toNumber(size->childText("width"), w);
            toNumber(size->childText("height"), h);
        }
        if (w < 1 || h < 1) {
            // Some tools write <size> 0 0; the image knows.
            const cv::Mat image = readImage(voc.image, &error);
            w = image.cols, h = image.rows;
            if (image.empty()) {
                record(report, Severity::Warning, "image without size that cannot be read", file, 0,
                       error + ": left it out");
                continue;
            }
        }
        voc.width = static_cast<int>(w), voc.height = static_cast<int>(h);
        int number = 0;
        for (const auto& child : doc->children) {
            if (child->name != "object")
                continue;
            ++number;
            VocObject o;
            o.number = number;
            o.line = child->line;
            o.name = child->childText("name");
            o.difficult = child->childText("difficult") == "1";
            const XmlNode* box = child->child("bndbox");
            const std::string where =
                "object " + std::to_string(number) + (o.name.empty() ? "" : " '" + o.name + "'");
            if (o.name.empty() || !box || !toNumber(box->childText("xmin"), o.xmin) ||
                !toNumber(box->childText("ymin"), o.ymin) ||
                !toNumber(box->childText("xmax"), o.xmax) ||
                !toNumber(box->childText("ymax"), o.ymax)) {
                record(report, Severity::Warning, "object without name or bndbox", file, o.line,
                       where + ": needs <name> and <bndbox> with numeric xmin, ymin, xmax, ymax: "
                               "left it out");
                continue;
            }
            if (o.difficult && options.skipDifficult) {
                record(report, Severity::Note, "difficult object (--skip-difficult)", file, o.line,
                       where + ": marked difficult: left it out");
                continue;
            }
            classNames.insert(o.name);
            voc.objects.push_back(o);
        }
        files.push_back(std::move(voc));
    }

    // The class list is every name the files use, in alphabetical order (a run over the same
    // files gives the same ids).
    out.names.assign(classNames.begin(), classNames.end());
    std::map<std::string, int> classOf;
    for (size_t i = 0; i < out.names.size(); ++i)
        classOf[out.names[i]] = static_cast<int>(i);

    // ImageSets/Main/{train,val,test}.txt choose the splits when present.
    const fs::path sets = root / "ImageSets" / "Main";
    std::vector<std::pair<Role, std::set<std::string>>> lists;
    for (const auto& [name, role] : {std::pair<const char*, Role>{"train", Role::Train},
                                     {"val", Role::Val},
                                     {"test", Role::Test}})
        if (fs::is_regular_file(sets / (std::string(name) + ".txt"), ec))
            lists.emplace_back(role, idsIn(sets / (std::string(name) + ".txt")));
    std::map<Role, Part> parts;
    for (const VocFile& voc : files) {
        Item item;
        item.source = voc.image;
        item.name = fs::path(voc.image).filename().string();
        item.entryFile = voc.xml;
        item.entry = "<filename>";
        for (const VocObject& o : voc.objects) {
            // VOC pixel indices start at 1; Ultralytics' VOC script uses the same centre shift.
            Box box;
            bool clipped = false;
            if (!pixelBoxToYolo(o.xmin - 1, o.ymin - 1, o.xmax - 1, o.ymax - 1, voc.width,
                                voc.height, box, clipped)) {
                record(report, Severity::Warning, "box outside the image", voc.xml, o.line,
                       "object " + std::to_string(o.number) + " '" + o.name + "': box (" +
                           number(o.xmin) + ", " + number(o.ymin) + ", " + number(o.xmax) + ", " +
                           number(o.ymax) + ") is empty or outside the " +
                           std::to_string(voc.width) + "x" + std::to_string(voc.height) +
                           " image: left it out");
                continue;
            }
            if (clipped)
                record(report, Severity::Note, "box clipped to the image", voc.xml, o.line,
                       "object " + std::to_string(o.number) + " '" + o.name +
                           "': box reaches outside the image: clipped it");
            box.cls = classOf[o.name];
            item.boxes.push_back(box);
        }
        const std::string id = fs::path(voc.xml).stem().string();
        if (lists.empty()) {
            parts[Role::Train].items.push_back(std::move(item));
            continue;
        }
        bool listed = false;
        for (const auto& [role, ids] : lists)
            if (ids.count(id)) {
                parts[role].role = role;
                parts[role].items.push_back(item);
                listed = true;
                break;
            }
        if (!listed)
            record(report, Severity::Note, "image in no ImageSets/Main list", voc.xml, 0,
                   "'" + id +
                       "' is in none of ImageSets/Main/train.txt, val.txt, test.txt: "
                       "left it out");
    }
    for (auto& [role, part] : parts) {
        part.role = role;
        out.parts.push_back(std::move(part));
    }
    return true;
}

} // namespace hr::convert
