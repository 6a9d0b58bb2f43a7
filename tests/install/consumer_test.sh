#!/usr/bin/env bash
# An application built against an installed Actorflow, as a user builds it:
# installs a build tree into a temporary prefix (or takes an installed one),
# checks that every installed header's includes are installed too, builds
# examples/consumer out of tree with find_package(Actorflow), links it a
# second time from pkg-config's flags, trains locally and runs one step on
# an `actorflow server` started from the same prefix. Needs no network.
#
# Usage: consumer_test.sh --source SRC (--build BUILD | --prefix PREFIX)
#   --build BUILD    cmake --install BUILD into a temporary prefix
#   --prefix PREFIX  use what is installed there (/usr for the Debian package)
set -euo pipefail

source_dir="" build_dir="" prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_dir=$2; shift 2 ;;
    --build) build_dir=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    *) echo "consumer_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$source_dir" ] || { [ -z "$build_dir" ] && [ -z "$prefix" ]; }; then
  echo "usage: consumer_test.sh --source SRC (--build BUILD | --prefix PREFIX)" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/af-consumer-test.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
step() { echo "consumer_test: $*"; }

if [ -z "$prefix" ]; then
  prefix=$tmp/prefix
  cmake --install "$build_dir" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; exit 1; }
  step "installed $build_dir into a temporary prefix: $(find "$prefix" -type f | wc -l) files," \
       "$(du -sh "$prefix" | cut -f1)"
fi
include_dir=$prefix/include/actorflow

# Every installed header in one unit, with no include path into the source
# or build trees: a header including one that was not installed fails here.
(cd "$include_dir" && find . -name '*.h' | sort | sed 's|^\./\(.*\)|#include "\1"|') >"$tmp/all_headers.cc"
g++ -std=c++20 -fsyntax-only -I"$include_dir" "$tmp/all_headers.cc"
step "all $(wc -l <"$tmp/all_headers.cc") installed headers compile from the prefix alone"

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
launcher=()
if command -v ccache >/dev/null; then
  # Paths under the temporary directory change every run; relative to it
  # they do not, so ccache can reuse the object.
  export CCACHE_BASEDIR=$tmp
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# /usr (the Debian package) is where CMake and pkg-config look by default:
# found there without being told, as a user's project finds it.
prefix_path=() pc_path=$prefix/lib/pkgconfig
if [ "$prefix" = /usr ]; then
  pc_path=${PKG_CONFIG_PATH:-}
else
  prefix_path=(-DCMAKE_PREFIX_PATH="$prefix")
fi
cp -r "$source_dir/examples/consumer" "$tmp/src"
cmake -S "$tmp/src" -B "$tmp/consumer" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Release "${prefix_path[@]}" >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
step "built examples/consumer against the prefix with find_package(Actorflow)"

# The same object linked from the pkg-config file's flags (kernels and ops
# must be linked whole there too, or the first Run finds no kernel).
if command -v pkg-config >/dev/null; then
  object=$(find "$tmp/consumer" -name 'main.cc.o' | head -n 1)
  libs=$(PKG_CONFIG_PATH=$pc_path pkg-config --libs actorflow)
  # shellcheck disable=SC2086  # the flags are words
  g++ -o "$tmp/consumer_pc" "$object" $libs
  "$tmp/consumer_pc" >"$tmp/pc.out" 2>&1 || { cat "$tmp/pc.out"; exit 1; }
  grep -q '^consumer: ok$' "$tmp/pc.out"
  step "linked with pkg-config --libs actorflow $(PKG_CONFIG_PATH=$pc_path pkg-config --modversion actorflow): $(grep '^local training' "$tmp/pc.out")"
else
  step "no pkg-config here: the .pc file is not checked"
fi

# A worker from the same prefix. Port 0: the server picks a free port and
# says which; --exit_with_parent: it goes away with this script.
"$prefix/bin/actorflow" server --port 0 --exit_with_parent >"$tmp/server.log" 2>&1 &
server_pid=$!
address=""
for _ in $(seq 1 300); do
  address=$(sed -n 's/^actorflow server: listening on \([^ ]*\).*/\1/p' "$tmp/server.log")
  if [ -n "$address" ]; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "$address" ]; then
  echo "consumer_test: actorflow server did not start:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi

status=0
"$tmp/consumer/consumer" --server "$address" >"$tmp/consumer.out" 2>&1 || status=$?
cat "$tmp/consumer.out"
if [ $status -ne 0 ]; then
  echo "consumer_test: the consumer exited $status; the server's log:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
for expected in '^local training: loss ' '^remote step on /job:worker/replica:0/task:0/device:CPU:0 ' \
                '^consumer: ok$'; do
  if ! grep -q "$expected" "$tmp/consumer.out"; then
    echo "consumer_test: no line matching '$expected' in the consumer's output" >&2
    exit 1
  fi
done
step "passed"
