// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QString>

#include <string>
#include <vector>

namespace hr::ui {

/// A trainer's log line in the UI's language, from its code and values (LogMessage::code,
/// args). An uncoded line, or a code this UI does not know, keeps core's English `english`.
class LogWording {
    Q_DECLARE_TR_FUNCTIONS(LogWording)
public:
    static QString line(const std::string& code, const std::vector<std::string>& args,
                        const std::string& english);
};

} // namespace hr::ui
