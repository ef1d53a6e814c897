// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace hr {

/// One object in YOLO label form: class id and a box normalised to the image (0..1), given by
/// its centre and size. This is the `cls cx cy w h` line of a label file.
struct LabelBox {
    int cls = 0;
    float cx = 0.f;
    float cy = 0.f;
    float w = 0.f;
    float h = 0.f;
};

} // namespace hr
