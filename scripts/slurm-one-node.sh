#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, in a directory of its own: munge
# with a fresh key, slurmctld and slurmd (Debian's slurmctld, slurmd,
# slurm-client and munge; `scripts/install-deps.sh` installs them for the
# tests). Nothing under /etc is read or written, so it runs beside a real
# Slurm and is removed with its directory. The Slurm test
# (tests/integration/slurm_training_test.cc) and docs/clusters.md use it.
#
# Usage (as root):
#   scripts/slurm-one-node.sh start DIR [SLOTS]   # prints SLURM_CONF=DIR/slurm.conf
#   SLURM_CONF=DIR/slurm.conf srun -n 3 ...
#   scripts/slurm-one-node.sh stop DIR
# SLOTS (default 8) task slots: more than the cores, as the tests run more
# tasks than a small machine has cores. Exits 2, saying why, where Slurm
# cannot run (not root, a package missing, a daemon that did not start).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR [SLOTS]" >&2; exit 64; }
[ $# -ge 2 ] || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
slots=${3:-8}

cannot() { echo "slurm-one-node: cannot start Slurm here: $*" >&2; exit 2; }

# A port nothing listens on now (20000-39999, below Linux's ephemeral range).
free_port() {
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  cannot "no free port found"
}

stop() {
  if [ -f "$dir/slurm.conf" ]; then
    SLURM_CONF="$dir/slurm.conf" timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  fi
  for pidfile in slurmd.pid slurmctld.pid munge/munged.pid; do
    if [ -f "$dir/$pidfile" ]; then
      kill "$(cat "$dir/$pidfile")" 2>/dev/null || true
    fi
  done
  # Daemons get up to 5 s to go; then they are killed, so nothing outlives stop.
  for _ in $(seq 50); do
    alive=0
    for pidfile in slurmd.pid slurmctld.pid munge/munged.pid; do
      if [ -f "$dir/$pidfile" ] && kill -0 "$(cat "$dir/$pidfile")" 2>/dev/null; then alive=1; fi
    done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  for pidfile in slurmd.pid slurmctld.pid munge/munged.pid; do
    [ -f "$dir/$pidfile" ] && kill -9 "$(cat "$dir/$pidfile")" 2>/dev/null || true
  done
}

start() {
  [ "$(id -u)" -eq 0 ] || cannot "the daemons run as root here; run as root"
  for tool in munged slurmctld slurmd srun sinfo scontrol; do
    command -v "$tool" >/dev/null 2>&1 ||
      cannot "$tool is missing (apt install munge slurmctld slurmd slurm-client)"
  done
  stop  # whatever an earlier start in this directory left
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
  chmod 700 "$dir/munge"
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/seed" ||
    cannot "munged did not start: $(tail -n 3 "$dir/log/munged.log" 2>/dev/null)"

  local ctld_port slurmd_port
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  # linuxproc and task/none: no cgroups, which containers often lack;
  # config_overrides: the node may offer more slots than it has cores.
  cat > "$dir/slurm.conf" <<EOF
ClusterName=actorflow
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$slots State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" -i ||
    cannot "slurmctld did not start: $(tail -n 3 "$dir/log/slurmctld.log" 2>/dev/null)"
  slurmd -f "$SLURM_CONF" -N localhost ||
    cannot "slurmd did not start: $(tail -n 3 "$dir/log/slurmd.log" 2>/dev/null)"
  # The node registers within a second or two; 30 s is the deadline.
  for _ in $(seq 150); do
    if [ "$(timeout 5 sinfo -h -N -o %t 2>/dev/null)" = idle ]; then
      echo "SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.2
  done
  local why
  why=$(timeout 5 sinfo -h -N -o '%t %E' 2>&1 || true)
  stop
  cannot "the node did not become idle within 30 s ($why); logs in $dir/log"
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
