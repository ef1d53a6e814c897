// SPDX-License-Identifier: GPL-3.0-or-later
#include "interruptedrunbanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace hr::ui {

InterruptedRunBanner::InterruptedRunBanner(QWidget* parent)
    : QFrame(parent), m_message(new QLabel(this)) {
    setObjectName(QStringLiteral("interruptedRun"));
    setFrameShape(QFrame::StyledPanel);
    m_message->setObjectName(QStringLiteral("interruptedRunMessage"));
    m_message->setWordWrap(true);
    auto* resume = new QPushButton(tr("Resume"), this);
    resume->setObjectName(QStringLiteral("interruptedRunResume"));
    auto* open = new QPushButton(tr("Open"), this);
    open->setObjectName(QStringLiteral("interruptedRunOpen"));
    open->setToolTip(tr("Show the run's curves on the Runs page"));
    auto* dismiss = new QPushButton(tr("Dismiss"), this);
    dismiss->setObjectName(QStringLiteral("interruptedRunDismiss"));
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_message, 1);
    layout->addWidget(resume);
    layout->addWidget(open);
    layout->addWidget(dismiss);
    // Either answer ends the question: the banner goes, the run stays in the Runs page.
    connect(resume, &QPushButton::clicked, this, [this] {
        hide();
        emit resumeClicked(m_dir);
    });
    connect(open, &QPushButton::clicked, this, [this] {
        hide();
        emit openClicked(m_dir);
    });
    connect(dismiss, &QPushButton::clicked, this, &QWidget::hide);
    hide();
}

void InterruptedRunBanner::showRun(const QString& dir, const QString& name, int epochsDone,
                                   int epochsPlanned) {
    m_dir = dir;
    const QString epochs = epochsPlanned > 0
                               ? tr("after epoch %1 of %2").arg(epochsDone).arg(epochsPlanned)
                               : tr("after epoch %1").arg(epochsDone);
    m_message->setText(tr("The last run, %1, did not finish: it ended %2. Resume continues it "
                          "from its last checkpoint.")
                           .arg(name, epochs));
    show();
}

} // namespace hr::ui
