// SPDX-License-Identifier: GPL-3.0-or-later
// Anchor translation unit for the shared LibTorch precompiled header.
