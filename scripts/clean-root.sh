# Shared by scripts/fresh-machine-test.sh and fresh-machine-package-test.sh
# (sourced, not run): a clean Debian 12 root made with debootstrap from this
# machine's own mirror, with /proc, /dev and /dev/shm mounted, undone on exit.
#
#   clean_root_create NAME ROOT [extra,debootstrap,packages]
#   clean_root_mount ROOT            # after copying in what the test needs
# NAME prefixes the messages; ROOT is removed on exit unless AF_KEEP_ROOT=1.

clean_root_mounts=()

clean_root_cleanup() {
  local i
  for ((i = ${#clean_root_mounts[@]} - 1; i >= 0; i--)); do
    umount -l "${clean_root_mounts[$i]}" 2>/dev/null || true
  done
  if [ "${AF_KEEP_ROOT:-0}" != 1 ]; then rm -rf "$clean_root_dir"; fi
}

clean_root_create() {
  local name=$1 root=$2 include=${3:-}
  if [ "$(id -u)" -ne 0 ]; then
    echo "$name: run as root (debootstrap and chroot need it)" >&2
    exit 2
  fi
  # The first Debian mirror this machine's apt uses (deb822 or one-line form).
  local mirror
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  if [ -z "$mirror" ]; then
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
  fi
  if [ -z "$mirror" ]; then
    echo "$name: no Debian mirror found in /etc/apt" >&2
    exit 2
  fi
  if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
      >/dev/null
  fi
  clean_root_dir=$root
  trap clean_root_cleanup EXIT
  rm -rf "$root"
  echo "$name: debootstrap bookworm from $mirror into $root"
  debootstrap --variant=minbase --include="${include:+$include,}ca-certificates" bookworm \
    "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

clean_root_mount() {
  local root=$1
  mount -t proc proc "$root/proc" && clean_root_mounts+=("$root/proc")
  mount --bind /dev "$root/dev" && clean_root_mounts+=("$root/dev")
  mount --bind /dev/pts "$root/dev/pts" && clean_root_mounts+=("$root/dev/pts")
  mount -t tmpfs tmpfs "$root/dev/shm" && clean_root_mounts+=("$root/dev/shm")
}
