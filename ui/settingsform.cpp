// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingsform.h"
#include "diagnosticwording.h"

#include "plotpalette.h"

#include "util/bytes.h"
#include "util/resources.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace hr::ui {

QString budgetText(std::int64_t bytes) {
    return bytes > 0 ? QString::fromStdString(exactByteSize(bytes, true)) : QString();
}

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

/// The layers as core reads them back: "" for none, else a YAML list "[0, 1, 2]".
QString freezeText(const std::vector<int>& layers) {
    if (layers.empty())
        return {};
    QStringList parts;
    for (int layer : layers)
        parts << QString::number(layer);
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QStringList modelNames() {
    QStringList names;
    const QString dir = qs(hr::resourcesDir()) + QStringLiteral("/models");
    for (const QString& file : QDir(dir).entryList({QStringLiteral("*.yaml")}, QDir::Files))
        names << file;
    if (names.isEmpty())
        names << QStringLiteral("yolov8n.yaml");
    return names;
}

} // namespace

SettingsForm::SettingsForm(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_validation = new QLabel(this);
    m_validation->setObjectName(QStringLiteral("validation"));
    m_validation->setWordWrap(true);
    m_validation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_validation);
    m_columnRow = new QHBoxLayout;
    for (QVBoxLayout*& column : m_columns) {
        column = new QVBoxLayout;
        m_columnRow->addLayout(column, 1);
    }
    layout->addLayout(m_columnRow);
    layout->addStretch(1);
    buildFields();
    m_columnCount = 0;
    setColumnCount(2);
    setConfig(TrainConfig{});
}

SettingsForm::~SettingsForm() = default;

QString SettingsForm::tip(const QString& what, const QString& memory, const QString& speed,
                          const QString& accuracy) const {
    return QStringLiteral("<p>%1</p><p><b>%2</b> %3<br><b>%4</b> %5<br><b>%6</b> %7</p>")
        .arg(what.toHtmlEscaped(), tr("Memory:"), memory.toHtmlEscaped(), tr("Speed:"),
             speed.toHtmlEscaped(), tr("Accuracy:"), accuracy.toHtmlEscaped());
}

QFormLayout* SettingsForm::addGroup(const QString& title, int column) {
    auto* box = new QGroupBox(title, this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_columns[column]->addWidget(box);
    m_groups.emplace_back(box, column);
    return form;
}

void SettingsForm::setColumnCount(int columns) {
    columns = columns <= 1 ? 1 : 2;
    if (columns == m_columnCount)
        return;
    m_columnCount = columns;
    for (QVBoxLayout* column : m_columns)
        while (QLayoutItem* item = column->takeAt(0))
            delete item; // spacers; the group boxes stay children of the form
    for (const auto& [group, column] : m_groups)
        m_columns[columns == 2 ? column : 0]->addWidget(group);
    for (QVBoxLayout* column : m_columns)
        column->addStretch(1);
    m_columnRow->setStretch(1, columns == 2 ? 1 : 0);
}

int SettingsForm::twoColumnWidth() const {
    int widest[2] = {0, 0};
    for (const auto& [group, column] : m_groups)
        widest[column] = std::max(widest[column], group->minimumSizeHint().width());
    const QMargins margins = layout()->contentsMargins();
    return widest[0] + widest[1] + m_columnRow->spacing() + margins.left() + margins.right();
}

void SettingsForm::addField(QFormLayout* form, const QString& key, const QString& label,
                            QWidget* widget, const QString& tooltip,
                            std::function<void(const TrainConfig&)> load,
                            std::function<void(TrainConfig&)> store) {
    widget->setObjectName(key);
    widget->setToolTip(tooltip);
    auto* labelWidget = new QLabel(label, widget->parentWidget());
    labelWidget->setToolTip(tooltip);
    labelWidget->setBuddy(widget);
    form->addRow(labelWidget, widget);
    // Core's message about this field, right under it; hidden while there is none.
    auto* message = new QLabel(widget->parentWidget());
    message->setObjectName(key + QStringLiteral("_message"));
    message->setWordWrap(true);
    message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), message);
    form->setRowVisible(message, false);
    m_fields.push_back(
        Field{key, label, widget, labelWidget, message, std::move(load), std::move(store), {}});
}

void SettingsForm::addFreeText(QFormLayout* form, const QString& key, const QString& label,
                               QWidget* widget, const QString& tooltip,
                               std::function<void(const TrainConfig&)> load,
                               std::function<QString()> text, bool quote) {
    const std::string name = key.toStdString();
    auto value = [text, quote] {
        const QString typed = text().trimmed();
        if (!quote)
            return typed.toStdString();
        // One YAML single-quoted scalar: a path or name is text whatever characters it holds.
        QString escaped = typed;
        escaped.replace(QLatin1Char('\''), QStringLiteral("''"));
        return QStringLiteral("'%1'").arg(escaped).toStdString();
    };
    addField(form, key, label, widget, tooltip, std::move(load),
             [name, value](TrainConfig& c) { hr::applyOverride(c, name, value()); });
    m_fields.back().parseError = [name, value] {
        TrainConfig scratch;
        for (const Diagnostic& d : hr::applyOverride(scratch, name, value()))
            if (d.severity == Diagnostic::Severity::Error)
                return DiagnosticWording::message(d);
        return QString();
    };
}

void SettingsForm::addInt(QFormLayout* form, const QString& key, const QString& label,
                          int TrainConfig::*member, int min, int max, const QString& tooltip,
                          const QString& special, int step) {
    auto* spin = new QSpinBox(form->parentWidget());
    spin->setRange(min, max);
    spin->setSingleStep(step);
    if (!special.isEmpty())
        spin->setSpecialValueText(special);
    connect(spin, &QSpinBox::valueChanged, this, [this] {
        if (!m_loading) {
            updateValidation();
            emit configChanged();
        }
    });
    addField(
        form, key, label, spin, tooltip,
        [spin, member](const TrainConfig& c) { spin->setValue(c.*member); },
        [spin, member](TrainConfig& c) { c.*member = spin->value(); });
}

void SettingsForm::addDouble(QFormLayout* form, const QString& key, const QString& label,
                             double TrainConfig::*member, double min, double max, int decimals,
                             const QString& tooltip) {
    auto* spin = new QDoubleSpinBox(form->parentWidget());
    spin->setDecimals(decimals);
    spin->setRange(min, max);
    spin->setSingleStep(max <= 1.0 ? 0.05 : 0.5);
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this] {
        if (!m_loading) {
            updateValidation();
            emit configChanged();
        }
    });
    addField(
        form, key, label, spin, tooltip,
        [spin, member](const TrainConfig& c) { spin->setValue(c.*member); },
        [spin, member](TrainConfig& c) { c.*member = spin->value(); });
}

void SettingsForm::addBool(QFormLayout* form, const QString& key, const QString& label,
                           bool TrainConfig::*member, const QString& tooltip) {
    auto* box = new QCheckBox(form->parentWidget());
    connect(box, &QCheckBox::toggled, this, [this] {
        if (!m_loading) {
            updateValidation();
            emit configChanged();
        }
    });
    addField(
        form, key, label, box, tooltip,
        [box, member](const TrainConfig& c) { box->setChecked(c.*member); },
        [box, member](TrainConfig& c) { c.*member = box->isChecked(); });
}

void SettingsForm::addText(QFormLayout* form, const QString& key, const QString& label,
                           std::string TrainConfig::*member, const QString& tooltip,
                           const QString& placeholder) {
    auto* edit = new QLineEdit(form->parentWidget());
    edit->setPlaceholderText(placeholder);
    connect(edit, &QLineEdit::textEdited, this, [this] {
        updateValidation();
        emit configChanged();
    });
    addFreeText(
        form, key, label, edit, tooltip,
        [edit, member](const TrainConfig& c) { edit->setText(qs(c.*member)); },
        [edit] { return edit->text(); }, true);
}

void SettingsForm::addChoice(QFormLayout* form, const QString& key, const QString& label,
                             std::string TrainConfig::*member, const QStringList& values,
                             const QStringList& labels, bool editable, const QString& tooltip) {
    auto* combo = new QComboBox(form->parentWidget());
    combo->setEditable(editable);
    for (int i = 0; i < values.size(); ++i)
        combo->addItem(i < labels.size() ? labels[i] : values[i], values[i]);
    auto changed = [this] {
        if (!m_loading) {
            updateValidation();
            emit configChanged();
        }
    };
    connect(combo, &QComboBox::currentIndexChanged, this, changed);
    if (editable)
        connect(combo, &QComboBox::editTextChanged, this, changed);
    auto load = [combo, member](const TrainConfig& c) {
        const QString value = qs(c.*member);
        const int index = combo->findData(value);
        if (index >= 0)
            combo->setCurrentIndex(index);
        else if (combo->isEditable())
            combo->setEditText(value);
        else {
            combo->addItem(value, value);
            combo->setCurrentIndex(combo->count() - 1);
        }
    };
    // The value: the chosen item's, or what the user typed over it.
    auto value = [combo] {
        if (combo->isEditable() && combo->currentText() != combo->itemText(combo->currentIndex()))
            return combo->currentText();
        return combo->currentData().toString();
    };
    if (editable)
        addFreeText(form, key, label, combo, tooltip, load, value, true);
    else
        addField(form, key, label, combo, tooltip, load,
                 [member, value](TrainConfig& c) { c.*member = value().toStdString(); });
}

void SettingsForm::buildFields() {
    const QString none = tr("No effect.");
    const QString more = tr("Higher values need more.");

    // --- model and data ---------------------------------------------------------------------
    QFormLayout* f = addGroup(tr("Model and data"), 0);
    addChoice(f, QStringLiteral("model"), tr("Model"), &TrainConfig::model, modelNames(), {}, true,
              tip(tr("The detector architecture: an Ultralytics-format model YAML."),
                  tr("Larger models hold more weights, gradients, optimizer state and "
                     "activations."),
                  tr("Larger models are slower per image."),
                  tr("Larger models usually reach a higher mAP.")));
    addChoice(f, QStringLiteral("model_scale"), tr("Scale"), &TrainConfig::scale,
              {QString(), QStringLiteral("n"), QStringLiteral("s"), QStringLiteral("m"),
               QStringLiteral("l"), QStringLiteral("x"), QStringLiteral("t"), QStringLiteral("c"),
               QStringLiteral("e")},
              {tr("From the file name"), tr("n (nano)"), tr("s (small)"), tr("m (medium)"),
               tr("l (large)"), tr("x (extra large)"), tr("t (tiny, YOLOv9)"),
               tr("c (compact, YOLOv9)"), tr("e (extended, YOLOv9)")},
              false,
              tip(tr("Width and depth multipliers of the model family."),
                  tr("Each step up roughly doubles to triples the memory."),
                  tr("Each step up is roughly two to three times slower."),
                  tr("Bigger scales detect small and rare objects better.")));
    addText(f, QStringLiteral("weights"), tr("Start from weights"), &TrainConfig::weights,
            tip(tr("A .pt file from Headroom or Ultralytics (best.pt, yolov8n.pt) to start "
                   "from instead of random weights; the run's log says how many tensors it "
                   "transferred."),
                none, none, tr("Pretrained weights reach a good mAP in far fewer epochs.")),
            tr("none: train from scratch"));
    addText(f, QStringLiteral("data"), tr("Data set"), &TrainConfig::data,
            tip(tr("The data.yaml of the data set. Empty uses the built-in sample."), none, none,
                tr("More and better labelled images give a better model.")),
            tr("built-in sample"));
    addBool(f, QStringLiteral("single_cls"), tr("Single class"), &TrainConfig::single_cls,
            tip(tr("Treat every object as one class."), none, none,
                tr("Class names are lost; box quality may improve on tiny data sets.")));
    addDouble(f, QStringLiteral("fraction"), tr("Fraction of training set"), &TrainConfig::fraction,
              0.01, 1.0, 2,
              tip(tr("Train on this share of the training images."), none,
                  tr("Epochs get shorter in proportion."), tr("Less data, lower mAP.")));
    {
        auto* edit = new QLineEdit(f->parentWidget());
        edit->setPlaceholderText(tr("none, e.g. 10 or [0, 1, 2]"));
        connect(edit, &QLineEdit::textEdited, this, [this] {
            updateValidation();
            emit configChanged();
        });
        addFreeText(
            f, QStringLiteral("freeze"), tr("Frozen layers"), edit,
            tip(tr("The first N layers (a number), or a list of layer indices like [0, 1, 2], "
                   "whose weights do not train."),
                tr("Frozen layers need no gradients or optimizer state."),
                tr("Faster: no weight gradients for frozen layers."),
                tr("Usually lower unless starting from good pretrained weights.")),
            [edit](const TrainConfig& c) { edit->setText(freezeText(c.freeze)); },
            [edit] { return edit->text(); }, false);
    }

    // --- device and memory ------------------------------------------------------------------
    f = addGroup(tr("Device and memory"), 0);
    addChoice(f, QStringLiteral("device"), tr("Device"), &TrainConfig::device,
              {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda"),
               QStringLiteral("cuda:0"), QStringLiteral("cuda:1")},
              {tr("auto (GPU when present)"), QStringLiteral("cpu"), QStringLiteral("cuda"),
               QStringLiteral("cuda:0"), QStringLiteral("cuda:1")},
              true,
              tip(tr("Where training runs."), tr("The budget applies to this device."),
                  tr("A GPU is much faster than the CPU."), none));
    {
        auto* edit = new QLineEdit(f->parentWidget());
        edit->setPlaceholderText(tr("none, e.g. 3 GiB"));
        connect(edit, &QLineEdit::textEdited, this, [this] {
            updateValidation();
            emit configChanged();
        });
        addFreeText(
            f, QStringLiteral("memory_budget"), tr("Memory budget"), edit,
            tip(tr("Make the device behave as if it had only this much memory (KiB, MiB, GiB "
                   "or bytes). Past it a step runs out of memory, as on a smaller GPU."),
                tr("The limit itself."), none, none),
            [edit](const TrainConfig& c) { edit->setText(budgetText(c.memory_budget)); },
            [edit] { return edit->text(); }, false);
    }
    addInt(f, QStringLiteral("batch"), tr("Batch"), &TrainConfig::batch, -1, 4096,
           tip(tr("Images per step. Auto-fit picks the largest batch the budget holds."),
               tr("Activations grow in proportion to the batch."),
               tr("Larger batches use the device better, up to a point."),
               tr("Small batches make BatchNorm statistics noisier; accumulation keeps the "
                  "effective batch.")),
           tr("auto-fit"));
    addInt(f, QStringLiteral("imgsz"), tr("Image size"), &TrainConfig::imgsz, 32, 4096,
           tip(tr("Training and validation image size in pixels (a multiple of 32)."),
               tr("Activations grow with the square of the size."),
               tr("Time grows with the square of the size."),
               tr("Smaller images lose small objects.")),
           {}, 32);
    addBool(f, QStringLiteral("amp"), tr("Mixed precision (AMP)"), &TrainConfig::amp,
            tip(tr("Compute in 16-bit floats where it is safe (fp16 on GPU, bf16 on CPU)."),
                tr("Activations take about half the memory."),
                tr("Faster on GPUs with tensor cores."), tr("Usually the same mAP within noise.")));
    {
        auto* combo = new QComboBox(f->parentWidget());
        combo->addItem(tr("off"), static_cast<int>(Checkpointing::None));
        combo->addItem(tr("backbone"), static_cast<int>(Checkpointing::Backbone));
        combo->addItem(tr("all blocks"), static_cast<int>(Checkpointing::All));
        connect(combo, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_loading) {
                updateValidation();
                emit configChanged();
            }
        });
        addField(
            f, QStringLiteral("checkpointing"), tr("Gradient checkpointing"), combo,
            tip(tr("Recompute block activations in the backward pass instead of keeping them."),
                tr("Much less activation memory."), tr("About a third slower per step."),
                tr("Same result: the computation is identical.")),
            [combo](const TrainConfig& c) {
                combo->setCurrentIndex(combo->findData(static_cast<int>(c.checkpointing)));
            },
            [combo](TrainConfig& c) {
                c.checkpointing = static_cast<Checkpointing>(combo->currentData().toInt());
            });
    }
    addBool(f, QStringLiteral("optimizer_offload"), tr("Optimizer state on host"),
            &TrainConfig::optimizer_offload,
            tip(tr("Keep the optimizer's state tensors in host memory."),
                tr("Frees the optimizer state from the device."),
                tr("Slower optimizer steps (copies to and from the host)."), none));
    addInt(f, QStringLiteral("assign_chunk"), tr("Assigner boxes per slice"),
           &TrainConfig::assign_chunk, 0, 100000,
           tip(tr("How many labelled boxes the loss's label assignment compares with every "
                  "anchor at once."),
               tr("Lower needs less in the loss phase on images with many objects."),
               tr("Lower is a little slower (more, smaller passes)."),
               tr("No effect: the targets are the same.")),
           tr("automatic"));
    {
        auto* combo = new QComboBox(f->parentWidget());
        combo->addItem(tr("ask me"), static_cast<int>(OomPolicy::Ask));
        combo->addItem(tr("apply the best fix"), static_cast<int>(OomPolicy::Auto));
        combo->addItem(tr("stop the run"), static_cast<int>(OomPolicy::Stop));
        connect(combo, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_loading) {
                updateValidation();
                emit configChanged();
            }
        });
        addField(
            f, QStringLiteral("on_oom"), tr("On out of memory"), combo,
            tip(tr("What happens when a step runs out of memory: ask with the advisor, apply "
                   "the best fix and continue, or stop."),
                none, none, none),
            [combo](const TrainConfig& c) {
                combo->setCurrentIndex(combo->findData(static_cast<int>(c.on_oom)));
            },
            [combo](TrainConfig& c) {
                c.on_oom = static_cast<OomPolicy>(combo->currentData().toInt());
            });
    }
    addInt(f, QStringLiteral("workers"), tr("Loader threads"), &TrainConfig::workers, 0, 64,
           tip(tr("Threads that decode and augment images."),
               tr("Host memory only: each thread holds images in flight."),
               tr("More threads keep the device fed, up to the number of cores."), none));
    addInt(f, QStringLiteral("threads"), tr("Compute threads"), &TrainConfig::threads, 0, 256,
           tip(tr("Intra-op threads for the CPU kernels."), none,
               tr("More threads are faster up to the number of cores."), none),
           tr("all cores"));
    addChoice(f, QStringLiteral("cache"), tr("Image cache"), &TrainConfig::cache,
              {QStringLiteral("none"), QStringLiteral("ram"), QStringLiteral("disk")},
              {tr("none"), tr("RAM"), tr("disk")}, false,
              tip(tr("Keep decoded images in RAM or on disk between epochs."),
                  tr("Host memory (RAM cache), not device memory."),
                  tr("Faster epochs when decoding is the bottleneck."), none));
    addDouble(f, QStringLiteral("memory_sample_hz"), tr("Memory samples per second"),
              &TrainConfig::memory_sample_hz, 1.0, 1000.0, 1,
              tip(tr("How often the memory timeline is sampled."), none,
                  tr("Very high rates cost a little time."), none));

    // --- schedule ---------------------------------------------------------------------------
    f = addGroup(tr("Schedule and optimizer"), 1);
    addInt(f, QStringLiteral("epochs"), tr("Epochs"), &TrainConfig::epochs, 1, 100000,
           tip(tr("Passes over the training set."), none, tr("Time grows in proportion."),
               tr("More epochs learn more, until the model overfits.")));
    addInt(f, QStringLiteral("patience"), tr("Patience"), &TrainConfig::patience, 0, 100000,
           tip(tr("Stop early after this many epochs without improvement (0 = never)."), none,
               tr("Saves time on runs that stopped improving."), tr("Too small stops too early.")),
           tr("never stop early"));
    addChoice(f, QStringLiteral("optimizer"), tr("Optimizer"), &TrainConfig::optimizer,
              {QStringLiteral("auto"), QStringLiteral("SGD"), QStringLiteral("Adam"),
               QStringLiteral("AdamW")},
              {tr("auto"), QStringLiteral("SGD"), QStringLiteral("Adam"), QStringLiteral("AdamW")},
              false,
              tip(tr("The update rule. Auto picks AdamW for short runs and SGD for long ones."),
                  tr("SGD keeps one state tensor per weight, Adam and AdamW two."), none,
                  tr("AdamW converges faster on short runs; SGD often generalises better on "
                     "long ones.")));
    addDouble(f, QStringLiteral("lr0"), tr("Initial learning rate"), &TrainConfig::lr0, 1e-6, 1.0,
              6,
              tip(tr("Learning rate at the end of warmup."), none, none,
                  tr("Too high diverges, too low learns slowly.")));
    addDouble(f, QStringLiteral("lrf"), tr("Final learning rate factor"), &TrainConfig::lrf, 1e-6,
              1.0, 6,
              tip(tr("The last epoch's learning rate as a fraction of the initial one."), none,
                  none, tr("A small final rate settles the weights.")));
    addDouble(f, QStringLiteral("momentum"), tr("Momentum"), &TrainConfig::momentum, 0.0, 0.999, 4,
              tip(tr("SGD momentum, or Adam's beta1."), none, none,
                  tr("The default suits most data sets.")));
    addDouble(f, QStringLiteral("weight_decay"), tr("Weight decay"), &TrainConfig::weight_decay,
              0.0, 0.1, 6,
              tip(tr("L2 penalty on convolution and linear weights."), none, none,
                  tr("Reduces overfitting; too much underfits.")));
    addDouble(f, QStringLiteral("warmup_epochs"), tr("Warmup epochs"), &TrainConfig::warmup_epochs,
              0.0, 100.0, 2,
              tip(tr("Epochs over which the learning rate ramps up."), none, none,
                  tr("Stabilises the first epochs.")));
    addDouble(f, QStringLiteral("warmup_momentum"), tr("Warmup momentum"),
              &TrainConfig::warmup_momentum, 0.0, 0.999, 4,
              tip(tr("Momentum at the start of warmup."), none, none,
                  tr("The default suits most data sets.")));
    addDouble(f, QStringLiteral("warmup_bias_lr"), tr("Warmup bias learning rate"),
              &TrainConfig::warmup_bias_lr, 0.0, 1.0, 4,
              tip(tr("Learning rate of the biases at the start of warmup."), none, none,
                  tr("The default suits most data sets.")));
    addBool(f, QStringLiteral("cos_lr"), tr("Cosine schedule"), &TrainConfig::cos_lr,
            tip(tr("Decay the learning rate along a cosine instead of a line."), none, none,
                tr("Sometimes slightly better at the end of long runs.")));
    addInt(f, QStringLiteral("nbs"), tr("Nominal batch"), &TrainConfig::nbs, 1, 4096,
           tip(tr("Gradients are accumulated until this many images, whatever the batch."), none,
               tr("No effect on images per second."),
               tr("Keeps training behaviour when the batch shrinks to fit memory.")));

    // --- loss -------------------------------------------------------------------------------
    f = addGroup(tr("Loss gains"), 1);
    addDouble(
        f, QStringLiteral("box"), tr("Box loss gain"), &TrainConfig::box, 0.0, 100.0, 3,
        tip(tr("Weight of the box (CIoU) loss."), none, none, tr("Higher favours box precision.")));
    addDouble(f, QStringLiteral("cls"), tr("Class loss gain"), &TrainConfig::cls, 0.0, 100.0, 3,
              tip(tr("Weight of the classification loss."), none, none,
                  tr("Higher favours class accuracy.")));
    addDouble(f, QStringLiteral("dfl"), tr("DFL loss gain"), &TrainConfig::dfl, 0.0, 100.0, 3,
              tip(tr("Weight of the distribution focal loss of box edges."), none, none,
                  tr("The default suits most data sets.")));

    // --- augmentation -----------------------------------------------------------------------
    f = addGroup(tr("Augmentation"), 1);
    const QString augMemory = tr("Host memory only.");
    const QString augSpeed = tr("A little more loader time.");
    addDouble(f, QStringLiteral("hsv_h"), tr("Hue"), &TrainConfig::hsv_h, 0.0, 1.0, 3,
              tip(tr("Random hue shift (fraction)."), none, augSpeed,
                  tr("Robustness to colour changes.")));
    addDouble(f, QStringLiteral("hsv_s"), tr("Saturation"), &TrainConfig::hsv_s, 0.0, 1.0, 3,
              tip(tr("Random saturation gain (fraction)."), none, augSpeed,
                  tr("Robustness to colour changes.")));
    addDouble(f, QStringLiteral("hsv_v"), tr("Brightness"), &TrainConfig::hsv_v, 0.0, 1.0, 3,
              tip(tr("Random brightness gain (fraction)."), none, augSpeed,
                  tr("Robustness to lighting changes.")));
    addDouble(f, QStringLiteral("degrees"), tr("Rotation (degrees)"), &TrainConfig::degrees, 0.0,
              180.0, 1,
              tip(tr("Random rotation range."), none, augSpeed,
                  tr("Helps when objects appear rotated.")));
    addDouble(f, QStringLiteral("translate"), tr("Translation"), &TrainConfig::translate, 0.0, 0.9,
              3,
              tip(tr("Random shift as a fraction of the image size."), none, augSpeed,
                  tr("Robustness to object position.")));
    addDouble(f, QStringLiteral("scale"), tr("Scale gain"), &TrainConfig::scale_aug, 0.0, 0.99, 3,
              tip(tr("Random zoom range."), none, augSpeed, tr("Robustness to object size.")));
    addDouble(
        f, QStringLiteral("shear"), tr("Shear (degrees)"), &TrainConfig::shear, 0.0, 90.0, 1,
        tip(tr("Random shear range."), none, augSpeed, tr("Helps with perspective variety.")));
    addDouble(
        f, QStringLiteral("perspective"), tr("Perspective"), &TrainConfig::perspective, 0.0, 0.001,
        5,
        tip(tr("Random perspective distortion."), none, augSpeed, tr("Helps with camera angles.")));
    addDouble(f, QStringLiteral("flipud"), tr("Vertical flip"), &TrainConfig::flipud, 0.0, 1.0, 2,
              tip(tr("Probability of an upside-down flip."), none, augSpeed,
                  tr("Only useful when objects can appear upside down.")));
    addDouble(f, QStringLiteral("fliplr"), tr("Horizontal flip"), &TrainConfig::fliplr, 0.0, 1.0, 2,
              tip(tr("Probability of a mirror flip."), none, augSpeed,
                  tr("Usually helps; not for text or left/right classes.")));
    addDouble(f, QStringLiteral("mosaic"), tr("Mosaic"), &TrainConfig::mosaic, 0.0, 1.0, 2,
              tip(tr("Probability of combining four images into one."), augMemory,
                  tr("Mosaic images cost more loader time."),
                  tr("Strong gain on small data sets; more objects per image.")));
    addDouble(f, QStringLiteral("mixup"), tr("Mixup"), &TrainConfig::mixup, 0.0, 1.0, 2,
              tip(tr("Probability of blending two images."), augMemory, augSpeed,
                  tr("Helps larger models; can hurt small ones.")));
    addInt(f, QStringLiteral("close_mosaic"), tr("Close mosaic (last epochs)"),
           &TrainConfig::close_mosaic, 0, 100000,
           tip(tr("Turn mosaic off for this many final epochs."), none, none,
               tr("Ends training on realistic images; usually better mAP.")));
    addBool(f, QStringLiteral("rect"), tr("Rectangular batches"), &TrainConfig::rect,
            tip(tr("Batch images of similar aspect ratio with less padding."),
                tr("Less padding, slightly less memory."), tr("Slightly faster."),
                tr("Not compatible with mosaic; may lower mAP in training.")));

    // --- validation -------------------------------------------------------------------------
    f = addGroup(tr("Validation"), 1);
    addBool(f, QStringLiteral("val"), tr("Validate each epoch"), &TrainConfig::val,
            tip(tr("Compute mAP on the validation set after each epoch."),
                tr("Validation has its own peak; it can run out of memory too."),
                tr("Adds the validation time to each epoch."),
                tr("Needed to pick the best weights.")));
    addDouble(
        f, QStringLiteral("conf"), tr("Confidence threshold"), &TrainConfig::conf, 0.0, 1.0, 4,
        tip(tr("Minimum score of a detection in validation."), none,
            tr("Higher is faster (fewer boxes to match)."), tr("Keep it low for a faithful mAP.")));
    addDouble(f, QStringLiteral("iou"), tr("NMS IoU"), &TrainConfig::iou, 0.0, 1.0, 3,
              tip(tr("Overlap above which non-maximum suppression merges boxes."), none, none,
                  tr("Lower merges more boxes.")));
    addInt(f, QStringLiteral("max_det"), tr("Maximum detections"), &TrainConfig::max_det, 1, 100000,
           tip(tr("Detections kept per image in validation."), none,
               tr("Fewer is a little faster."), tr("Too few lowers recall on crowded images.")));
    addInt(f, QStringLiteral("val_batch"), tr("Validation batch"), &TrainConfig::val_batch, 0, 4096,
           tip(tr("Images per validation step."), more, tr("Larger is faster."), none),
           tr("2 × batch"));

    // --- run folder -------------------------------------------------------------------------
    f = addGroup(tr("Run folder"), 0);
    addText(f, QStringLiteral("project"), tr("Runs folder"), &TrainConfig::project,
            tip(tr("Folder that holds the runs."), none, none, none));
    addText(f, QStringLiteral("name"), tr("Run name"), &TrainConfig::name,
            tip(tr("Name of this run's folder; numbered when it exists."), none, none, none));
    addBool(f, QStringLiteral("exist_ok"), tr("Reuse an existing folder"), &TrainConfig::exist_ok,
            tip(tr("Write into an existing run folder instead of numbering a new one."), none, none,
                none));
    addBool(f, QStringLiteral("resume"), tr("Resume"), &TrainConfig::resume,
            tip(tr("Continue the named run from its last checkpoint."), none, none,
                tr("Identical to an uninterrupted run.")));
    addInt(f, QStringLiteral("seed"), tr("Seed"), &TrainConfig::seed, 0,
           std::numeric_limits<int>::max(),
           tip(tr("Random seed for weights, shuffling and augmentation."), none, none,
               tr("Different seeds give slightly different results.")));
    addBool(f, QStringLiteral("deterministic"), tr("Deterministic"), &TrainConfig::deterministic,
            tip(tr("Use deterministic kernels so a run can be repeated exactly."), none,
                tr("Can be slower on GPUs."), none));
    addInt(f, QStringLiteral("save_period"), tr("Save every N epochs"), &TrainConfig::save_period,
           -1, 100000,
           tip(tr("Keep a checkpoint every N epochs besides last and best."), none, none, none),
           tr("off"));

    // --- distributed ------------------------------------------------------------------------
    f = addGroup(tr("Distributed"), 0);
    addInt(f, QStringLiteral("nproc"), tr("Processes"), &TrainConfig::nproc, 1, 64,
           tip(tr("Data-parallel processes (one per device)."),
               tr("Each device holds a share of the batch."), tr("Faster with more devices."),
               tr("The same as one device with the same total "
                  "batch.")));
    addInt(f, QStringLiteral("zero"), tr("Shard optimizer state"), &TrainConfig::zero, 0, 1,
           tip(tr("1 = split the optimizer state across processes (ZeRO stage 1)."),
               tr("Optimizer state per device divided by the number of processes."),
               tr("A little communication overhead."), none));
    addBool(f, QStringLiteral("sync_bn"), tr("Synchronised BatchNorm"), &TrainConfig::sync_bn,
            tip(tr("Compute BatchNorm statistics over all processes."), none,
                tr("Slower: each batch all-reduces twice per BatchNorm layer (its statistics in "
                   "forward, its gradient sums in backward; once more in backward for layers "
                   "that checkpointing recomputes) and twice more to close forward and "
                   "backward, every message the size of the widest layer: 116 per batch for "
                   "yolov8n's 57 BatchNorm layers."),
                tr("Better with small per-device batches.")));
}

TrainConfig SettingsForm::config() const {
    TrainConfig c = m_base;
    for (const Field& field : m_fields)
        field.store(c);
    return c;
}

void SettingsForm::setConfig(const TrainConfig& config) {
    m_loading = true;
    m_base = config;
    for (const Field& field : m_fields)
        field.load(config);
    m_loading = false;
    updateValidation();
}

QStringList SettingsForm::keys() const {
    QStringList result;
    for (const Field& field : m_fields)
        result << field.key;
    return result;
}

QWidget* SettingsForm::editor(const QString& key) const {
    for (const Field& field : m_fields)
        if (field.key == key)
            return field.widget;
    return nullptr;
}

QString SettingsForm::fieldMessage(const QString& key) const {
    for (const Field& field : m_fields)
        if (field.key == key)
            return field.message->isVisibleTo(field.message->parentWidget()) ? field.message->text()
                                                                             : QString();
    return {};
}

void SettingsForm::updateValidation() {
    // Per key: what core's parser says about typed text, else what its checks say about the
    // value (the same words `headroom-cli train key=value` prints).
    QMap<QString, QString> errors, warnings;
    for (const Field& field : m_fields)
        if (field.parseError)
            if (const QString error = field.parseError(); !error.isEmpty())
                errors.insert(field.key, error);
    QStringList general;
    for (const Diagnostic& d : hr::validate(config())) {
        if (d.severity == Diagnostic::Severity::Note)
            continue;
        const QString key = QString::fromStdString(d.key);
        const QString text = DiagnosticWording::message(d);
        const bool error = d.severity == Diagnostic::Severity::Error;
        if (!editor(key))
            general << (key.isEmpty() ? text : key + QStringLiteral(": ") + text);
        else if (error && !errors.contains(key))
            errors.insert(key, text);
        else if (!error && !errors.contains(key))
            warnings.insert(key, text);
    }
    const QColor red = isDarkPalette(palette()) ? QColor(0xff8a80) : QColor(0xc0392b);
    QStringList invalid;
    for (const Field& field : m_fields) {
        const bool error = errors.contains(field.key);
        const QString text = error ? errors.value(field.key) : warnings.value(field.key);
        field.message->setText(text);
        QPalette pal = palette();
        if (error)
            pal.setColor(QPalette::WindowText, red);
        field.message->setPalette(pal);
        field.labelWidget->setPalette(pal);
        if (auto* form = qobject_cast<QFormLayout*>(field.message->parentWidget()->layout()))
            form->setRowVisible(field.message, !text.isEmpty());
        if (error)
            invalid << QString(field.label).remove(QLatin1Char('&'));
    }
    // Keyless problems only: a field's own stands under it, and the page's top line names the
    // fields (a line appearing here would move every field under the mouse).
    m_validation->setVisible(!general.isEmpty());
    QPalette pal = palette();
    pal.setColor(QPalette::WindowText, red);
    m_validation->setPalette(pal);
    m_validation->setText(general.join(QLatin1Char('\n')));
    const bool changed = invalid != m_invalid;
    const bool wasValid = m_invalid.isEmpty();
    m_invalid = invalid;
    if (changed)
        emit invalidFieldsChanged(m_invalid);
    if (changed && wasValid != m_invalid.isEmpty())
        emit validityChanged(m_invalid.isEmpty());
}

} // namespace hr::ui
