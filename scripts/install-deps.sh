#!/usr/bin/env bash
# Installs the Debian packages Actorflow builds and runs with. Idempotent and
# quiet: packages already present are skipped; apt runs only when needed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libcaf-dev            # actors and networking (CAF 0.17.6)
  libeigen3-dev         # CPU kernels
  libdnnl-dev           # oneDNN: GEMM and convolutions
  libprotobuf-dev protobuf-compiler  # GraphDef and friends
  libboost-test-dev     # the test suites
  zlib1g-dev            # gzip'd datasets and checkpoints
  libssl-dev            # libcrypto: HMAC proofs of the cluster secret (libcaf-dev pulls it in too)
  dataset-fashion-mnist # the data `make demo` trains on (/usr/share/datasets)
)
# `make test` also starts a one-node Slurm cluster (scripts/slurm-one-node.sh):
# its controller, node daemon, srun and munge. Their services may start at
# install; the test runs its own daemons under a directory of its own.
if [ "${AF_TEST_DEPS:-0}" = 1 ]; then
  packages+=(slurmctld slurmd slurm-client munge)
fi
# `make compare` and `make compare-lstm` also run PyTorch peers: AF_PEER_DEPS=1.
# OpenBLAS: Debian's torch calls whatever libblas.so.3 the alternatives
# system points at, and the reference BLAS it pulls in is ~10x slower.
if [ "${AF_PEER_DEPS:-0}" = 1 ]; then
  packages+=(python3-torch python3-numpy libopenblas0-pthread libjemalloc2)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
