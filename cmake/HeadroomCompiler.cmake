# SPDX-License-Identifier: GPL-3.0-or-later
# Compiler settings shared by every Headroom target: warnings, ccache, the LibTorch PCH.

find_program(HEADROOM_CCACHE ccache)
if(HEADROOM_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    # ccache only hits through a precompiled header with this sloppiness (see its manual).
    set(CMAKE_CXX_COMPILER_LAUNCHER
        env "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
            "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}"
        "${HEADROOM_CCACHE}")
endif()

# Apply Headroom's warning set (and -Werror when HEADROOM_WERROR is on) to a target.
function(headroom_warnings target)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
        if(HEADROOM_WERROR)
            target_compile_options(${target} PRIVATE -Werror)
        endif()
    endif()
endfunction()

# Give a target the shared precompiled LibTorch header (built once by headroom_torch_pch).
function(headroom_use_torch_pch target)
    if(HEADROOM_USE_PCH AND TARGET headroom_torch_pch)
        target_precompile_headers(${target} REUSE_FROM headroom_torch_pch)
        # The PCH is built -fPIC (static library); executables get -fPIE, and gcc refuses a PCH
        # made with other code-generation flags (-Winvalid-pch). -fPIC objects link into a PIE.
        get_target_property(type ${target} TYPE)
        if(type STREQUAL "EXECUTABLE" AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
            target_compile_options(${target} PRIVATE -fPIC)
        endif()
    endif()
endfunction()

# Mark files of vectorised kernel loops (plain C++, no LibTorch): -O3 (GCC's -O2 vectorises only
# loops with no remainder) and -fno-trapping-math (else GCC 12 keeps the clamps and selects as
# branches), plus `EXTRA` options; they skip the precompiled header. Not -fassociative-math: it
# folds away the rounding step of the kernels' exponential (kernel_support.h).
function(headroom_kernel_sources)
    cmake_parse_arguments(K "" "" "EXTRA" ${ARGN})
    set_source_files_properties(${K_UNPARSED_ARGUMENTS} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                                PROPERTIES COMPILE_OPTIONS "-O3;-fno-trapping-math;${K_EXTRA}"
                                SKIP_PRECOMPILE_HEADERS ON)
endfunction()
