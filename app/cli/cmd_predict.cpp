// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli predict: detections on images, drawn and as YOLO text files with confidences.
#include "command.h"
#include "common.h"

#include "config/weights_source.h"
#include "data/augment.h"
#include "deploy/onnx_export.h"
#include "deploy/opencv_runner.h"
#include "eval/nms.h"
#include "model/model_io.h"
#include "train/compute_threads.h"
#include "util/text.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

namespace hr::cli {
namespace {

namespace fs = std::filesystem;

bool isImage(const fs::path& path) {
    const std::string ext = toLower(path.extension().string());
    for (const char* known : {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
        if (ext == known)
            return true;
    return false;
}

cv::Scalar colourOf(int cls) {
    static const cv::Scalar palette[] = {
        {56, 56, 255}, {151, 157, 255}, {31, 112, 255}, {29, 178, 255}, {49, 210, 207},
        {10, 249, 72}, {23, 204, 146},  {134, 219, 61}, {211, 188, 0},  {255, 115, 0}};
    return palette[static_cast<size_t>(cls) % (sizeof palette / sizeof palette[0])];
}

bool readNumber(const ParsedArgs& args, const char* name, double low, double high, double& value) {
    if (!args.has(name))
        return true;
    std::string error;
    const auto parsed = args.number(name, &error);
    if (!parsed || *parsed < low || *parsed > high) {
        std::cerr << "predict: " << name << " must be a number in [" << low << ", " << high
                  << "]\n";
        return false;
    }
    value = *parsed;
    return true;
}

int runPredict(const ParsedArgs& args) {
    std::string weights = args.value("--weights");
    // Ultralytics' model=yolov8n.pt; weights= and pretrained= name the file as train does.
    for (const auto& [key, value] : args.overrides()) {
        if (key != "model" && key != "weights" && key != "pretrained") {
            std::cerr << "predict: unknown setting '" << key
                      << "' (predict takes model=FILE; its other options are flags: --source, "
                         "--out, --imgsz, --conf, --iou, --backend)\n";
            return ExitUsage;
        }
        weights = value;
    }
    const std::string backend = args.value("--backend", "libtorch");
    if (backend != "libtorch" && backend != "opencv") {
        std::cerr << "predict: --backend must be libtorch or opencv, got '" << backend << "'\n";
        return ExitUsage;
    }
    if (weights.empty() || !args.has("--source") || !args.has("--out")) {
        std::cerr << "predict: --weights, --source and --out are required\n";
        return ExitUsage;
    }
    double conf = 0.25, iou = 0.7, imgszValue = 640;
    if (!readNumber(args, "--conf", 0, 1, conf) || !readNumber(args, "--iou", 0, 1, iou) ||
        !readNumber(args, "--imgsz", 32, 8192, imgszValue))
        return ExitUsage;
    useComputeThreads(0); // no threads setting here: all cores
    LoadedModel loaded = loadModel(weights);
    if (!loaded.model) {
        std::cerr << "predict: " << loaded.error << "\n";
        return ExitFailure;
    }
    // Without --imgsz: the size the weights were trained at, as Ultralytics does.
    if (const int trained = trainedImageSize(loaded.trainingConfigYaml);
        !args.has("--imgsz") && trained > 0)
        imgszValue = trained;
    const int imgsz = (static_cast<int>(imgszValue) + 31) / 32 * 32;
    DetectionModel model = loaded.model;
    model->eval();
    const fs::path out = args.value("--out");
    std::error_code ec;
    fs::create_directories(out / "labels", ec);
    if (ec) {
        std::cerr << "predict: cannot create " << out.string() << ": " << ec.message() << "\n";
        return ExitFailure;
    }
    // OpenCV's DNN module runs the model as exported to ONNX, as a deployment would.
    OpenCvRunner runner;
    if (backend == "opencv") {
        const std::string onnx = (out / "model.onnx").string();
        OnnxExportOptions options;
        options.imgsz = imgsz;
        std::string error;
        if (!exportOnnx(model, loaded.classNames, onnx, options, &error) ||
            !runner.load(onnx, &error)) {
            std::cerr << "predict: " << error << "\n";
            return ExitFailure;
        }
        std::cerr << "predict: OpenCV DNN runs " << onnx << "\n";
    }

    std::vector<fs::path> images;
    const fs::path source = args.value("--source");
    if (fs::is_directory(source, ec)) {
        for (const auto& entry : fs::directory_iterator(source, ec))
            if (entry.is_regular_file() && isImage(entry.path()))
                images.push_back(entry.path());
        std::sort(images.begin(), images.end());
    } else if (fs::is_regular_file(source, ec)) {
        images.push_back(source);
    }
    if (images.empty()) {
        std::cerr << "predict: no image found at " << source.string() << "\n";
        return ExitFailure;
    }

    torch::NoGradGuard noGrad;
    int failures = 0;
    for (const fs::path& path : images) {
        cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
        if (bgr.empty()) {
            std::cerr << "predict: cannot read " << path.string() << "\n";
            ++failures;
            continue;
        }
        cv::Mat boxed;
        const LetterboxInfo info = letterbox(bgr, boxed, cv::Size(imgsz, imgsz), false, nullptr);
        cv::Mat rgb;
        cv::cvtColor(boxed, rgb, cv::COLOR_BGR2RGB);
        const torch::Tensor input =
            torch::from_blob(rgb.data, {1, rgb.rows, rgb.cols, 3}, torch::kUInt8)
                .permute({0, 3, 1, 2})
                .to(torch::kFloat)
                .div(255.0)
                .contiguous();
        const torch::Tensor decoded =
            backend == "opencv" ? runner.predict(input) : model->predict(input);
        torch::Tensor dets = nonMaxSuppression(decoded, conf, iou, 300)[0].to(torch::kCPU);
        clipBoxes(dets, info.padX, info.padY, info.padX + bgr.cols * info.scale,
                  info.padY + bgr.rows * info.scale);
        std::ofstream txt(out / "labels" / (path.stem().string() + ".txt"));
        const auto a = dets.accessor<float, 2>();
        for (int64_t i = 0; i < dets.size(0); ++i) {
            // Back from letterboxed pixels to the original image.
            const float x1 = (a[i][0] - info.padX) / info.scale;
            const float y1 = (a[i][1] - info.padY) / info.scale;
            const float x2 = (a[i][2] - info.padX) / info.scale;
            const float y2 = (a[i][3] - info.padY) / info.scale;
            const int cls = static_cast<int>(a[i][5]);
            txt << cls << std::fixed << std::setprecision(6) << " " << (x1 + x2) / 2 / bgr.cols
                << " " << (y1 + y2) / 2 / bgr.rows << " " << (x2 - x1) / bgr.cols << " "
                << (y2 - y1) / bgr.rows << " " << a[i][4] << "\n";
            const cv::Scalar colour = colourOf(cls);
            cv::rectangle(bgr, cv::Point(int(x1), int(y1)), cv::Point(int(x2), int(y2)), colour, 2);
            std::ostringstream label;
            label << (cls < static_cast<int>(loaded.classNames.size()) ? loaded.classNames[cls]
                                                                       : std::to_string(cls))
                  << " " << std::fixed << std::setprecision(2) << a[i][4];
            int baseline = 0;
            const cv::Size size =
                cv::getTextSize(label.str(), cv::FONT_HERSHEY_SIMPLEX, 0.5, 1, &baseline);
            const int top = std::max(int(y1) - size.height - 4, 0);
            cv::rectangle(bgr, cv::Point(int(x1), top),
                          cv::Point(int(x1) + size.width + 2, top + size.height + 4), colour,
                          cv::FILLED);
            cv::putText(bgr, label.str(), cv::Point(int(x1) + 1, top + size.height + 1),
                        cv::FONT_HERSHEY_SIMPLEX, 0.5, cv::Scalar(255, 255, 255), 1);
        }
        const fs::path drawn = out / (path.stem().string() + ".jpg");
        if (!cv::imwrite(drawn.string(), bgr)) {
            std::cerr << "predict: cannot write " << drawn.string() << "\n";
            ++failures;
            continue;
        }
        std::cout << path.filename().string() << ": " << dets.size(0) << " detections\n";
    }
    std::cout << "results in " << out.string() << " (labels/*.txt: cls cx cy w h conf)\n";
    return failures == 0 ? ExitOk : ExitFailure;
}

Command makePredictCommand() {
    Command c("predict", runPredict,
              "detect objects in images; writes drawn images and YOLO txt with confidences",
              "headroom-cli predict --weights W --source DIR|IMG --out DIR [--imgsz N] "
              "[--conf 0.25] [--iou 0.7] [--backend libtorch|opencv]",
              "Letterboxes each image to imgsz, runs the model, keeps detections above "
              "--conf after NMS, and writes OUT/<image>.jpg with boxes drawn and "
              "OUT/labels/<image>.txt with one 'cls cx cy w h conf' line per box "
              "(normalised to the original image).");
    c.options = {
        {"--weights", "FILE", "a weights file from Headroom or Ultralytics (best.pt, yolov8n.pt)"},
        {"--source", "PATH", "an image or a folder of images"},
        {"--out", "DIR", "where drawn images and labels go"},
        {"--imgsz", "N", "inference size (default: the training size, else 640)"},
        {"--conf", "X", "confidence threshold (default 0.25)"},
        {"--iou", "X", "NMS IoU threshold (default 0.7)"},
        {"--backend", "B", "libtorch (default) or opencv: OpenCV DNN runs the ONNX export"}};
    c.acceptsOverrides = true;
    return c;
}

} // namespace

HEADROOM_REGISTER_COMMAND(makePredictCommand);

} // namespace hr::cli
