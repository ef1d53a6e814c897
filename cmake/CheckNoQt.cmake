# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCORE_DIR=<dir> -P CheckNoQt.cmake: error out if a file under CORE_DIR includes Qt.
file(GLOB_RECURSE sources "${CORE_DIR}/*.h" "${CORE_DIR}/*.hpp" "${CORE_DIR}/*.cpp")
set(offenders "")
foreach(f IN LISTS sources)
    file(STRINGS "${f}" hits REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](Q[A-Za-z]+|Qt[A-Za-z]*/)")
    if(hits)
        list(APPEND offenders "${f}: ${hits}")
    endif()
endforeach()
if(offenders)
    list(JOIN offenders "\n  " text)
    message(FATAL_ERROR "core/ must not include Qt headers (keep Qt in ui/):\n  ${text}")
endif()
