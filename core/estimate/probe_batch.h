// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "data/batch.h"

namespace hr {

/// A batch of random images with `objects` boxes per image (centres in the middle 60% of the
/// image, sides 5-30% of it, random classes below `nc`): the shapes a real batch of a data set
/// has, crowded enough that every box has anchors inside it. The estimator's probe steps and
/// `bench loss` run on it.
Batch probeBatch(int batch, int imgsz, int objects, int nc);

} // namespace hr
