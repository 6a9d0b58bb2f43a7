#!/bin/bash
# Lossy 16-bit transfer (whitepaper §5.5, docs/graph-optimizer.md): the
# cluster example (the Fashion-MNIST CNN, 1 ps + 2 worker processes under
# `actorflow cluster`, sync protocol) trained with float32 tensors crossing
# processes as they are and as bfloat16 (ACTORFLOW_BFLOAT16_TRANSFER=1 in
# every trainer), in one run: test accuracy after each epoch, the chief's
# examples/s and the tensor bytes its process sent and received over the
# data plane.
#
#   bench/bfloat16_transfer.sh [EPOCHS]   (default 3; MODEL=cnn BUILD=build)
#
# Prints each run's JSON line ("run" names it), then a table.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${BUILD:-build}")
MODEL=${MODEL:-cnn}
EPOCHS=${1:-3}
work=$(mktemp -d /tmp/af-bfloat16.XXXXXX)
common=(--model "$MODEL" --epochs "$EPOCHS" --batch 64 --threads 1 --progress false
        --checkpoint_secs 0 --protocol sync)

field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2 | tr -d '"'; }
list() { grep -o "\"$2\":\[[^]]*\]" <<<"$1" | cut -d: -f2 | tr -d '[]'; }

declare -A json
for run in float32 bfloat16; do
  dir="$work/$run"
  transfer=0
  [ "$run" = bfloat16 ] && transfer=1
  ACTORFLOW_BFLOAT16_TRANSFER=$transfer "$BUILD/bin/actorflow" cluster --ps 1 --workers 2 \
    --logdir "$dir" -- "$BUILD/bin/fashion_mnist" "${common[@]}" --logdir "$dir/train" \
    > "$dir.launcher" 2>&1 || { echo "$run: failed, see $dir" >&2; continue; }
  json[$run]=$(grep '^{' "$dir/worker-0.log" | tail -1)
  echo "{\"run\":\"$run\",${json[$run]#\{}"
done

echo
printf "%-9s %-28s %12s %14s %14s\n" run "test accuracy by epoch" "chief ex/s" "bytes sent" \
  "bytes received"
for run in float32 bfloat16; do
  j=${json[$run]:-}
  [ -n "$j" ] || continue
  printf "%-9s %-28s %12s %14s %14s\n" "$run" "$(list "$j" test_acc)" \
    "$(field "$j" train_ex_per_s)" "$(field "$j" data_plane_bytes_sent)" \
    "$(field "$j" data_plane_bytes_received)"
done
if [ -n "${json[float32]:-}" ] && [ -n "${json[bfloat16]:-}" ]; then
  awk -v a="$(field "${json[float32]}" data_plane_bytes_received)" \
      -v b="$(field "${json[bfloat16]}" data_plane_bytes_received)" \
      -v x="$(field "${json[float32]}" train_ex_per_s)" \
      -v y="$(field "${json[bfloat16]}" train_ex_per_s)" \
      'BEGIN { if (a > 0 && x > 0) printf "bfloat16/float32: bytes received %.3fx, examples/s %.3fx\n", b / a, y / x }'
fi
echo "(logs in $work)"
