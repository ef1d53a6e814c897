// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the data loader (data_loader.cpp); a header of its own so that a test can check
// which images it keeps.
#pragma once

#include <opencv2/core.hpp>

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

namespace hr {

/// Images kept for mosaic: Ultralytics' buffer (eight batches, at most 1000 and the epoch), or
/// the whole epoch when it fits in 256 MiB of slots of `slotBytes`. A data set of a few hundred
/// photos, the usual fine-tuning set, then decodes each image once instead of 2.4 times per
/// use; at COCO's size the buffer rule decides (docs/decisions.md, "8-bit batches").
inline int mosaicBufferFor(std::int64_t images, int batch, std::int64_t slotBytes) {
    constexpr std::int64_t kAllowance = std::int64_t(256) << 20;
    const std::int64_t buffer = std::min<std::int64_t>({images, std::int64_t(batch) * 8, 1000});
    const std::int64_t whole =
        images * std::max<std::int64_t>(1, slotBytes) <= kAllowance ? images : 0;
    return static_cast<int>(std::max<std::int64_t>({1, buffer, whole}));
}

/// The images used last, copied into one block allocated once, least recently used out first.
/// Kept images scattered through the heap between the loader's large short-lived buffers left
/// holes that grew the resident memory by 600 MiB over ten epochs (docs/decisions.md, "The
/// loader in the step's gaps"). Not thread-safe: the loader calls it under its cache mutex.
class RecentImages {
public:
    /// Bytes of one slot: an 8-bit BGR image of at most `side` x `side` pixels.
    static std::int64_t slotBytesFor(int side) { return std::int64_t(side) * side * 3; }
    /// Room for `slots` 8-bit BGR images of at most `side` x `side` pixels.
    void reserve(size_t slots, int side) {
        if (slots == m_imageOf.size() && side == m_side)
            return;
        clear();
        m_side = side;
        m_slotBytes = static_cast<size_t>(slotBytesFor(side));
        m_block.reset(); // the old block first: never both at once
        m_block.reset(new std::uint8_t[slots * m_slotBytes]);
        m_imageOf.assign(slots, -1);
        m_sizeOf.assign(slots, cv::Size());
    }
    void clear() {
        std::fill(m_imageOf.begin(), m_imageOf.end(), -1);
        m_order.clear();
        m_where.clear();
    }
    /// A copy of image `index` when kept; `use` makes it the most recently used. Only an image
    /// at its own position is a use: so the order is the positions', and the last images used
    /// are those of the last positions (a mosaic's other images do not reorder them).
    bool find(int index, cv::Mat& out, bool use) {
        const auto it = m_where.find(index);
        if (it == m_where.end())
            return false;
        if (use)
            m_order.splice(m_order.end(), m_order, it->second);
        slot(*it->second).copyTo(out);
        return true;
    }
    /// Keeps a copy of `image` unless it is larger than a slot or not 8-bit BGR.
    void keep(int index, const cv::Mat& image) {
        if (m_imageOf.empty() || image.type() != CV_8UC3 || image.cols > m_side ||
            image.rows > m_side || m_where.count(index) > 0)
            return;
        size_t at = 0;
        if (m_order.size() < m_imageOf.size()) {
            at = m_order.size();
        } else {
            at = m_order.front();
            m_where.erase(m_imageOf[at]);
            m_order.pop_front();
        }
        m_imageOf[at] = index;
        m_sizeOf[at] = image.size();
        image.copyTo(slot(at));
        m_where[index] = m_order.insert(m_order.end(), at);
    }

private:
    cv::Mat slot(size_t at) {
        return cv::Mat(m_sizeOf[at], CV_8UC3, m_block.get() + at * m_slotBytes);
    }

    int m_side = 0;
    size_t m_slotBytes = 0;
    std::unique_ptr<std::uint8_t[]> m_block;
    std::vector<int> m_imageOf; ///< per slot, -1 when free
    std::vector<cv::Size> m_sizeOf;
    std::list<size_t> m_order; ///< slots in use, least recently used first
    std::unordered_map<int, std::list<size_t>::iterator> m_where;
};

} // namespace hr
