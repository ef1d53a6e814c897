// SPDX-License-Identifier: GPL-3.0-or-later
// Headers that nearly every LibTorch translation unit pulls in; precompiled once.
#pragma once
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
