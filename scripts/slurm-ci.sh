#!/usr/bin/env bash
# A one-node Slurm cluster on localhost running a real job-array sweep (docs/sweep.md):
# installs slurm-wlm and munge if missing (Debian, needs root or sudo), creates a munge key,
# starts munged, slurmctld and slurmd with a generated minimal slurm.conf (no cgroups, no
# accounting), submits `netoffload sweep SPEC --slurm` (an array of --shards tasks and a merge job
# after them), waits for both, checks every job completed, then runs the same sweep locally and
# compares the merged results with the local ones byte for byte (JSON Lines and CSV).
# Prints the daemons' and jobs' logs on any failure; stops what it started on exit.
#
# Usage: scripts/slurm-ci.sh [SPEC] [SHARDS]   (default experiments/sweep/examples/ring.json 3)
# Environment: SLURM_CI_TIMEOUT seconds to wait for the jobs (default 600); SLURM_CI_DIR work
# directory (default a new one under /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SPEC=${1:-experiments/sweep/examples/ring.json}
SHARDS=${2:-3}
TIMEOUT=${SLURM_CI_TIMEOUT:-600}
t0=$(date +%s)

SUDO=""; [ "$(id -u)" = "0" ] || SUDO=sudo
as_root() { $SUDO "$@"; }

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  echo "slurm-ci: installing slurm-wlm and munge"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null
fi

WORK=${SLURM_CI_DIR:-$(mktemp -d /tmp/netoffload-slurm-ci.XXXXXX)}
mkdir -p "$WORK/state" "$WORK/spool" "$WORK/sweep" "$WORK/local"
chmod 0755 "$WORK"
export SLURM_CONF="$WORK/slurm.conf"
started=()

show_logs() {
  echo "---- slurm-ci: failed after $(( $(date +%s) - t0 )) s; logs from $WORK ----"
  for f in "$WORK"/slurmctld.log "$WORK"/slurmd.log "$WORK"/munged.log "$WORK"/sweep/*.log; do
    [ -f "$f" ] || continue
    echo "==== $f (last 60 lines)"
    tail -n 60 "$f"
  done
  sinfo -N -l 2>&1 || true
  squeue -l 2>&1 || true
}
cleanup() {
  local code=$?
  [ "$code" = "0" ] || show_logs
  for pid in "${started[@]}"; do as_root kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${started[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = "0" ] && break
    sleep 0.1
  done
  exit "$code"
}
trap cleanup EXIT
fail() { echo "slurm-ci: FAIL: $*"; exit 1; }

# ---- munge: a key and the daemon (unless one already answers)
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  as_root mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [ ! -s /etc/munge/munge.key ]; then
    as_root dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  as_root chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
  as_root chmod 0400 /etc/munge/munge.key
  as_root chmod 0755 /run/munge
  as_root touch "$WORK/munged.log" && as_root chown munge:munge "$WORK/munged.log"
  as_root runuser -u munge -- /usr/sbin/munged --log-file="$WORK/munged.log" --pid-file=/run/munge/netoffload-ci.pid || as_root /usr/sbin/munged --force --log-file="$WORK/munged.log" --pid-file=/run/munge/netoffload-ci.pid
  for _ in $(seq 1 50); do [ -s /run/munge/netoffload-ci.pid ] && break; sleep 0.1; done
  [ -s /run/munge/netoffload-ci.pid ] && started+=("$(cat /run/munge/netoffload-ci.pid)")
  munge -n </dev/null | unmunge >/dev/null || fail "munged does not answer (munge -n | unmunge)"
fi
echo "slurm-ci: munge answers"

# ---- a minimal one-node cluster: no cgroups, no accounting
cat >"$SLURM_CONF" <<EOF
ClusterName=netoffload-ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SchedulerParameters=kill_invalid_depend
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

# (started directly, not through a shell function, so that $! is the daemon, or sudo, which passes the signal on)
$SUDO slurmctld -D -f "$SLURM_CONF" >>"$WORK/slurmctld.log" 2>&1 &
started+=("$!")
$SUDO slurmd -D -N localhost -f "$SLURM_CONF" >>"$WORK/slurmd.log" 2>&1 &
started+=("$!")

state=""
for i in $(seq 1 60); do
  state=$(sinfo -h -n localhost -o %t 2>/dev/null || true)
  case "$state" in
    idle*) break ;;
    down*|drain*) scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
case "$state" in idle*) ;; *) fail "node localhost not idle after 60 s (state '$state')" ;; esac
echo "slurm-ci: slurmctld and slurmd up, node localhost idle ($(( $(date +%s) - t0 )) s)"

# ---- the sweep as a job array and a merge job
OUT="$WORK/sweep/$(basename "$SPEC" .json).jsonl"
submitted=$(node cli/netoffload.js sweep "$SPEC" --slurm --shards "$SHARDS" --out "$OUT" --json)
echo "slurm-ci: $submitted"
array=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).array_job)' "$submitted")
merge=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).merge_job)' "$submitted")

deadline=$(( $(date +%s) + TIMEOUT ))
while [ -n "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ]; do
  if squeue -h -j "$merge" -o %r 2>/dev/null | grep -q DependencyNeverSatisfied; then scancel "$merge" || true; fail "an array task failed, so the merge job $merge will never run"; fi
  [ "$(date +%s)" -lt "$deadline" ] || { scancel "$array" "$merge" 2>/dev/null || true; fail "jobs $array and $merge not finished after $TIMEOUT s"; }
  sleep 2
done
# every array task and the merge job (scontrol prints one line per array task; MinJobAge keeps them)
jobs=$( { scontrol show job "$array" -o; scontrol show job "$merge" -o; } 2>&1 )
while IFS= read -r line; do
  j=$(sed -n 's/^JobId=\([0-9]*\) .*/\1/p' <<<"$line")
  t=$(sed -n 's/.* ArrayTaskId=\([0-9]*\) .*/\1/p' <<<"$line")
  js=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$line")
  ec=$(sed -n 's/.* ExitCode=\([0-9:]*\) .*/\1/p' <<<"$line")
  echo "slurm-ci: job $j${t:+ (array task $t)} $js, exit $ec"
  [ "$js" = "COMPLETED" ] || fail "job $j${t:+ (array task $t)} ended '$js' (exit $ec): $line"
done <<<"$jobs"
tasks=$(grep -c ' ArrayTaskId=' <<<"$jobs" || true)
[ "$tasks" = "$SHARDS" ] || fail "job array $array had $tasks tasks, expected $SHARDS"
[ -s "$OUT" ] || fail "the merge job wrote no $OUT"
echo "slurm-ci: $SHARDS array tasks and the merge done ($(( $(date +%s) - t0 )) s)"

# ---- the same sweep locally: the merged results must be the same bytes
LOCAL="$WORK/local/$(basename "$SPEC" .json).jsonl"
node cli/netoffload.js sweep "$SPEC" --out "$LOCAL" >/dev/null
cmp "$OUT" "$LOCAL" || fail "merged Slurm results $OUT differ from the local run $LOCAL"
cmp "${OUT%.jsonl}.csv" "${LOCAL%.jsonl}.csv" || fail "merged Slurm CSV differs from the local run's"
echo "slurm-ci: OK: $(wc -l <"$OUT") points from $SHARDS Slurm array tasks, merged = local run byte for byte (JSON Lines and CSV); took $(( $(date +%s) - t0 )) s"
