// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/autosplit.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>

namespace hr {

namespace {

// CPython's random.seed(n) for a small whole n: init_by_array({n}) of the reference Mersenne
// Twister (genrand 2002/1/26). std::mt19937 has the same generator but other seeding, so the
// state is computed here and loaded through the engine's stream format.
std::mt19937 pythonSeeded(std::uint32_t seed) {
    constexpr int n = 624;
    std::uint32_t mt[n];
    mt[0] = 19650218u;
    for (int i = 1; i < n; ++i)
        mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
    const std::uint32_t key[1] = {seed};
    const int keyLength = 1;
    int i = 1, j = 0;
    for (int k = std::max(n, keyLength); k > 0; --k) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] +
                static_cast<std::uint32_t>(j);
        ++i, ++j;
        if (i >= n) {
            mt[0] = mt[n - 1];
            i = 1;
        }
        if (j >= keyLength)
            j = 0;
    }
    for (int k = n - 1; k > 0; --k) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) -
                static_cast<std::uint32_t>(i);
        ++i;
        if (i >= n) {
            mt[0] = mt[n - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
    std::stringstream state;
    for (std::uint32_t word : mt)
        state << word << ' ';
    std::mt19937 engine;
    state >> engine; // the next draw twists first, as CPython's does after seeding
    return engine;
}

// CPython's random(): 53 bits from two draws.
double pythonRandom(std::mt19937& engine) {
    const std::uint32_t a = engine() >> 5, b = engine() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

} // namespace

std::vector<int> autosplitAssignment(size_t count, const std::array<double, 3>& weights) {
    const std::array<double, 3> cumulative = {weights[0], weights[0] + weights[1],
                                              weights[0] + weights[1] + weights[2]};
    const double total = cumulative[2];
    std::mt19937 engine = pythonSeeded(0);
    std::vector<int> out(count);
    for (size_t i = 0; i < count; ++i) {
        const double x = pythonRandom(engine) * total;
        // bisect_right over cumulative[0..1], as random.choices does (hi = n - 1)
        out[i] = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.begin() + 2, x) -
                                  cumulative.begin());
    }
    return out;
}

std::array<double, 3> trainValWeights(double valFraction) {
    const double val = std::clamp(valFraction, 0.0, 1.0);
    return {1.0 - val, val, 0.0};
}

} // namespace hr
