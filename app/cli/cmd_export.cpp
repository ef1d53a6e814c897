// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli export: a weights file as an ONNX model (Ultralytics' export layout).
#include "command.h"

#include "deploy/onnx_export.h"

#include <iostream>

namespace hr::cli {
namespace {

bool readInteger(const std::string& text, const char* name, int& value) {
    try {
        size_t used = 0;
        value = std::stoi(text, &used);
        if (used == text.size())
            return true;
    } catch (const std::exception&) {
    }
    std::cerr << "export: " << name << " must be an integer, got '" << text << "'\n";
    return false;
}

int runExport(const ParsedArgs& args) {
    std::string weights = args.value("--weights"), format = args.value("--format", "onnx");
    std::string imgszText = args.value("--imgsz"), opsetText = args.value("--opset", "12");
    bool dynamic = args.has("--dynamic");
    for (const auto& [key, value] : args.overrides()) { // Ultralytics spellings
        if (key == "imgsz")
            imgszText = value;
        else if (key == "opset")
            opsetText = value;
        else if (key == "format")
            format = value;
        else if (key == "model" || key == "weights")
            weights = value;
        else if (key == "dynamic")
            dynamic = value == "True" || value == "true";
        else {
            std::cerr << "export: unknown setting '" << key
                      << "' (export takes imgsz=, opset=, format=, model=)\n";
            return ExitUsage;
        }
    }
    if (weights.empty()) {
        std::cerr << "export: --weights FILE is required (a .pt from Headroom or Ultralytics)\n";
        return ExitUsage;
    }
    if (format != "onnx") {
        std::cerr << "export: format '" << format << "' is not supported; use --format onnx\n";
        return ExitUsage;
    }
    if (dynamic) {
        std::cerr << "export: --dynamic is not supported: the file is traced at one input size "
                     "(anchors are constants); export one file per size with imgsz=N\n";
        return ExitUsage;
    }
    int opset = 12, imgsz = 0;
    if (!readInteger(opsetText, "--opset", opset) ||
        (!imgszText.empty() && !readInteger(imgszText, "imgsz", imgsz)))
        return ExitUsage;
    const ExportResult result = exportWeightsFile(weights, args.value("--out"), imgsz, opset);
    std::cerr << "export: " << result.message << "\n";
    return result.ok ? ExitOk : ExitFailure;
}

Command makeExportCommand() {
    Command c(
        "export", runExport,
        "write a weights file as an ONNX model (checked with OpenCV's DNN module)",
        "headroom-cli export --weights W [--format onnx] [imgsz=N] [--opset N] [--out F]",
        "Writes the inference graph of W (a .pt from Headroom or Ultralytics) as ONNX, shaped "
        "like Ultralytics' export: input 'images' [1, 3, N, N] (RGB, 0..1), output 'output0' "
        "[1, 4 + nc, anchors] with boxes as centre x, y, width, height in pixels, then class "
        "scores. N defaults to the size the weights were trained at (else 640). The written file "
        "is read back and run with OpenCV's DNN module before the command reports success.");
    c.options = {{"--weights", "FILE", "weights to export (best.pt, yolov8n.pt)"},
                 {"--format", "F", "onnx (the only format)"},
                 {"--imgsz", "N", "input size, a multiple of 32 (same as imgsz=N)"},
                 {"--opset", "N", "ONNX operator set, 11 to 17 (default 12)"},
                 {"--dynamic", "", "dynamic input size (not supported; refused with a reason)"},
                 {"--out", "FILE", "output file (default: the weights path with .onnx)"}};
    c.acceptsOverrides = true;
    return c;
}

} // namespace
} // namespace hr::cli

HEADROOM_REGISTER_COMMAND(hr::cli::makeExportCommand);
