// SPDX-License-Identifier: GPL-3.0-or-later
// Runs headroom-cli (HEADROOM_CLI_PATH, set by the test's CMake rule) as a user would and
// returns what it printed.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace clitest {

struct CliResult {
    int exitCode = -1; ///< -1 when it crashed or did not finish
    QByteArray out, err;
    QString outText() const { return QString::fromUtf8(out); }
    QString errText() const { return QString::fromUtf8(err); }
};

/// Waits for a started `process` and collects what it wrote; exit code -1 where it crashed.
inline CliResult finishCli(QProcess& process) {
    CliResult result;
    if (!process.waitForFinished(-1))
        return result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

inline CliResult runCli(const QStringList& arguments) {
    QProcess process;
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(arguments);
    process.start();
    return finishCli(process);
}

} // namespace clitest
