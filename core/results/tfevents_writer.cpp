// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/tfevents_writer.h"

#include "util/atomic_file.h"
#include "util/protobuf_writer.h"

#include <unistd.h>

#include <array>
#include <cmath>

namespace hr {

namespace {

std::array<std::uint32_t, 256> crcTable() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1; // Castagnoli, reflected
        table[i] = c;
    }
    return table;
}

void appendLittleEndian(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out += static_cast<char>((value >> (8 * i)) & 0xff);
}

// tensorflow.Event fields: wall_time 1 (double), step 2 (int64), file_version 3, summary 5.
// Summary.value 1; Summary.Value: tag 1, simple_value 2 (float).
constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5;
constexpr int kSummaryValue = 1, kTag = 1, kSimpleValue = 2;

} // namespace

std::uint32_t crc32c(const std::string& data) {
    static const auto table = crcTable();
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char byte : data)
        c = table[(c ^ byte) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::uint32_t maskedCrc32c(const std::string& data) {
    const std::uint32_t c = crc32c(data);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::string tfRecord(const std::string& data) {
    std::string length;
    appendLittleEndian(length, data.size(), 8);
    std::string out = length;
    appendLittleEndian(out, maskedCrc32c(length), 4);
    out += data;
    appendLittleEndian(out, maskedCrc32c(data), 4);
    return out;
}

std::string fileVersionEvent(double wallTime) {
    ProtobufWriter event;
    event.float64(kWallTime, wallTime);
    event.bytes(kFileVersion, "brain.Event:2");
    return event.data();
}

std::string scalarsEvent(double wallTime, std::int64_t step,
                         const std::vector<std::pair<std::string, float>>& scalars) {
    ProtobufWriter summary;
    for (const auto& [tag, value] : scalars) {
        ProtobufWriter v;
        v.bytes(kTag, tag);
        v.float32(kSimpleValue, value);
        summary.message(kSummaryValue, v);
    }
    ProtobufWriter event;
    event.float64(kWallTime, wallTime);
    event.signedVarint(kStep, step);
    event.message(kSummary, summary);
    return event.data();
}

std::string tfEventsFileName(double wallTime, const std::string& host) {
    return "events.out.tfevents." + std::to_string(static_cast<long long>(std::floor(wallTime))) +
           "." + host + ".headroom";
}

TfEventsWriter::TfEventsWriter(const std::string& folder, double wallTime) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
        host[0] = 'x';
    m_path = folder + "/" + tfEventsFileName(wallTime, host);
    m_pending = tfRecord(fileVersionEvent(wallTime));
}

void TfEventsWriter::addScalars(double wallTime, std::int64_t step,
                                const std::vector<std::pair<std::string, float>>& scalars) {
    if (!scalars.empty())
        m_pending += tfRecord(scalarsEvent(wallTime, step, scalars));
}

bool TfEventsWriter::flush(std::string* error) {
    if (m_pending.empty())
        return true;
    std::string why;
    // Appended whole records only: a failed append is cut back, so the file never ends in a
    // torn record.
    if (!appendToFile(m_path, m_pending, true, &why)) {
        if (error)
            *error = m_path + ": " + why;
        return false;
    }
    m_pending.clear();
    return true;
}

} // namespace hr
