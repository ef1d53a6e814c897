// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosticwording.h"

#include <QHash>

namespace hr::ui {

namespace {

QString arg(const Diagnostic& d, std::size_t i) {
    return i < d.args.size() ? QString::fromStdString(d.args[i]) : QString();
}

/// A value as core's parser describes it: quoted text, or the kind of a value that is not text.
QString got(const Diagnostic& d, std::size_t i) {
    const QString text = arg(d, i);
    if (text == QLatin1String("nothing"))
        return DiagnosticWording::tr("nothing");
    if (text == QLatin1String("a list"))
        return DiagnosticWording::tr("a list");
    if (text == QLatin1String("a map"))
        return DiagnosticWording::tr("a map");
    return text;
}

QString nearest(const Diagnostic& d, std::size_t i) {
    const QString near = arg(d, i);
    return near.isEmpty() ? QString() : DiagnosticWording::tr("; did you mean '%1'?").arg(near);
}

/// What yaml-cpp found wrong (core's syntaxError code, and its value), or "" for a message
/// core does not know.
QString syntaxWhat(const QString& code, const QString& value) {
    static const QHash<QString, const char*> kWhat = {
        {"yaml_directive_args",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the YAML directive needs exactly one argument")},
        {"yaml_major_version",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the YAML version is too new")},
        {"repeated_yaml_directive",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the YAML directive appears twice")},
        {"tag_directive_args",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a TAG directive needs exactly two arguments")},
        {"repeated_tag_directive",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the same TAG directive appears twice")},
        {"char_in_tag_handle",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a tag handle holds a character not allowed")},
        {"tag_with_no_suffix", QT_TRANSLATE_NOOP("DiagnosticWording", "a tag has no suffix")},
        {"end_of_verbatim_tag",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a verbatim tag '!<...>' is not closed")},
        {"end_of_map", QT_TRANSLATE_NOOP("DiagnosticWording",
                                         "a map ends in the wrong place (check the indentation)")},
        {"end_of_map_flow",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a map opened with '{' is not closed with '}'")},
        {"end_of_seq", QT_TRANSLATE_NOOP("DiagnosticWording",
                                         "a list ends in the wrong place (check the indentation)")},
        {"end_of_seq_flow",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a list opened with '[' is not closed with ']'")},
        {"multiple_tags", QT_TRANSLATE_NOOP("DiagnosticWording", "one value has two tags")},
        {"multiple_anchors", QT_TRANSLATE_NOOP("DiagnosticWording", "one value has two anchors")},
        {"multiple_aliases", QT_TRANSLATE_NOOP("DiagnosticWording", "one value has two aliases")},
        {"alias_content",
         QT_TRANSLATE_NOOP("DiagnosticWording", "an alias '*name' cannot have content or a tag")},
        {"invalid_hex", QT_TRANSLATE_NOOP("DiagnosticWording",
                                          "an escape like '\\x41' holds a character that is not "
                                          "a hexadecimal digit")},
        {"unknown_token",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a character YAML does not expect here")},
        {"doc_in_scalar", QT_TRANSLATE_NOOP("DiagnosticWording",
                                            "a document marker ('---' or '...') inside a value")},
        {"eof_in_scalar",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the file ends inside a quoted value (a closing "
                                                "quote is missing)")},
        {"char_in_scalar",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a value holds a character not allowed there")},
        {"tab_in_indentation",
         QT_TRANSLATE_NOOP("DiagnosticWording",
                           "a tab in the indentation (YAML indents with spaces only)")},
        {"flow_end",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a ']' or '}' without its opening bracket")},
        {"block_entry",
         QT_TRANSLATE_NOOP("DiagnosticWording", "a list item '- ' where none may stand (check the "
                                                "indentation)")},
        {"map_key", QT_TRANSLATE_NOOP("DiagnosticWording",
                                      "a key where none may stand (check the indentation)")},
        {"map_value", QT_TRANSLATE_NOOP("DiagnosticWording",
                                        "a ':' where no value may stand (a second colon on the "
                                        "line, or the indentation?)")},
        {"alias_not_found",
         QT_TRANSLATE_NOOP("DiagnosticWording", "'*' is not followed by an alias name")},
        {"anchor_not_found",
         QT_TRANSLATE_NOOP("DiagnosticWording", "'&' is not followed by an anchor name")},
        {"char_in_alias",
         QT_TRANSLATE_NOOP("DiagnosticWording", "an alias name holds a character not allowed")},
        {"char_in_anchor",
         QT_TRANSLATE_NOOP("DiagnosticWording", "an anchor name holds a character not allowed")},
        {"zero_indent_in_block",
         QT_TRANSLATE_NOOP("DiagnosticWording",
                           "a block value ('|' or '>') cannot have an indentation of 0")},
        {"char_in_block",
         QT_TRANSLATE_NOOP("DiagnosticWording", "an unexpected character in a block value ('|' or "
                                                "'>')")},
        {"ambiguous_anchor",
         QT_TRANSLATE_NOOP("DiagnosticWording", "the same alias is given to several values")},
        {"unknown_anchor",
         QT_TRANSLATE_NOOP("DiagnosticWording", "an alias refers to an anchor not defined")},
        {"yaml_version", QT_TRANSLATE_NOOP("DiagnosticWording", "the YAML version '%1' is not "
                                                                "understood")},
        {"invalid_unicode",
         QT_TRANSLATE_NOOP("DiagnosticWording", "'%1' is not a valid unicode character")},
        {"invalid_escape",
         QT_TRANSLATE_NOOP("DiagnosticWording", "unknown escape '\\%1' in a double-quoted value")},
    };
    const auto it = kWhat.constFind(code);
    if (it == kWhat.constEnd())
        return {};
    const QString text = DiagnosticWording::tr(it.value());
    return text.contains(QLatin1String("%1")) ? text.arg(value) : text;
}

/// A YAML syntax error (code "malformed_yaml"): where, and what yaml-cpp found when core knows
/// its message. An unknown message is left out: it is English (the CLI prints it).
QString yamlSyntax(const Diagnostic& d) {
    const int column = arg(d, 1).toInt();
    const QString where = d.line <= 0 ? DiagnosticWording::tr("YAML syntax error")
                          : column <= 0
                              ? DiagnosticWording::tr("YAML syntax error at line %1").arg(d.line)
                              : DiagnosticWording::tr("YAML syntax error at line %1, column %2")
                                    .arg(d.line)
                                    .arg(column);
    const QString what = syntaxWhat(arg(d, 0), arg(d, 2));
    return what.isEmpty() ? where : DiagnosticWording::tr("%1: %2").arg(where, what);
}

/// A data set problem's wording (scan or data.yaml): what is wrong and the fix; empty `what` when
/// the code is unknown.
struct Worded {
    QString what, fix;
};

/// The checks a run's start makes besides the data set's lines: the scan's file limit and the
/// settings against this machine (core/config/machine_limits.cpp).
Worded wordStartCheck(const Diagnostic& d) {
    const std::string& code = d.code;
    if (code == "scan_too_large")
        return {DiagnosticWording::tr("'%1' holds more than %2 files, so the scan stopped there")
                    .arg(arg(d, 0), arg(d, 1)),
                DiagnosticWording::tr("point 'path' at the data set's own folder, or confirm "
                                      "the scan when Start asks")};
    if (code == "nproc_cores")
        return {
            DiagnosticWording::tr("%1 processes each train a copy of the model, but this "
                                  "machine has %2 CPU cores")
                .arg(arg(d, 0), arg(d, 1)),
            DiagnosticWording::tr("set Processes to %1 or less (one per device)").arg(arg(d, 1))};
    if (code == "memory_classes")
        return {DiagnosticWording::tr("the run needs at least %1 of memory, most of it for the "
                                      "scores of %4 classes, but this machine has %2 available "
                                      "of %3")
                    .arg(arg(d, 0), arg(d, 1), arg(d, 2), arg(d, 3)),
                DiagnosticWording::tr("lower the number of classes, the batch or the image size")};
    if (code == "memory_machine")
        return {DiagnosticWording::tr("the run needs at least %1 of memory, but this machine has "
                                      "%2 available of %3")
                    .arg(arg(d, 0), arg(d, 1), arg(d, 2)),
                DiagnosticWording::tr(
                    "lower the batch or the image size (the memory panel shows the peak)")};
    return {};
}

Worded wordDataProblem(const Diagnostic& d) {
    const std::string& code = d.code;
    if (code == "label_columns")
        return {DiagnosticWording::tr(
                    "expected 5 columns 'class cx cy w h', found %1: dropped the line")
                    .arg(arg(d, 0)),
                DiagnosticWording::tr(
                    "write one object per line as 'class cx cy w h' with coordinates in 0..1")};
    if (code == "label_not_number")
        return {DiagnosticWording::tr("column %1 '%2' is not a number: dropped the line")
                    .arg(arg(d, 0), arg(d, 1)),
                {}};
    if (code == "label_class") {
        const QString range =
            arg(d, 1) == QLatin1String("none") ? DiagnosticWording::tr("none") : arg(d, 1);
        return {DiagnosticWording::tr(
                    "class id %1 is not one of the classes in names (%2): dropped the line")
                    .arg(arg(d, 0), range),
                DiagnosticWording::tr("fix the class id or add the class to 'names' in data.yaml")};
    }
    if (code == "box_size")
        return {
            DiagnosticWording::tr("box has zero or negative size (w %1, h %2): dropped the line")
                .arg(arg(d, 0), arg(d, 1)),
            {}};
    if (code == "box_outside")
        return {DiagnosticWording::tr("box lies outside the image: dropped the line"), {}};
    if (code == "box_zero_area")
        return {DiagnosticWording::tr("box has zero area: dropped the line"), {}};
    if (code == "box_clipped")
        return {DiagnosticWording::tr("coordinates outside [0, 1]: clipped the box to the image"),
                DiagnosticWording::tr(
                    "YOLO labels are normalised: divide pixel coordinates by the image size")};
    if (code == "box_duplicate")
        return {DiagnosticWording::tr("duplicate of an earlier row: dropped the line"), {}};
    if (code == "label_polygons")
        return {DiagnosticWording::tr(
                    "%1 polygon rows (segmentation labels): used the bounding box of each")
                    .arg(arg(d, 0)),
                {}};
    if (code == "image_unreadable") {
        const QString reason = arg(d, 0);
        const QString why =
            reason == QLatin1String("cannot_open") ? DiagnosticWording::tr("cannot open the file")
            : reason == QLatin1String("empty")
                ? DiagnosticWording::tr("the file is empty (0 bytes)")
            : reason == QLatin1String("cannot_read")
                ? DiagnosticWording::tr("cannot read the file")
                : DiagnosticWording::tr("not a decodable image (corrupt, truncated or an "
                                        "unsupported format)");
        return {DiagnosticWording::tr("%1: skipped the image").arg(why),
                DiagnosticWording::tr("replace or delete the file")};
    }
    if (code == "jpeg_truncated")
        return {DiagnosticWording::tr(
                    "JPEG end marker missing (truncated file?): used the decodable part"),
                {}};
    if (code == "label_binary")
        return {DiagnosticWording::tr("the label file holds binary data, not text (from line "
                                      "%1): used the image as a background image")
                    .arg(arg(d, 0)),
                DiagnosticWording::tr(
                    "replace it with a text file of 'class cx cy w h' lines, or delete it")};
    if (code == "label_unreadable")
        return {DiagnosticWording::tr(
                    "cannot read the label file: used the image as a background image"),
                {}};
    if (code == "folder_no_images")
        return {DiagnosticWording::tr("the folder holds no images (%1)").arg(arg(d, 0)), {}};
    if (code == "listed_image_missing")
        return {
            DiagnosticWording::tr("listed image '%1' does not exist: skipped it").arg(arg(d, 0)),
            {}};
    if (code == "source_missing")
        return {DiagnosticWording::tr("'%1' does not exist").arg(arg(d, 0)),
                DiagnosticWording::tr("correct 'path' and the split entries in data.yaml")};
    if (code == "orphan_label")
        return {DiagnosticWording::tr("label file without an image: ignored it"),
                DiagnosticWording::tr("add the image or delete the label file")};
    if (code == "split_missing") {
        const QString split = arg(d, 0);
        return {DiagnosticWording::tr("the data set has no '%1' split").arg(split),
                split == QLatin1String("test")
                    ? QString()
                    : DiagnosticWording::tr("add '%1: images/%1' to data.yaml").arg(split)};
    }
    if (code == "scan_cancelled")
        return {DiagnosticWording::tr("the scan was cancelled"), {}};
    if (code == "no_usable_images")
        return {DiagnosticWording::tr("no usable image in the '%1' split").arg(arg(d, 0)),
                DiagnosticWording::tr("check the paths in data.yaml and the problems above")};
    // data.yaml (core/config/data_config.cpp, yaml_read.cpp).
    if (code == "malformed_yaml")
        return {yamlSyntax(d),
                DiagnosticWording::tr("check the indentation, colons and quotes near this line")};
    if (code == "data_unreadable")
        return {DiagnosticWording::tr("cannot read the data set description"),
                DiagnosticWording::tr("check the path to data.yaml")};
    if (code == "data_not_map")
        return {DiagnosticWording::tr("a data.yaml must be a map with train, val and names, got %1")
                    .arg(got(d, 0)),
                DiagnosticWording::tr("write 'path:', 'train:', 'val:' and 'names:' lines")};
    if (code == "data_key_not_word")
        return {DiagnosticWording::tr("a key must be a word, got %1").arg(got(d, 0)), {}};
    if (code == "data_key_ignored")
        return {DiagnosticWording::tr("Headroom does not use this key"), {}};
    if (code == "data_key_unknown")
        return {DiagnosticWording::tr("unknown key"),
                arg(d, 0).isEmpty()
                    ? DiagnosticWording::tr("data.yaml keys are path, train, val, test, names, nc")
                    : DiagnosticWording::tr("did you mean '%1'?").arg(arg(d, 0))};
    if (code == "data_val_twice")
        return {DiagnosticWording::tr("both 'val' and 'validation' are given: used 'val'"),
                DiagnosticWording::tr("remove 'validation'")};
    if (code == "data_validation_as_val")
        return {DiagnosticWording::tr("read 'validation' as 'val', as Ultralytics does"),
                DiagnosticWording::tr("rename it to 'val'")};
    if (code == "data_download")
        return {DiagnosticWording::tr(
                    "Headroom never downloads data sets; the files must already be on disk"),
                {}};
    if (code == "data_path_bad")
        return {DiagnosticWording::tr("expected a folder, got %1").arg(got(d, 0)),
                DiagnosticWording::tr("write the data set's root folder, or leave 'path' out")};
    if (code == "data_path_datasets_dir")
        return {DiagnosticWording::tr("'%1' is not beside the YAML; used the datasets folder: %2")
                    .arg(arg(d, 0), arg(d, 1)),
                DiagnosticWording::tr("the datasets folder (%1) comes from HEADROOM_DATASETS_DIR "
                                      "or Ultralytics' settings.json 'datasets_dir'")
                    .arg(arg(d, 2))};
    if (code == "data_path_missing") {
        QString fix =
            DiagnosticWording::tr("a relative path is read against the YAML's folder (%1)")
                .arg(arg(d, 2));
        if (arg(d, 4) == QLatin1String("1"))
            fix += arg(d, 3).isEmpty()
                       ? DiagnosticWording::tr(", then against the datasets folder (none set: "
                                               "set HEADROOM_DATASETS_DIR)")
                       : DiagnosticWording::tr(", then against the datasets folder (%1)")
                             .arg(arg(d, 3));
        return {DiagnosticWording::tr("folder '%1' does not exist (resolved to %2)")
                    .arg(arg(d, 0), arg(d, 1)),
                fix};
    }
    if (code == "data_split_none")
        return {DiagnosticWording::tr("no '%1' images given").arg(arg(d, 0)),
                DiagnosticWording::tr("add '%1: images/%1' (a folder, a .txt list or a list of "
                                      "folders)")
                    .arg(arg(d, 0))};
    if (code == "data_split_bad")
        return {
            DiagnosticWording::tr(
                "expected a folder, a .txt list of images or a list of those, got %1")
                .arg(got(d, 0)),
            DiagnosticWording::tr("write e.g. '%1: images/%1'").arg(QString::fromStdString(d.key))};
    if (code == "data_split_item_bad")
        return {DiagnosticWording::tr("expected a path, got %1").arg(got(d, 0)),
                DiagnosticWording::tr("write a folder or a .txt file, relative to 'path'")};
    if (code == "data_roboflow_retry")
        return {DiagnosticWording::tr(
                    "'%1' does not exist; used '%2' (%3) as Ultralytics does for Roboflow exports")
                    .arg(arg(d, 0), arg(d, 1), arg(d, 2)),
                {}};
    if (code == "data_split_missing")
        return {
            DiagnosticWording::tr("'%1' does not exist (resolved to %2)").arg(arg(d, 0), arg(d, 1)),
            DiagnosticWording::tr("relative paths are read against 'path' (%1); fix 'path' or '%2'")
                .arg(arg(d, 2), QString::fromStdString(d.key))};
    if (code == "nc_bad")
        return {
            DiagnosticWording::tr("expected a number of classes (1 or more), got %1")
                .arg(got(d, 0)),
            DiagnosticWording::tr("write the number of classes, or leave nc out and list 'names'")};
    if (code == "nc_mismatch")
        return {DiagnosticWording::tr("nc says %1 classes but 'names' lists %2")
                    .arg(arg(d, 0), arg(d, 1)),
                DiagnosticWording::tr("make nc equal to the number of names, or remove nc")};
    if (code == "names_empty")
        return {DiagnosticWording::tr("the list of class names is empty"),
                DiagnosticWording::tr("write one name per class")};
    if (code == "names_from_nc")
        return {DiagnosticWording::tr("no 'names' given; the classes are called class0 .. class%1")
                    .arg(arg(d, 0)),
                DiagnosticWording::tr("add 'names:' to see real class names in results")};
    if (code == "names_missing")
        return {DiagnosticWording::tr("the class names are missing"),
                DiagnosticWording::tr("add 'names: [first, second, ...]' (or 'nc: N')")};
    if (code == "names_item_bad")
        return {DiagnosticWording::tr("expected a class name, got %1").arg(got(d, 0)),
                DiagnosticWording::tr("write one name per class")};
    if (code == "names_not_list")
        return {DiagnosticWording::tr(
                    "expected a list of class names or a map {0: name, 1: name}, got %1")
                    .arg(got(d, 0)),
                DiagnosticWording::tr("write e.g. 'names: [cat, dog]'")};
    if (code == "names_id_bad")
        return {DiagnosticWording::tr("a class id must be a whole number from 0, got %1")
                    .arg(got(d, 0)),
                DiagnosticWording::tr("number the classes 0, 1, 2 ...")};
    if (code == "names_name_bad")
        return {DiagnosticWording::tr("expected the name of class %1, got %2")
                    .arg(arg(d, 0), got(d, 1)),
                DiagnosticWording::tr("write '%1: name'").arg(arg(d, 0))};
    if (code == "names_id_twice")
        return {DiagnosticWording::tr("class id %1 appears twice").arg(arg(d, 0)),
                DiagnosticWording::tr("give every class its own id")};
    if (code == "names_gap")
        return {DiagnosticWording::tr("class ids must run 0..N-1 without gaps; id %1 is missing")
                    .arg(arg(d, 0)),
                DiagnosticWording::tr("renumber the classes or add class %1").arg(arg(d, 0))};
    return wordStartCheck(d);
}

} // namespace

QString DiagnosticWording::problem(const Diagnostic& d) {
    const Worded w = wordDataProblem(d);
    if (!w.what.isEmpty())
        return d.key.empty() ? w.what
                             : QString::fromStdString(d.key) + QStringLiteral(": ") + w.what;
    return QString::fromStdString(d.key.empty() ? d.message : d.key + ": " + d.message);
}

QString DiagnosticWording::fix(const Diagnostic& d) {
    const Worded w = wordDataProblem(d);
    return w.what.isEmpty() ? QString::fromStdString(d.fix) : w.fix;
}

QString DiagnosticWording::located(const Diagnostic& d) {
    QString where = QString::fromStdString(d.file);
    if (d.line > 0)
        where += QLatin1Char(':') + QString::number(d.line);
    if (!d.key.empty())
        where +=
            (where.isEmpty() ? QString() : QStringLiteral(": ")) + QString::fromStdString(d.key);
    return where.isEmpty() ? message(d) : where + QStringLiteral(": ") + message(d);
}

QString DiagnosticWording::message(const Diagnostic& d) {
    const std::string& code = d.code;
    if (code == "malformed_yaml")
        return yamlSyntax(d);
    if (code == "expected_whole")
        return tr("expected a whole number, got %1; write a number like %2")
            .arg(got(d, 0), arg(d, 1));
    if (code == "batch_fraction")
        return tr("expected a whole number of images, got %1 (Ultralytics' fraction of GPU "
                  "memory); use -1 to fit the batch to the memory budget")
            .arg(got(d, 0));
    if (code == "too_large")
        return tr("the number %1 is too large").arg(arg(d, 0));
    if (code == "expected_number")
        return tr("expected a number, got %1; write a number like %2").arg(got(d, 0), arg(d, 1));
    if (code == "expected_bool")
        return tr("expected true or false, got %1").arg(got(d, 0));
    if (code == "expected_text")
        return tr("expected one value, got %1").arg(got(d, 0));
    if (code == "expected_size")
        return tr("expected a size like 3GiB, 512MiB or 1.5GB, got %1; write a size with a unit "
                  "(KiB, MiB, GiB, KB, MB, GB), plain bytes, or none for no budget")
            .arg(got(d, 0));
    if (code == "expected_layers")
        return tr("expected a number of layers or a list of layer indices, got %1; write a "
                  "number N (freezes layers 0 to N-1) or a list like [0, 1, 2]")
            .arg(got(d, 0));
    if (code == "unknown_choice")
        return tr("expected one of %1, got %2").arg(arg(d, 1), got(d, 0)) + nearest(d, 2);
    if (code == "device_list")
        return tr("unknown device %1; for several GPUs choose cuda:0 and set the number of "
                  "processes")
            .arg(got(d, 0));
    if (code == "scale_value")
        return tr("expected an augmentation gain (a number like 0.5) or a model scale letter, "
                  "got %1")
            .arg(got(d, 0));
    if (code == "range")
        return tr("must be between %1 and %2, got %3").arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "range_below")
        return tr("must be from %1 up to but not including %2, got %3")
            .arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "range_above")
        return tr("must be above %1 and at most %2, got %3").arg(arg(d, 0), arg(d, 1), arg(d, 2));
    if (code == "above")
        return tr("must be above %1, got %2").arg(arg(d, 0), arg(d, 1));
    if (code == "at_least")
        return tr("must be at least %1, got %2").arg(arg(d, 0), arg(d, 1));
    if (code == "at_most")
        return tr("must be at most %1, got %2").arg(arg(d, 0), arg(d, 1));
    if (code == "not_negative")
        return tr("cannot be negative, got %1").arg(arg(d, 0));
    if (code == "batch_value")
        return tr("must be a positive number of images or -1 (fit to memory), got %1")
            .arg(arg(d, 0));
    if (code == "multiple_of_32") {
        const QString below = arg(d, 1), above = arg(d, 2);
        return tr("must be a positive multiple of 32 (the largest stride), got %1; use %2")
            .arg(arg(d, 0), below == above ? below : tr("%1 or %2").arg(below, above));
    }
    if (code == "empty")
        return tr("must not be empty");
    if (code == "model_not_found")
        return tr("no model file %1; choose a model from the list, or give the path of a model "
                  "YAML or weights file")
            .arg(arg(d, 0));
    if (code == "budget_too_small")
        return tr("a budget of %1 cannot hold even the smallest model and one image; give at "
                  "least %2, or none for no budget")
            .arg(arg(d, 0), arg(d, 1));
    if (code == "unknown_key")
        return tr("unknown setting %1").arg(arg(d, 0)) + nearest(d, 1);
    if (code == "unreadable_value")
        return tr("cannot read the value %1; quote it or fix its brackets").arg(arg(d, 0));
    if (code == "zero_needs_nproc")
        return tr("sharding the optimizer state needs several processes; with one it has no "
                  "effect");
    // The strategy editor's checks (compare/strategy.h).
    if (code == "strategy_no_name")
        return tr("the strategy has no name; give it one of letters, digits, '-', '_' and '.'");
    if (code == "strategy_bad_name")
        return tr("'%1' cannot be part of a folder name; use letters, digits, '-', '_' and '.'")
            .arg(arg(d, 0));
    if (code == "override_no_key")
        return tr("a setting without a name (= %1); write key=value, e.g. lr0=0.005")
            .arg(arg(d, 0));
    if (code == "override_twice")
        return tr("'%1' is set twice; keep one").arg(arg(d, 0));
    if (code == "claim_map50_fraction")
        return tr("the claimed mAP50 is a fraction between 0 and 1; write 0.68, not 68");
    if (code == "no_strategies")
        return tr("no strategies to run; add one, or reset to the default matrix");
    if (code == "strategy_duplicate")
        return tr("a second strategy named '%1'; give each strategy its own name").arg(arg(d, 0));
    // A data.yaml's problems come here too when a run or an estimate fails on them.
    if (const Worded w = wordDataProblem(d); !w.what.isEmpty())
        return w.fix.isEmpty() ? w.what : tr("%1 (%2)").arg(w.what, w.fix);
    QString text = QString::fromStdString(d.message);
    if (!d.fix.empty())
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(d.fix));
    return text;
}

} // namespace hr::ui
