// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// TensorBoard's event file written without TensorFlow: TFRecord framing (little-endian u64
// length, masked CRC32C of the length, the data, masked CRC32C of the data) around
// tensorflow.Event protobufs encoded with util/protobuf_writer.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hr {

/// CRC-32C (Castagnoli) of `data`, and TFRecord's masked form of a CRC.
std::uint32_t crc32c(const std::string& data);
std::uint32_t maskedCrc32c(const std::string& data);

/// One TFRecord: the framing around `data`.
std::string tfRecord(const std::string& data);

/// Serialised tensorflow.Event messages: the first record of a file ("brain.Event:2"), and
/// one with a Summary of scalar values (simple_value) at `step`.
std::string fileVersionEvent(double wallTime);
std::string scalarsEvent(double wallTime, std::int64_t step,
                         const std::vector<std::pair<std::string, float>>& scalars);

/// "events.out.tfevents.<seconds>.<host>.headroom", the name TensorBoard looks for.
std::string tfEventsFileName(double wallTime, const std::string& host);

/// An event file in one folder. Records are kept in memory until flush(), which appends them
/// (util/atomic_file's checked append); the file is created with its version record at the
/// first flush. Not thread-safe.
class TfEventsWriter {
public:
    /// `folder` must exist; `wallTime` (Unix seconds) names the file.
    TfEventsWriter(const std::string& folder, double wallTime);

    void addScalars(double wallTime, std::int64_t step,
                    const std::vector<std::pair<std::string, float>>& scalars);
    /// Appends what was added since the last flush; false with `error` (the file named).
    bool flush(std::string* error);

    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    std::string m_pending;
};

} // namespace hr
