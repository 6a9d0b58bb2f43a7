#!/usr/bin/env bash
# Installs the Debian package (`make package`) the way a user would, with
# `apt-get install ./actorflow_*.deb` in a clean Debian 12 root made with
# debootstrap, so apt resolves its Depends from the mirror; then builds
# examples/consumer there against /usr with find_package(Actorflow) and runs
# it, one step on an `actorflow server` from the package included
# (tests/install/consumer_test.sh --prefix /usr). Only the package, the
# consumer's sources and that script enter the root: no build tree, no
# source tree.
#
# Usage (as root): scripts/fresh-machine-package-test.sh DIR_OR_DEB
# The mirror is read from this machine's apt sources, as
# scripts/fresh-machine-test.sh does. The root is made under $AF_FRESH_DIR
# (default /var/tmp/af-fresh-package-root) and removed afterwards unless
# AF_KEEP_ROOT=1.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${AF_FRESH_DIR:-/var/tmp/af-fresh-package-root}
what=${1:?usage: fresh-machine-package-test.sh DIR_OR_DEB}
if [ -d "$what" ]; then
  deb=$(ls -t "$what"/actorflow_*.deb 2>/dev/null | head -n 1 || true)
else
  deb=$what
fi
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
  echo "fresh-machine-package-test: no actorflow_*.deb at $what (make package)" >&2
  exit 2
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-machine-package-test: run as root (debootstrap and chroot need it)" >&2
  exit 2
fi

mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
fi
if [ -z "$mirror" ]; then
  echo "fresh-machine-package-test: no Debian mirror found in /etc/apt" >&2
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
echo "fresh-machine-package-test: debootstrap bookworm from $mirror into $root"
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" \
  >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"

mkdir -p "$root/work/src/examples" "$root/work/tests/install"
cp "$deb" "$root/work/"
cp -r "$repo/examples/consumer" "$root/work/src/examples/consumer"
cp "$repo/tests/install/consumer_test.sh" "$root/work/tests/install/"

mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount --bind /dev "$root/dev" && mounts+=("$root/dev")
mount --bind /dev/pts "$root/dev/pts" && mounts+=("$root/dev/pts")
mount -t tmpfs tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")
ready=$(date +%s)
echo "fresh-machine-package-test: root ready in $((ready - start)) s; installing $(basename "$deb")"

# What a user adds to build the consumer: a compiler, CMake, Ninja and
# pkg-config; everything else comes from the package's Depends.
status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive /bin/bash -c "
    set -e
    cd /work
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends ./$(basename "$deb") g++ cmake ninja-build \
      pkg-config >/work/apt.log 2>&1 || { tail -30 /work/apt.log; exit 1; }
    echo \"fresh-machine-package-test: installed; Depends: \$(dpkg-query -W -f='\${Depends}' actorflow)\"
    bash tests/install/consumer_test.sh --source /work/src --prefix /usr
  " || status=$?
end=$(date +%s)
echo "fresh-machine-package-test: exited $status after $((end - ready)) s" \
     "($((end - start)) s with the root's creation)"
exit $status
