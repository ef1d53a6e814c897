// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/synthetic_dataset.h"

#include "data/label_cache.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace hr {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// splitmix64: a tiny generator whose output is fully specified, so the data set is the same
/// with every standard library (std:: distributions are implementation-defined).
class SplitMix {
public:
    explicit SplitMix(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [lo, hi).
    double uniform(double lo, double hi) {
        return lo + (hi - lo) * static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
    }
    /// Uniform integer in [lo, hi].
    int integer(int lo, int hi) {
        return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    bool chance(double p) { return uniform(0.0, 1.0) < p; }
    cv::Scalar colour() { return cv::Scalar(integer(0, 255), integer(0, 255), integer(0, 255)); }

private:
    std::uint64_t m_state;
};

enum ShapeClass { Circle, Square, Triangle, Star, Cross, Ellipse, Hexagon, ClassCount };

std::uint64_t imageSeed(std::uint64_t seed, bool validation, int index) {
    SplitMix mix(seed * 0x100000001b3ULL + (validation ? 0x5bd1e995ULL : 0x2545f491ULL));
    mix.next();
    return mix.next() ^ (static_cast<std::uint64_t>(index) * 0xd6e8feb86659fd93ULL);
}

cv::Vec3b toVec(const cv::Scalar& s) {
    return cv::Vec3b(cv::saturate_cast<uchar>(s[0]), cv::saturate_cast<uchar>(s[1]),
                     cv::saturate_cast<uchar>(s[2]));
}

void paintBackground(cv::Mat& img, SplitMix& rng) {
    const int n = img.rows;
    const cv::Scalar a = rng.colour();
    const cv::Scalar b = rng.colour();
    switch (rng.integer(0, 4)) {
    case 0: { // linear gradient at a random angle
        const double angle = rng.uniform(0.0, 2.0 * kPi);
        const double c = std::cos(angle), s = std::sin(angle);
        for (int y = 0; y < n; ++y) {
            auto* row = img.ptr<cv::Vec3b>(y);
            for (int x = 0; x < n; ++x) {
                const double t = 0.5 + ((x - n / 2.0) * c + (y - n / 2.0) * s) / (1.5 * n);
                row[x] = toVec(a * (1.0 - t) + b * t);
            }
        }
        break;
    }
    case 1: { // soft stripes
        const double angle = rng.uniform(0.0, kPi);
        const double period = rng.uniform(6.0, 40.0);
        const double c = std::cos(angle), s = std::sin(angle);
        for (int y = 0; y < n; ++y) {
            auto* row = img.ptr<cv::Vec3b>(y);
            for (int x = 0; x < n; ++x) {
                const double t = 0.5 + 0.5 * std::sin(2.0 * kPi * (x * c + y * s) / period);
                row[x] = toVec(a * (1.0 - t) + b * t);
            }
        }
        break;
    }
    case 2: { // checks
        const int cell = rng.integer(8, 48);
        for (int y = 0; y < n; ++y) {
            auto* row = img.ptr<cv::Vec3b>(y);
            for (int x = 0; x < n; ++x)
                row[x] = toVec(((x / cell + y / cell) % 2) ? a : b);
        }
        break;
    }
    case 3: { // smooth colour blobs: a coarse random grid blown up
        const int g = rng.integer(3, 9);
        cv::Mat coarse(g, g, CV_8UC3);
        for (int y = 0; y < g; ++y)
            for (int x = 0; x < g; ++x)
                coarse.at<cv::Vec3b>(y, x) = toVec(rng.colour());
        cv::resize(coarse, img, img.size(), 0, 0, cv::INTER_CUBIC);
        break;
    }
    default: // flat colour; the noise added later is its texture
        img.setTo(a);
        break;
    }
}

/// Unlabelled clutter: lines, arcs and dots, so that "anything with an edge" is not an object.
void paintClutter(cv::Mat& img, SplitMix& rng) {
    const int n = img.rows;
    const int count = rng.integer(0, 7);
    for (int i = 0; i < count; ++i) {
        const cv::Scalar colour = rng.colour();
        const int thickness = rng.integer(1, 3);
        const cv::Point p(rng.integer(0, n - 1), rng.integer(0, n - 1));
        switch (rng.integer(0, 2)) {
        case 0:
            cv::line(img, p, cv::Point(rng.integer(0, n - 1), rng.integer(0, n - 1)), colour,
                     thickness, cv::LINE_AA);
            break;
        case 1: {
            const int r = rng.integer(n / 20, n / 4);
            const double start = rng.uniform(0.0, 360.0);
            cv::ellipse(img, p, cv::Size(r, r), 0.0, start, start + rng.uniform(40.0, 150.0),
                        colour, thickness, cv::LINE_AA);
            break;
        }
        default:
            cv::circle(img, p, rng.integer(1, 3), colour, cv::FILLED, cv::LINE_AA);
            break;
        }
    }
}

/// The outline of a shape of radius 1 around the origin, before rotation.
std::vector<cv::Point2d> unitShape(int cls, double aspect) {
    std::vector<cv::Point2d> pts;
    auto ring = [&](int corners, double phase, double rx, double ry) {
        for (int i = 0; i < corners; ++i) {
            const double t = phase + 2.0 * kPi * i / corners;
            pts.emplace_back(rx * std::cos(t), ry * std::sin(t));
        }
    };
    switch (cls) {
    case Circle:
        ring(48, 0.0, 1.0, 1.0);
        break;
    case Square:
        ring(4, kPi / 4, 1.0, 1.0);
        break;
    case Triangle:
        ring(3, -kPi / 2, 1.0, 1.0);
        break;
    case Star:
        for (int i = 0; i < 10; ++i) {
            const double t = -kPi / 2 + kPi * i / 5;
            const double r = (i % 2) ? 0.42 : 1.0;
            pts.emplace_back(r * std::cos(t), r * std::sin(t));
        }
        break;
    case Cross: {
        const double a = 0.3; // half the arm width
        const double xy[12][2] = {{-a, -1}, {a, -1}, {a, -a}, {1, -a}, {1, a},   {a, a},
                                  {a, 1},   {-a, 1}, {-a, a}, {-1, a}, {-1, -a}, {-a, -a}};
        for (const auto& p : xy)
            pts.emplace_back(p[0], p[1]);
        break;
    }
    case Ellipse:
        ring(48, 0.0, 1.0, aspect);
        break;
    default: // Hexagon
        ring(6, 0.0, 1.0, 1.0);
        break;
    }
    return pts;
}

double iou(const cv::Rect2d& a, const cv::Rect2d& b, double* overMin) {
    const double inter = (a & b).area();
    const double uni = a.area() + b.area() - inter;
    if (overMin)
        *overMin = inter / std::max(1e-9, std::min(a.area(), b.area()));
    return inter / std::max(1e-9, uni);
}

double meanColourDistance(const cv::Mat& img, const cv::Rect& r, const cv::Scalar& colour) {
    const cv::Rect clipped = r & cv::Rect(0, 0, img.cols, img.rows);
    if (clipped.empty())
        return 255.0;
    const cv::Scalar m = cv::mean(img(clipped));
    return std::abs(m[0] - colour[0]) + std::abs(m[1] - colour[1]) + std::abs(m[2] - colour[2]);
}

std::string formatLabel(const LabelBox& b) {
    char line[96];
    std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f\n", b.cls, b.cx, b.cy, b.w, b.h);
    return line;
}

std::string indexName(int index) {
    char name[16];
    std::snprintf(name, sizeof name, "%06d", index);
    return name;
}

bool writeBytes(const fs::path& path, const std::string& bytes, std::string* error) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        if (error)
            *error = "cannot write " + path.string();
        return false;
    }
    return true;
}

} // namespace

const std::vector<std::string>& syntheticClassNames() {
    static const std::vector<std::string> names{"circle", "square",  "triangle", "star",
                                                "cross",  "ellipse", "hexagon"};
    return names;
}

SyntheticImage renderSyntheticImage(const SyntheticOptions& options, bool validation, int index) {
    const int n = std::max(32, options.imgsz);
    SplitMix rng(imageSeed(options.seed, validation, index));
    SyntheticImage out;
    out.bgr.create(n, n, CV_8UC3);
    paintBackground(out.bgr, rng);
    paintClutter(out.bgr, rng);

    // About one image in twenty is a background image without objects.
    const int count = rng.chance(0.05) ? 0 : rng.integer(1, 8);
    std::vector<cv::Rect2d> placed;
    for (int k = 0; k < count; ++k) {
        const int cls = rng.integer(0, options.classes - 1);
        // Log-uniform radius: small objects are common, as in real data.
        const double radius = n * std::exp(rng.uniform(std::log(0.035), std::log(0.2)));
        const double aspect = rng.uniform(0.35, 0.65);
        const double angle = rng.uniform(0.0, 2.0 * kPi);
        const double stretch = (cls == Square || cls == Hexagon) ? rng.uniform(0.8, 1.25) : 1.0;
        std::vector<cv::Point2d> shape = unitShape(cls, aspect);
        std::vector<cv::Point2d> pts(shape.size());
        cv::Rect2d box;
        bool ok = false;
        for (int attempt = 0; attempt < 12 && !ok; ++attempt) {
            const double cx = rng.uniform(0.3 * radius, n - 0.3 * radius);
            const double cy = rng.uniform(0.3 * radius, n - 0.3 * radius);
            const double c = std::cos(angle), s = std::sin(angle);
            double x1 = 1e9, y1 = 1e9, x2 = -1e9, y2 = -1e9;
            for (size_t i = 0; i < shape.size(); ++i) {
                const double lx = shape[i].x * radius * stretch, ly = shape[i].y * radius;
                pts[i] = {cx + lx * c - ly * s, cy + lx * s + ly * c};
                x1 = std::min(x1, pts[i].x), y1 = std::min(y1, pts[i].y);
                x2 = std::max(x2, pts[i].x), y2 = std::max(y2, pts[i].y);
            }
            const cv::Rect2d full(x1, y1, x2 - x1, y2 - y1);
            box = full & cv::Rect2d(0, 0, n, n);
            if (box.area() < 0.5 * full.area() || box.width < 4 || box.height < 4)
                continue;
            ok = true;
            for (const auto& other : placed) {
                double overMin = 0.0;
                if (iou(box, other, &overMin) > 0.3 || overMin > 0.6) {
                    ok = false;
                    break;
                }
            }
        }
        if (!ok)
            continue;

        cv::Scalar colour = rng.colour();
        for (int attempt = 0; attempt < 6 && meanColourDistance(out.bgr, box, colour) < 90.0;
             ++attempt)
            colour = rng.colour();
        constexpr int shift = 4; // sub-pixel vertices
        std::vector<cv::Point> fixed(pts.size());
        for (size_t i = 0; i < pts.size(); ++i)
            fixed[i] =
                cv::Point(cvRound(pts[i].x * (1 << shift)), cvRound(pts[i].y * (1 << shift)));
        const std::vector<std::vector<cv::Point>> polys{fixed};
        cv::fillPoly(out.bgr, polys, colour, cv::LINE_AA, shift);
        if (rng.chance(0.35))
            cv::polylines(out.bgr, polys, true, rng.colour(), rng.integer(1, 2), cv::LINE_AA,
                          shift);
        placed.push_back(box);

        LabelBox label;
        label.cls = cls;
        label.cx = static_cast<float>((box.x + box.width / 2) / n);
        label.cy = static_cast<float>((box.y + box.height / 2) / n);
        label.w = static_cast<float>(box.width / n);
        label.h = static_cast<float>(box.height / n);
        out.labels.push_back(label);
    }

    if (rng.chance(0.3))
        cv::GaussianBlur(out.bgr, out.bgr, cv::Size(3, 3), 0.0);
    // Sensor-like noise; cv::RNG is specified by OpenCV, so this stays deterministic too.
    cv::RNG noiseRng(rng.next());
    cv::Mat noise(n, n, CV_16SC3);
    noiseRng.fill(noise, cv::RNG::NORMAL, 0.0, rng.uniform(2.0, 14.0));
    cv::Mat wide;
    out.bgr.convertTo(wide, CV_16SC3);
    wide += noise;
    wide.convertTo(out.bgr, CV_8UC3);
    return out;
}

bool makeSyntheticDataset(const std::string& outDir, const SyntheticOptions& options,
                          std::string* error) {
    if (options.train < 1 || options.val < 0 || options.imgsz < 32 || options.classes < 1 ||
        options.classes > ClassCount) {
        if (error)
            *error = "make-dataset needs train >= 1, val >= 0, imgsz >= 32 and classes 1.." +
                     std::to_string(int(ClassCount));
        return false;
    }
    const fs::path root(outDir);
    std::error_code ec;
    for (const char* sub : {"images/train", "images/val", "labels/train", "labels/val"}) {
        fs::create_directories(root / sub, ec);
        if (ec) {
            if (error)
                *error = "cannot create " + (root / sub).string() + ": " + ec.message();
            return false;
        }
    }
    const std::vector<int> params{cv::IMWRITE_JPEG_QUALITY, 92};
    for (int split = 0; split < 2; ++split) {
        const bool validation = split == 1;
        const int count = validation ? options.val : options.train;
        const char* name = validation ? "val" : "train";
        for (int i = 0; i < count; ++i) {
            const SyntheticImage image = renderSyntheticImage(options, validation, i);
            std::vector<uchar> jpeg;
            if (!cv::imencode(".jpg", image.bgr, jpeg, params)) {
                if (error)
                    *error = "cannot encode a JPEG image";
                return false;
            }
            std::string labels;
            for (const auto& box : image.labels)
                labels += formatLabel(box);
            const std::string stem = indexName(i);
            if (!writeBytes(root / "images" / name / (stem + ".jpg"),
                            std::string(jpeg.begin(), jpeg.end()), error) ||
                !writeBytes(root / "labels" / name / (stem + ".txt"), labels, error))
                return false;
        }
    }
    std::ostringstream yaml;
    yaml << "# Headroom's synthetic detection data set: " << options.train << " train / "
         << options.val << " val images of " << options.imgsz << " px, seed " << options.seed
         << ".\n# Regenerate: headroom-cli make-dataset --out DIR --train " << options.train
         << " --val " << options.val << " --imgsz " << options.imgsz << " --seed " << options.seed
         << (options.classes == ClassCount ? "" : " --classes " + std::to_string(options.classes))
         << "\n"
         << "path: .\ntrain: images/train\nval: images/" << (options.val > 0 ? "val" : "train")
         << "\nnc: " << options.classes << "\nnames:\n";
    for (int i = 0; i < options.classes; ++i)
        yaml << "  " << i << ": " << syntheticClassNames()[i] << "\n";
    return writeBytes(root / "data.yaml", yaml.str(), error);
}

std::string builtinDatasetDir() {
    if (const char* explicitDir = std::getenv("HEADROOM_BUILTIN_DATA"); explicitDir && *explicitDir)
        return explicitDir;
    return (fs::path(headroomCacheDir()) / "builtin-v1").string();
}

std::string ensureBuiltinDataset(std::string* error) {
    const fs::path dir(builtinDatasetDir());
    const fs::path yaml = dir / "data.yaml";
    std::error_code ec;
    if (fs::exists(yaml, ec))
        return yaml.string();
    if (dir.has_parent_path())
        fs::create_directories(dir.parent_path(), ec);
    // A private temporary folder per process and thread; the rename publishes it atomically.
    const fs::path temporary =
        dir.string() + ".tmp-" + std::to_string(::getpid()) + "-" +
        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000000);
    fs::remove_all(temporary, ec);
    if (!makeSyntheticDataset(temporary.string(), SyntheticOptions{}, error)) {
        fs::remove_all(temporary, ec);
        return {};
    }
    fs::rename(temporary, dir, ec); // replaces `dir` only when it is absent or empty
    if (ec) {
        fs::remove_all(temporary, ec);
        if (fs::exists(yaml, ec))
            return yaml.string(); // another process won the race
        if (error)
            *error = "cannot create the built-in data set in " + dir.string() +
                     ": the folder exists and is not a data set (remove it or set "
                     "HEADROOM_BUILTIN_DATA to another folder)";
        return {};
    }
    return yaml.string();
}

} // namespace hr
