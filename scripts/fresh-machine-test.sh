#!/usr/bin/env bash
# Runs `make test` the way a new user would: in a clean Debian 12 root made
# with debootstrap, from a fresh clone of this repository (committed work
# only), with ../shared beside it. Nothing installed on this machine by hand
# can leak in. /usr/local/cuda is bind-mounted read-only when it exists, so
# the CUDA part of the configure and build runs too.
#
# Usage (as root): scripts/fresh-machine-test.sh [make target, default: test]
# The mirror is read from this machine's own apt sources. The root is made
# under $AF_FRESH_DIR (default /var/tmp/af-fresh-root) and removed afterwards
# unless AF_KEEP_ROOT=1.
set -euo pipefail

target=${1:-test}
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/.." && pwd)/shared
root=${AF_FRESH_DIR:-/var/tmp/af-fresh-root}

source "$repo/scripts/clean-root.sh"
start=$(date +%s)
# A minimal Debian 12 plus `make`, the one tool a user needs to type the
# README's command.
clean_root_create fresh-machine-test "$root" make

mkdir -p "$root/work"
git clone -q "$repo" "$root/work/main"
if [ -d "$shared" ]; then cp -a "$shared" "$root/work/shared"; fi

clean_root_mount "$root"
if [ -d /usr/local/cuda ]; then
  cuda=$(readlink -f /usr/local/cuda)
  mkdir -p "$root/usr/local/cuda"
  mount --bind "$cuda" "$root/usr/local/cuda" && clean_root_mounts+=("$root/usr/local/cuda")
  mount -o remount,bind,ro "$root/usr/local/cuda"
fi
ready=$(date +%s)

echo "fresh-machine-test: root ready in $((ready - start)) s; running 'make $target'"
status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c "cd /work/main && make $target" || status=$?
end=$(date +%s)
echo "fresh-machine-test: 'make $target' exited $status after $((end - ready)) s" \
     "($((end - start)) s with the root's creation)"
exit $status
