// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/bytes.h"

#include <QString>

#include <cstdint>

namespace hr::ui {

/// A byte count as every page shows it: core's formatBytes ("37.5 MiB"), so the studio and the
/// CLI print the same figure the same way.
inline QString bytesText(std::int64_t bytes) {
    return QString::fromStdString(hr::formatBytes(bytes));
}

} // namespace hr::ui
