#!/bin/bash
# What losing a ps task costs, with the shard replicas and without them, in
# one run (issue 28): the Fashion-MNIST MLP trained by 2 ps + 2 workers
# (`actorflow cluster --restart on-failure`), checkpoints every
# CHECKPOINT_SECS; KILL_AFTER seconds into training ps task VICTIM is
# killed with SIGKILL and the launcher starts it again. Once with
# --shard_replica_steps 1 (the chief restores the task's variables from
# their copy on the other ps task), once with 0 (it restores the latest
# checkpoint). Printed per run: the global steps rolled back, the recovery's
# seconds (failed step to retried step), the seconds the re-done steps cost
# (rolled back / the run's global steps per second), their sum, and the
# run's wall time and final accuracy.
#
#   bench/ps_loss_recovery.sh [PROTOCOL] (default async; sync, backup:1, ssp:2)
#   env: EPOCHS=3 KILL_AFTER=8 CHECKPOINT_SECS=5 VICTIM=1 BUILD=build
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${BUILD:-build}")
PROTOCOL=${1:-async}
EPOCHS=${EPOCHS:-3}
KILL_AFTER=${KILL_AFTER:-8}
CHECKPOINT_SECS=${CHECKPOINT_SECS:-5}
VICTIM=${VICTIM:-1}
work=$(mktemp -d /tmp/af-ps-loss.XXXXXX)

field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2 | tr -d '"'; }

run() {  # run NAME REPLICA_STEPS
  local dir="$work/$1"
  mkdir -p "$dir"
  "$BUILD/bin/actorflow" cluster --ps 2 --workers 2 --restart on-failure --logdir "$dir" -- \
    "$BUILD/bin/fashion_mnist" --model mlp --threads 1 --progress false --epochs "$EPOCHS" \
    --protocol "$PROTOCOL" --checkpoint_secs "$CHECKPOINT_SECS" --shard_replica_steps "$2" \
    --logdir "$dir/train" > "$dir/launcher.out" 2>&1 &
  local launcher=$!
  for _ in $(seq 600); do
    grep -q "session ready" "$dir/worker-0.log" 2>/dev/null && break
    sleep 0.1
  done
  sleep "$KILL_AFTER"
  local pid
  pid=$(sed -n "s/.*job ps task $VICTIM at .* pid \([0-9]*\).*/\1/p" "$dir/launcher.out" | tail -1)
  kill -9 "$pid"
  wait "$launcher" || { echo "$1: the cluster failed, see $dir" >&2; return 1; }
  grep -h "recovered from" "$dir/worker-0.log" | sed 's/.*(chief): /  /' | cut -c1-300 >&2
  json=$(grep '^{' "$dir/worker-0.log" | tail -1)
  echo "{\"run\":\"$1\",${json#\{}"
}

declare -A json_of
for name in replicas checkpoint; do
  steps=1
  [ "$name" = checkpoint ] && steps=0
  json_of[$name]=$(run "$name" "$steps")
  echo "${json_of[$name]}"
done

echo
echo "ps task $VICTIM killed ${KILL_AFTER} s into training ($PROTOCOL, 2 ps, 2 workers, MLP, $EPOCHS epochs):"
printf "%-11s %10s %11s %12s %11s %8s %9s\n" restore "rolled back" "recovery s" "re-done s" "lost s" "wall s" "accuracy"
for name in replicas checkpoint; do
  j=${json_of[$name]}
  rolled=$(field "$j" global_steps_rolled_back)
  recovery=$(field "$j" recovery_s)
  steps=$(field "$j" global_step)
  train=$(field "$j" train_s)
  acc=$(grep -o '"test_acc":\[[^]]*\]' <<<"$j" | awk -F, '{print $NF}' | tr -d ']')
  awk -v n="$name" -v r="$rolled" -v rec="$recovery" -v s="$steps" -v t="$train" \
      -v w="$(field "$j" wall_s)" -v a="$acc" 'BEGIN {
    redo = (s > 0 && t > 0) ? r / (s / t) : 0
    printf "%-11s %10d %11.2f %12.2f %11.2f %8.1f %9s\n", n, r, rec, redo, rec + redo, w, a }'
done
rm -rf "$work"
