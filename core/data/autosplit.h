// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <string>
#include <vector>

namespace hr {

/// Ultralytics' autosplit rule: with the file names sorted, image i goes to split
/// choices[i] (0 train, 1 val, 2 test), drawn by Python's random.choices(weights) after
/// random.seed(0). Headroom draws the same numbers (CPython's Mersenne Twister seeding and
/// random()), so a folder splits exactly as `ultralytics.data.split.autosplit` splits it.
std::vector<int> autosplitAssignment(size_t count, const std::array<double, 3>& weights);

/// The weights of a train/val split with `valFraction` (0.1: Ultralytics' 90/10 default).
std::array<double, 3> trainValWeights(double valFraction);

} // namespace hr
