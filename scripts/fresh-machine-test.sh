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

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-machine-test: run as root (debootstrap and chroot need it)" >&2
  exit 2
fi

# The first Debian mirror this machine's apt uses (deb822 or one-line form).
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  echo "fresh-machine-test: no Debian mirror found in /etc/apt" >&2
  exit 2
fi

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
    >/dev/null
fi

mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [ "${AF_KEEP_ROOT:-0}" != 1 ]; then rm -rf "$root"; fi
}
trap cleanup EXIT

start=$(date +%s)
rm -rf "$root"
echo "fresh-machine-test: debootstrap bookworm from $mirror into $root"
# A minimal Debian 12 plus `make`, the one tool a user needs to type the
# README's command.
debootstrap --variant=minbase --include=make,ca-certificates bookworm "$root" "$mirror" \
  >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"

mkdir -p "$root/work"
git clone -q "$repo" "$root/work/main"
if [ -d "$shared" ]; then cp -a "$shared" "$root/work/shared"; fi

mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount --bind /dev "$root/dev" && mounts+=("$root/dev")
mount --bind /dev/pts "$root/dev/pts" && mounts+=("$root/dev/pts")
mount -t tmpfs tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")
if [ -d /usr/local/cuda ]; then
  cuda=$(readlink -f /usr/local/cuda)
  mkdir -p "$root/usr/local/cuda"
  mount --bind "$cuda" "$root/usr/local/cuda" && mounts+=("$root/usr/local/cuda")
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
