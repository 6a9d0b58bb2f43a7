#!/bin/bash
# OSDI Fig. 9 at this machine's scale: the language model's training words/s
# against the number of ps tasks, with the full softmax and a sampled
# softmax (512 classes), at each vocabulary. One worker process and N
# `actorflow server` ps processes under `actorflow cluster`; the embedding
# and softmax tables are partitioned into max(N, 1) shards each and spread
# over the ps tasks (greedy by bytes); async protocol, so the worker's
# steps are its own.
#
#   bench/lm_ps_tasks.sh [VOCABS] [PS_COUNTS]
#   (defaults: "40000 800000" and "1 2 4 8"; STEPS=30 FULL_STEPS=5 BUILD=build)
#
# Prints each run's JSON line, then a table. Every process shares this
# machine's cores, so adding ps tasks adds no compute here: the figure
# shows what partitioning and routing cost and what sampling saves, not
# the paper's scaling with machines.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${BUILD:-build}")
VOCABS=(${1:-40000 800000})
PS_COUNTS=(${2:-1 2 4 8})
STEPS=${STEPS:-30}
FULL_STEPS=${FULL_STEPS:-5}
work=$(mktemp -d /tmp/af-lm-ps.XXXXXX)
field() { grep -o "\"$2\":[^,}]*" <<<"$1" | head -1 | cut -d: -f2 | tr -d '"'; }

declare -A wps
for vocab in "${VOCABS[@]}"; do
  for ps in "${PS_COUNTS[@]}"; do
    for sampled in 0 512; do
      steps=$STEPS
      [ "$sampled" = 0 ] && steps=$FULL_STEPS
      run="vocab${vocab}_ps${ps}_sampled${sampled}"
      "$BUILD/bin/actorflow" cluster --ps "$ps" --workers 1 --logdir "$work/$run" -- \
        "$BUILD/bin/language_model" --protocol async --vocab "$vocab" --words 200000 \
        --shards "$ps" --num_sampled "$sampled" --train_steps "$steps" --eval_batches 1 \
        --threads 2 --progress false > "$work/$run.out" 2>&1 || {
          echo "run $run failed; its logs are in $work/$run" >&2; exit 1; }
      line=$(grep '^{' "$work/$run/worker-0.log" | tail -1)
      echo "{\"run\":\"$run\",${line#\{}"
      wps[$run]=$(field "$line" words_per_second)
    done
  done
done

printf '\n%-10s %-6s %18s %18s %10s\n' vocab ps "full words/s" "sampled words/s" ratio
for vocab in "${VOCABS[@]}"; do
  for ps in "${PS_COUNTS[@]}"; do
    full=${wps[vocab${vocab}_ps${ps}_sampled0]}
    samp=${wps[vocab${vocab}_ps${ps}_sampled512]}
    printf '%-10s %-6s %18.0f %18.0f %9.1fx\n' "$vocab" "$ps" "$full" "$samp" \
      "$(awk -v a="$samp" -v b="$full" 'BEGIN { print (b > 0 ? a / b : 0) }')"
  done
done
rm -rf "$work"
