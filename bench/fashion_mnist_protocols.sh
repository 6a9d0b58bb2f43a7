#!/bin/bash
# The Fashion-MNIST demo trained by a cluster on this machine under each
# coordination protocol, beside the single-process demo, in one run:
# 2 ps + 3 worker processes (`actorflow cluster`), test accuracy after the
# first and the last epoch, global examples/s (every worker's examples over
# the chief's training time), applied examples/s (examples the global steps
# averaged), per-worker examples/s and dropped gradients.
#
#   bench/fashion_mnist_protocols.sh [EPOCHS] [PROTOCOL ...]
#   (defaults: 3 epochs; sync async backup:1 ssp:2; MODEL=cnn BUILD=build)
#
# Prints each run's JSON line ("run" names it), then a table.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${BUILD:-build}")
MODEL=${MODEL:-cnn}
EPOCHS=${1:-3}
shift || true
PROTOCOLS=("$@")
[ ${#PROTOCOLS[@]} -gt 0 ] || PROTOCOLS=(sync async backup:1 ssp:2)
work=$(mktemp -d /tmp/af-protocols.XXXXXX)
common=(--model "$MODEL" --epochs "$EPOCHS" --batch 64 --progress false --checkpoint_secs 0)

field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2 | tr -d '"'; }
list() { grep -o "\"$2\":\[[^]]*\]" <<<"$1" | cut -d: -f2 | tr -d '[]'; }
first() { cut -d, -f1 <<<"$1"; }
last() { awk -F, '{print $NF}' <<<"$1"; }

declare -A json
"$BUILD/bin/fashion_mnist" "${common[@]}" --threads 2 --logdir "$work/single" > "$work/single.out" 2>&1
json[single]=$(grep '^{' "$work/single.out" | tail -1)
echo "{\"run\":\"single\",${json[single]#\{}"
for p in "${PROTOCOLS[@]}"; do
  dir="$work/${p/:/-}"
  "$BUILD/bin/actorflow" cluster --ps 2 --workers 3 --logdir "$dir" -- \
    "$BUILD/bin/fashion_mnist" "${common[@]}" --threads 1 --protocol "$p" --logdir "$dir/train" \
    > "$dir.launcher" 2>&1 || { echo "$p: failed, see $dir" >&2; continue; }
  json[$p]=$(grep '^{' "$dir/worker-0.log" | tail -1)
  echo "{\"run\":\"$p\",${json[$p]#\{}"
done

echo
printf "%-10s %9s %9s %12s %12s %-22s %s\n" run "acc@1" "acc@$EPOCHS" "global ex/s" \
  "applied ex/s" "worker ex/s" "dropped gradients"
for run in single "${PROTOCOLS[@]}"; do
  j=${json[$run]:-}
  [ -n "$j" ] || continue
  acc=$(list "$j" test_acc)
  if [ "$run" = single ]; then
    rate=$(field "$j" train_ex_per_s)
    printf "%-10s %9s %9s %12s %12s %-22s %s\n" "$run" "$(first "$acc")" "$(last "$acc")" \
      "$rate" "$rate" "-" "-"
  else
    printf "%-10s %9s %9s %12s %12s %-22s %s\n" "$run" "$(first "$acc")" "$(last "$acc")" \
      "$(field "$j" global_train_ex_per_s)" "$(field "$j" global_applied_ex_per_s)" \
      "$(list "$j" worker_ex_per_s)" "$(list "$j" worker_gradients_dropped)"
  fi
done
echo "(logs in $work)"
