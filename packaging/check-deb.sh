#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the release preset, packs the .deb with CPack, installs it and runs the packaged
# `headroom-cli --version`. As root (and when no headroom package is installed already) the
# package is installed for real with `dpkg -i` - which also proves its Depends resolve - and
# removed again afterwards; otherwise it is unpacked into a temporary root with `dpkg -x`.
#
#   packaging/check-deb.sh [--build-dir DIR] [--preset NAME] [--no-build] [--extract]
#                          [-D CMAKE_VAR=VALUE ...]
#
#   --build-dir DIR  build folder (default build/release)
#   --preset NAME    configure preset (default release)
#   --no-build       package what DIR already holds
#   --extract        never dpkg -i; always unpack into a temporary root
#   -D VAR=VALUE     extra cache setting, e.g. -D HEADROOM_BUILD_GUI=OFF
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

build_dir=build/release
preset=release
build=1
extract=0
cmake_args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --extract) extract=1; shift ;;
    -D) cmake_args+=("-D$2"); shift 2 ;;
    -D*) cmake_args+=("$1"); shift ;;
    -h | --help) sed -n '3,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "check-deb.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done

step() { printf '\n== %s\n' "$*"; }

if [ $build -eq 1 ]; then
    step "configure ($preset) in $build_dir"
    cmake --preset "$preset" -B "$build_dir" "${cmake_args[@]}"
    step "build"
    cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)"
fi

step "cpack -G DEB"
rm -f "$build_dir"/packages/headroom_*.deb
(cd "$build_dir" && cpack -G DEB)
deb=$(ls "$build_dir"/packages/headroom_*.deb)
echo "package: $deb"
dpkg-deb --field "$deb" Package Version Architecture Section Maintainer Depends Recommends
dpkg-deb --contents "$deb" | awk '{print $6}'

version=$(dpkg-deb --field "$deb" Version)
root=$(mktemp -d)
installed_here=0
cleanup() {
    rm -rf "$root"
    if [ $installed_here -eq 1 ]; then
        dpkg -r headroom >/dev/null && echo "removed the test installation (dpkg -r headroom)"
    fi
}
trap cleanup EXIT

# The desktop files are checked as packaged, with the validators when they are installed.
dpkg -x "$deb" "$root"
desktop=$root/usr/share/applications/headroom.desktop
metainfo=$root/usr/share/metainfo/io.github.headroom.Headroom.metainfo.xml
if [ -f "$desktop" ]; then
    step "validate desktop integration"
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$desktop" && echo "desktop-file-validate: ok"
    fi
    if command -v appstreamcli >/dev/null; then
        appstreamcli validate --no-net "$metainfo"
    fi
    test -f "$root/usr/share/icons/hicolor/scalable/apps/headroom.svg"
fi

if [ "$(id -u)" -eq 0 ] && [ $extract -eq 0 ] &&
    ! dpkg-query -W -f='${db:Status-Status}' headroom 2>/dev/null | grep -qx installed; then
    step "dpkg -i $deb"
    installed_here=1
    dpkg -i "$deb"
    cli=/usr/bin/headroom-cli
else
    step "dpkg -x $deb $root"
    cli=$root/usr/bin/headroom-cli
fi

step "$cli --version"
output=$("$cli" --version)
echo "$output"
case "$output" in
*"$version"*) echo "check-deb.sh: ok - the packaged headroom-cli runs and reports $version" ;;
*)
    echo "check-deb.sh: headroom-cli --version did not mention the package version $version" >&2
    exit 1
    ;;
esac
