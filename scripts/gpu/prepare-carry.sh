#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds .gpu/prefix: the C++ libraries the GPU machine lacks (yaml-cpp, OpenCV core/imgproc/
# imgcodecs and their shared-library dependencies, Gloo's headers), from Debian 12 packages, for
# tests/cuda/run-on-gpu.sh to carry (`carry: [".gpu"]`). That machine has the torch package's
# LibTorch, nvcc, CMake and ninja, but no Qt, yaml-cpp or OpenCV C++ libraries (docs/gpu.md).
#
# - yaml-cpp: Debian's static libyaml-cpp.a (position-independent) and headers: no run-time file.
# - OpenCV: Debian's 4.6 shared libraries and the closure of what they link, minus the C library
#   and libstdc++ (the target has newer ones). libopencv_imgcodecs links GDAL and GDCM, whose
#   closures are ~200 MB; Headroom reads JPEG/PNG/BMP/TIFF/WebP only, so both are replaced by
#   tiny libraries of the same sonames whose functions return 0. OpenCV calls GDALAllRegister()
#   once when it sets up its decoders (a no-op here); the rest runs only for GDAL/DICOM files.
# - CMake finds both through config files written here (Debian's refer to every OpenCV module).
# - Gloo headers: used only when the torch package ships none (ProcessGroupGloo.hpp needs them).
#
# Needs apt-get (Debian mirrors) and a C compiler. Idempotent: rerun to rebuild from scratch.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.gpu/' .gitignore || { echo "error: .gitignore must list /.gpu/" >&2; exit 1; }

out=.gpu/prefix
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Run-time libraries: the OpenCV modules and everything they load (objdump NEEDED closure on
# Debian 12, with the reference BLAS/LAPACK instead of OpenBLAS: 36 MB saved).
runtime=(libopencv-core406 libopencv-imgproc406 libopencv-imgcodecs406
    libtbb12 libjpeg62-turbo libwebp7 libpng16-16 libtiff6 libopenjp2-7 libopenexr-3-1-30
    libimath-3-1-29 liblapack3 libblas3 libgfortran5 libquadmath0 libglx0 libglvnd0 libx11-6
    libxcb1 libxau6 libxdmcp6 libbsd0 libmd0 libdeflate0 libjbig0 liblerc4 liblzma5 libzstd1
    zlib1g)
headers=(libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev libyaml-cpp-dev
    libgloo-dev)

echo "downloading ${#runtime[@]} + ${#headers[@]} Debian packages"
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "${runtime[@]}" "${headers[@]}" >/dev/null) || {
    echo "error: apt-get download failed (run 'apt-get update' once first)" >&2
    exit 1
}
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done

rm -rf "$out"
mkdir -p "$out/lib" "$out/include" "$out/lib/cmake/OpenCV" "$out/lib/cmake/yaml-cpp"
arch=usr/lib/x86_64-linux-gnu
src="$work/root/$arch"

# Shared libraries, with their soname links; the netlib BLAS/LAPACK live in subfolders.
cp -a "$src"/lib*.so.* "$out/lib/"
cp -a "$src"/lapack/liblapack.so.3* "$src"/blas/libblas.so.3* "$out/lib/"
cp -a "$work"/root/lib/x86_64-linux-gnu/lib*.so.* "$out/lib/" 2>/dev/null || true
for m in core imgproc imgcodecs; do ln -sf "libopencv_$m.so.406" "$out/lib/libopencv_$m.so"; done

# GDAL / GDCM replacements: one function per symbol libopencv_imgcodecs takes from each.
stub() { # soname, symbol pattern
    local c="$work/$1.c"
    objdump -T "$src/libopencv_imgcodecs.so.406" | awk '/\*UND\*/ {print $NF}' | grep -E "$2" |
        awk '{printf "long s%d(void) __asm__(\"%s\");\nlong s%d(void) { return 0; }\n", NR, $1, NR}' \
            >"$c"
    cc -shared -fPIC -O2 -Wl,-soname,"$1" -o "$out/lib/$1" "$c"
}
stub libgdal.so.32 '^(GDAL|_ZN11GDAL|_ZN14GDAL|_ZNK14GDAL)'
stub libgdcmMSFF.so.3.0 '^_ZN?K?4gdcm(11ImageReader|11PixelFormat|6Bitmap)'
stub libgdcmDSED.so.3.0 '^_ZN4gdcm6Reader'

# Headers: OpenCV's three modules (and the core's config), yaml-cpp, Gloo.
inc="$work/root/usr/include"
mkdir -p "$out/include/opencv4/opencv2"
cp -a "$inc"/opencv4/opencv2/{core,imgproc,imgcodecs} "$out/include/opencv4/opencv2/"
cp -a "$inc"/opencv4/opencv2/{core,imgproc,imgcodecs}.hpp "$out/include/opencv4/opencv2/"
cp -a "$inc"/opencv4/opencv2/opencv_modules.hpp "$out/include/opencv4/opencv2/"
cp -a "$inc"/x86_64-linux-gnu/opencv4/opencv2/cvconfig.h "$out/include/opencv4/opencv2/"
cp -a "$inc"/yaml-cpp "$out/include/"
# Apart from the others: only added to the include path when the torch package has none.
mkdir -p "$out/gloo-include"
cp -a "$inc"/gloo "$out/gloo-include/"
cp -a "$src"/libyaml-cpp.a "$out/lib/"

cat >"$out/lib/cmake/OpenCV/OpenCVConfig.cmake" <<'EOF'
# Written by scripts/gpu/prepare-carry.sh: Debian's OpenCV 4.6 core, imgproc and imgcodecs.
get_filename_component(_hr_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(OpenCV_VERSION 4.6.0)
set(OpenCV_INCLUDE_DIRS "${_hr_prefix}/include/opencv4")
set(OpenCV_LIBS opencv_core opencv_imgproc opencv_imgcodecs)
foreach(_hr_m core imgproc imgcodecs)
    if(NOT TARGET opencv_${_hr_m})
        add_library(opencv_${_hr_m} SHARED IMPORTED)
        set_target_properties(opencv_${_hr_m} PROPERTIES
            IMPORTED_LOCATION "${_hr_prefix}/lib/libopencv_${_hr_m}.so.406"
            INTERFACE_INCLUDE_DIRECTORIES "${_hr_prefix}/include/opencv4")
    endif()
endforeach()
set(OpenCV_FOUND TRUE)
EOF
cat >"$out/lib/cmake/yaml-cpp/yaml-cpp-config.cmake" <<'EOF'
# Written by scripts/gpu/prepare-carry.sh: Debian's static yaml-cpp 0.7.
get_filename_component(_hr_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET yaml-cpp)
    add_library(yaml-cpp STATIC IMPORTED)
    set_target_properties(yaml-cpp PROPERTIES
        IMPORTED_LOCATION "${_hr_prefix}/lib/libyaml-cpp.a"
        INTERFACE_INCLUDE_DIRECTORIES "${_hr_prefix}/include")
endif()
set(YAML_CPP_INCLUDE_DIR "${_hr_prefix}/include")
set(YAML_CPP_LIBRARIES yaml-cpp)
set(yaml-cpp_FOUND TRUE)
EOF

# Keep the NEEDED closure of the three OpenCV modules, nothing else; each entry must be carried
# or be a base library of the target.
declare -A keep=()
queue=(libopencv_core.so.406 libopencv_imgproc.so.406 libopencv_imgcodecs.so.406)
missing=0
while [ ${#queue[@]} -gt 0 ]; do
    n=${queue[0]}
    queue=("${queue[@]:1}")
    case "$n" in libc.so.6 | libm.so.6 | libstdc++.so.6 | libgcc_s.so.1 | libpthread.so.0 | \
        libdl.so.2 | librt.so.1 | ld-linux-x86-64.so.2) continue ;; esac
    [ -n "${keep[$n]:-}" ] && continue
    [ -e "$out/lib/$n" ] || { echo "missing: $n"; missing=1; continue; }
    keep[$n]=$(readlink -f "$out/lib/$n")
    queue+=($(objdump -p "$out/lib/$n" | awk '/NEEDED/ {print $2}'))
done
[ "$missing" = 0 ] || { echo "error: the carried libraries are incomplete" >&2; exit 1; }
for f in "$out"/lib/*.so*; do
    name=$(basename "$f")
    case "$name" in libopencv_core.so | libopencv_imgproc.so | libopencv_imgcodecs.so) continue ;; esac
    wanted=0
    for k in "${!keep[@]}"; do
        [ "$name" = "$k" ] || [ "$(readlink -f "$f")" = "${keep[$k]}" ] && wanted=1
    done
    [ "$wanted" = 1 ] || rm -f "$f"
done
echo "wrote $out: $(du -sh --apparent-size .gpu | cut -f1) (the device carries at most 64 MiB" \
    "with the working tree)"
