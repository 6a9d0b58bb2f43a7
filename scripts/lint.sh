#!/usr/bin/env bash
# `make lint`: clang-format (.clang-format) and clang-tidy (.clang-tidy) over
# the C/C++ files this branch changes. Exits non-zero on any finding.
#
# Which files:
#   LINT_ALL=1       every tracked C/C++ file.
#   LINT_BASE=<rev>  the files changed since <rev> (committed or not).
#   otherwise        the files changed since the merge base with origin/main
#                    (a clone's usual state); without origin/main, since HEAD~1
#                    (the last commit plus what is not committed yet); in a
#                    repository of one commit, every file.
# Files not yet added to git (but not ignored) count as changed.
#
# clang-format checks every changed .cc/.h/.cu/.cuh file; clang-tidy checks
# the changed .cc files that $BUILD/compile_commands.json knows (so a CUDA
# file, or a test of a target the build left out, is skipped), never a
# generated .pb.cc. clang-tidy needs a configured build (`make build` or
# `make configure`): it reads the compile commands and the generated
# protobuf headers from $BUILD.
#
# Usage: scripts/lint.sh [BUILD_DIR]   (JOBS=n: parallel clang-tidy runs)
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
JOBS=${JOBS:-$(nproc)}

# clang-format and clang-tidy: the plain names, else a versioned one; when
# neither is there, Debian's packages, installed as scripts/install-deps.sh
# installs the build's.
find_tool() {
  local name=$1 v
  if command -v "$name" >/dev/null; then echo "$name"; return; fi
  for v in 19 18 17 16 15 14; do
    if command -v "$name-$v" >/dev/null; then echo "$name-$v"; return; fi
  done
}
CLANG_FORMAT=${CLANG_FORMAT:-$(find_tool clang-format)}
CLANG_TIDY=${CLANG_TIDY:-$(find_tool clang-tidy)}
if [ -z "$CLANG_FORMAT" ] || [ -z "$CLANG_TIDY" ]; then
  echo "lint: installing clang-format clang-tidy"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends clang-format clang-tidy >/dev/null
  CLANG_FORMAT=$(find_tool clang-format)
  CLANG_TIDY=$(find_tool clang-tidy)
fi

# The files to check, one per line.
exts=('*.cc' '*.h' '*.cu' '*.cuh')
if [ "${LINT_ALL:-0}" = 1 ]; then
  what="every file"
  files=$(git ls-files -- "${exts[@]}")
else
  base=${LINT_BASE:-}
  if [ -z "$base" ] && git rev-parse -q --verify origin/main >/dev/null; then
    base=$(git merge-base HEAD origin/main)
    what="changed since the merge base with origin/main (${base:0:12})"
  elif [ -z "$base" ] && git rev-parse -q --verify HEAD~1 >/dev/null; then
    base=HEAD~1
    what="changed since HEAD~1 (no origin/main)"
  elif [ -n "$base" ]; then
    what="changed since $base"
  fi
  if [ -n "$base" ]; then
    files=$( (git diff --name-only --diff-filter=d "$base" -- "${exts[@]}";
              git ls-files --others --exclude-standard -- "${exts[@]}") | sort -u)
  else
    what="every file (one commit, no origin/main)"
    files=$( (git ls-files -- "${exts[@]}";
              git ls-files --others --exclude-standard -- "${exts[@]}") | sort -u)
  fi
fi
# Generated protobuf code is never ours to format.
files=$(printf '%s\n' "$files" | grep -v -E '\.pb\.(cc|h)$' | grep -v '^$' || true)

if [ -z "$files" ]; then
  echo "lint: no C/C++ files, $what"
  exit 0
fi
count=$(printf '%s\n' "$files" | wc -l)
echo "lint: $count C/C++ file(s), $what"

status=0

echo "lint: $CLANG_FORMAT --dry-run -Werror"
if ! printf '%s\n' "$files" | xargs -d '\n' "$CLANG_FORMAT" --dry-run -Werror --style=file; then
  echo "lint: clang-format found differences (fix: $CLANG_FORMAT -i --style=file <file>)"
  status=1
fi

# clang-tidy: the changed .cc files the build compiles.
db="$BUILD/compile_commands.json"
tidy_files=$(printf '%s\n' "$files" | grep -E '\.cc$' || true)
if [ -n "$tidy_files" ]; then
  if [ ! -f "$db" ]; then
    echo "lint: no $db: run \`make build\` (or \`make configure\`) first"
    exit 1
  fi
  root=$(pwd)
  known=""
  skipped=""
  while IFS= read -r f; do
    if grep -qF "\"file\": \"$root/$f\"" "$db"; then
      known+="$f"$'\n'
    else
      skipped+=" $f"
    fi
  done <<<"$tidy_files"
  if [ -n "$skipped" ]; then
    echo "lint: clang-tidy skips (not in $db):$skipped"
  fi
  if [ -n "$known" ]; then
    # The tests' commands force-include CMake's precompiled header, which
    # clang cannot read (GCC made it): clang-tidy reads a copy of the
    # compile commands that force-includes a copy of the header text instead.
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp "$db" "$tmp/compile_commands.json"
    for pch in $(grep -o -- '-include [^ ]*/cmake_pch\.hxx ' "$db" | cut -d' ' -f2 | sort -u); do
      copy="$tmp/$(printf '%s' "$pch" | tr '/' '_')"
      cp "$pch" "$copy"
      sed -i "s#-include $pch #-include $copy #g" "$tmp/compile_commands.json"
    done
    n=$(printf '%s' "$known" | grep -c .)
    echo "lint: $CLANG_TIDY -p $BUILD over $n file(s), $JOBS at a time"
    # Findings in the project's own headers count too (not in build/'s
    # generated ones). Each file's findings print as one block; any finding
    # fails the run.
    filter="^$root/(actors|bench|client|control-flow|core|examples|graph|kernels|runtime|tests|tools)/"
    if ! printf '%s' "$known" | xargs -d '\n' -P "$JOBS" -n 1 \
        sh -c 'out=$("$0" -p "$1" --header-filter="$2" --quiet --warnings-as-errors="*" "$3" 2>&1);
               rc=$?; [ $rc -eq 0 ] || printf "%s\n" "$out" | grep -v -E "^[0-9]+ warnings?( and [0-9]+ errors?)? generated\.$";
               exit $(( rc != 0 ))' \
        "$CLANG_TIDY" "$tmp" "$filter"; then
      echo "lint: clang-tidy found problems"
      status=1
    fi
  fi
fi

if [ $status -eq 0 ]; then echo "lint: clean"; fi
exit $status
