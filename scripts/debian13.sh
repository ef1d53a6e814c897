#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one of the README's commands inside a Debian 13 (trixie) root on a Debian 12 machine, so
# that both releases - LibTorch 1.13 and 2.6, Qt 6.4 and 6.8 - are built and tested here:
#
#   scripts/debian13.sh test    the test command, in the root
#   scripts/debian13.sh demo    the demo, in the root
#   scripts/debian13.sh shell   a shell in the root, with the tree at /src/headroom
#
# The root is made once with mmdebstrap and kept at HEADROOM_DEBIAN13_ROOT (default
# /var/cache/headroom/debian13): later runs install only what packaging/install-deps.sh finds
# missing, and reuse the build folder and ccache inside it. The tree travels as git sees it
# (tracked files and untracked ones it does not ignore). Needs root and the Debian mirror.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
case "$mode" in
test | demo | shell) shift ;;
*)
    echo "usage: $0 test|demo|shell [demo settings...]" >&2
    exit 2
    ;;
esac
root=${HEADROOM_DEBIAN13_ROOT:-/var/cache/headroom/debian13}
mirror=${HEADROOM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
say() { echo "debian13.sh: $*"; }

if [ "$(id -u)" -ne 0 ]; then
    say "needs root (a chroot and its mounts); run it as root or with sudo." >&2
    exit 1
fi

# A root left half-made by an interrupted run has no stamp and is made again.
if [ ! -f "$root/.headroom-root" ]; then
    if ! command -v mmdebstrap >/dev/null 2>&1; then
        say "installing mmdebstrap"
        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q mmdebstrap
    fi
    if grep -q " $root/" /proc/mounts; then
        say "something is mounted under $root; unmount it (umount -R $root/proc ...) first." >&2
        exit 1
    fi
    rm -rf "$root"
    mkdir -p "$(dirname "$root")"
    say "making a Debian 13 root at $root"
    started=$(date +%s)
    mmdebstrap --variant=apt --include=ca-certificates,git trixie "$root" "deb $mirror trixie main"
    date -u +%FT%TZ >"$root/.headroom-root"
    say "root made in $(($(date +%s) - started)) s"
fi

src=$root/src/headroom
mkdir -p "$src"
# The tree as git sees it; the root's build folder and anything else it made stay.
(cd "$here" && git ls-files --cached --others --exclude-standard | sort -u) >"$root/tmp/wanted"
(cd "$here" && tar -cf - --ignore-failed-read --no-recursion -T "$root/tmp/wanted" 2>/dev/null) |
    tar -xf - -C "$src"
# Files removed from the tree since the last run leave the copy too.
(cd "$src" && find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort) >"$root/tmp/copied"
comm -23 "$root/tmp/copied" "$root/tmp/wanted" | while read -r stale; do rm -f "$src/$stale"; done
cp /etc/resolv.conf "$root/etc/resolv.conf"

inner="cd /src/headroom && export HOME=/root LANG=C.UTF-8 && "
case "$mode" in
test) inner+="bash scripts/quickstart.sh test" ;;
demo)
    # printf with no arguments would still print one empty word.
    inner+="bash scripts/quickstart.sh demo"
    [ $# -gt 0 ] && inner+=" $(printf '%q ' "$@")"
    ;;
shell) inner+="exec bash -i" ;;
esac

# A private mount namespace: the mounts end with the command, whatever way it ends.
say "running '$mode' in Debian $(cat "$root/etc/debian_version")"
exec unshare --mount --propagation private bash -c '
    set -e
    root=$1
    mount -t proc proc "$root/proc"
    mount -t sysfs sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    # CUDA'"'"'s runtime headers, where this machine has them: tests/cuda compiles the CUDA code
    # against Debian 13'"'"'s c10/cuda headers with them.
    if [ -d /usr/local/cuda/include ]; then
        mkdir -p "$root/usr/local/cuda/include"
        mount --bind -o ro /usr/local/cuda/include "$root/usr/local/cuda/include"
    fi
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin CI="${CI:-}" \
        bash -c "$2"' bash "$root" "$inner"
