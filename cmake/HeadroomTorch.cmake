# SPDX-License-Identifier: GPL-3.0-or-later
# Finds LibTorch and says in one sentence what it found, or why it cannot be used: Debian's
# libtorch-dev, the torch package's own (PyTorch's wheel) or a LibTorch archive (Torch_DIR).
# The range below is the one core/util/torch_compat.h covers; this is its only check. Each
# message starts with a space: CMake then prints it as one line, unwrapped.

set(HEADROOM_TORCH_OLDEST 1.13)   # Debian 12
set(HEADROOM_TORCH_NEWEST_READ 2.11) # the newest whose headers torch_compat.h was read against

find_package(Torch QUIET)
if(NOT Torch_FOUND)
    message(FATAL_ERROR
        " Headroom: no LibTorch found. Install it with packaging/install-deps.sh (Debian), or "
        "point CMake at one with -DTorch_DIR=<libtorch>/share/cmake/Torch or "
        "-DCMAKE_PREFIX_PATH=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)').")
endif()

# A LibTorch built with CUDA sets TORCH_CUDA_LIBRARIES or the torch_cuda target (TorchConfig).
set(HEADROOM_TORCH_DEVICE CPU)
if(TORCH_CUDA_LIBRARIES OR TARGET torch_cuda)
    set(HEADROOM_TORCH_DEVICE CUDA)
endif()
set(HEADROOM_TORCH_SUMMARY "LibTorch ${Torch_VERSION} (${HEADROOM_TORCH_DEVICE}) from ${Torch_DIR}")

if(Torch_VERSION VERSION_LESS HEADROOM_TORCH_OLDEST OR Torch_VERSION VERSION_GREATER_EQUAL 3)
    message(FATAL_ERROR
        " Headroom: found ${HEADROOM_TORCH_SUMMARY}, but Headroom builds against LibTorch "
        "${HEADROOM_TORCH_OLDEST} to 2.x; install one of those and pass its folder as Torch_DIR.")
endif()

# A LibTorch built with the old C++ ABI (PyTorch's wheels before 2.7, the archives named
# "pre-cxx11") cannot link with the system's Qt, OpenCV and yaml-cpp: std::string differs.
if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR
        " Headroom: found ${HEADROOM_TORCH_SUMMARY}, built with the old C++ ABI "
        "(_GLIBCXX_USE_CXX11_ABI=0), which cannot link with this system's C++ libraries; use "
        "PyTorch 2.7 or later, or the LibTorch archive marked cxx11 ABI.")
endif()

if(Torch_VERSION VERSION_GREATER HEADROOM_TORCH_NEWEST_READ)
    message(WARNING
        " Headroom: ${HEADROOM_TORCH_SUMMARY} is newer than ${HEADROOM_TORCH_NEWEST_READ}, the "
        "newest that core/util/torch_compat.h was checked against; if it does not compile, "
        "report the first error with this version.")
endif()
message(STATUS "Headroom: ${HEADROOM_TORCH_SUMMARY}")
