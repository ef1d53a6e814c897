// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QString>

#include <string>
#include <vector>

namespace hr::ui {

/// Why a run failed, in the UI's language, from the code and values the trainer reports
/// (RunFailed::code, args; RunSummary::reasonCode, reasonArgs). An uncoded reason, or a code
/// this UI does not know, keeps core's English `english`.
class FailureWording {
    Q_DECLARE_TR_FUNCTIONS(FailureWording)
public:
    static QString reason(const std::string& code, const std::vector<std::string>& args,
                          const std::string& english);
};

} // namespace hr::ui
