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

source "$repo/scripts/clean-root.sh"
start=$(date +%s)
clean_root_create fresh-machine-package-test "$root"

mkdir -p "$root/work/src/examples" "$root/work/tests/install"
cp "$deb" "$root/work/"
cp -r "$repo/examples/consumer" "$root/work/src/examples/consumer"
cp "$repo/tests/install/consumer_test.sh" "$root/work/tests/install/"

clean_root_mount "$root"
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
