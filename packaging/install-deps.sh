#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian packages Headroom needs to build, run and test - only those that are
# missing - with the names of the release it runs on: Debian 12 (bookworm) or 13 (trixie).
# When everything is present it says so and exits 0 without touching apt.
#
#   packaging/install-deps.sh              install what is missing (uses sudo unless root)
#   packaging/install-deps.sh --dry-run    only list what is missing and the command it would run
#   packaging/install-deps.sh --list       print the package list and exit
#   packaging/install-deps.sh --no-torch   leave LibTorch out (a GPU machine brings its own)
#
# HEADROOM_EXTRA_PACKAGES="a b" adds packages to the list (used by the installer's own test);
# HEADROOM_DEBIAN_RELEASE=trixie picks a release's list on another machine (for --list).
set -euo pipefail

release=${HEADROOM_DEBIAN_RELEASE:-}
if [ -z "$release" ] && [ -r /etc/os-release ]; then
    release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
fi

# The names both releases share; each release's own follow.
packages=(
    # build
    build-essential cmake ninja-build ccache pkg-config dpkg-dev file
    # libraries
    libopenblas0-pthread libopencv-dev libyaml-cpp-dev libgloo-dev nlohmann-json3-dev
    qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n libqt6svg6
    libqcustomplot-dev
    # tests: the GUI tests run under a virtual display
    xvfb xauth
    # packaging checks (packaging/check-deb.sh)
    desktop-file-utils appstream
)
torch_packages=(libtorch-dev)
case "$release" in
bookworm) ;; # LibTorch 1.13, Qt 6.4, OpenCV 4.6
trixie) ;;   # LibTorch 2.6, Qt 6.8, OpenCV 4.10: the same names
*)
    echo "install-deps.sh: this installer knows Debian 12 (bookworm) and 13 (trixie), not" \
        "'${release:-an unnamed release}'; it tries Debian 13's package names." >&2
    ;;
esac
dry_run=0
list=0
with_torch=1
for arg in "$@"; do
    case "$arg" in
    --dry-run | -n) dry_run=1 ;;
    --list) list=1 ;;
    --no-torch) with_torch=0 ;;
    -h | --help)
        sed -n '3,14s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "install-deps.sh: unknown option '$arg' (try --help)" >&2
        exit 2
        ;;
    esac
done
[ $with_torch -eq 1 ] && packages+=("${torch_packages[@]}")
# shellcheck disable=SC2206 # word splitting of the extra list is intended
packages+=(${HEADROOM_EXTRA_PACKAGES:-})
if [ $list -eq 1 ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: dpkg-query not found; this installer is for Debian 12 and 13." >&2
    echo "Install the equivalent of: ${packages[*]}" >&2
    exit 1
fi

# One dpkg-query call for the whole list; packages it does not know print nothing on stdout.
declare -A installed=()
while read -r name status; do
    [ "$status" = installed ] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)

missing=()
for package in "${packages[@]}"; do
    [ -n "${installed[$package]:-}" ] || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps.sh: all ${#packages[@]} packages are installed; nothing to do."
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=(env DEBIAN_FRONTEND=noninteractive)
else
    as_root=(sudo env DEBIAN_FRONTEND=noninteractive)
fi

echo "install-deps.sh: missing ${#missing[@]} of ${#packages[@]} packages: ${missing[*]}"
if [ $dry_run -eq 1 ]; then
    echo "would run: ${as_root[*]} apt-get update && ${as_root[*]} apt-get install -y" \
        "--no-install-recommends ${missing[*]}"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps.sh: run this script as root or install sudo." >&2
    exit 1
fi

"${as_root[@]}" apt-get update
if ! "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
    echo "install-deps.sh: apt-get could not install: ${missing[*]}" >&2
    echo "Check the names with 'apt-cache policy <package>' (Debian ${release:-?}, main)." >&2
    exit 1
fi
echo "install-deps.sh: installed ${missing[*]}"
