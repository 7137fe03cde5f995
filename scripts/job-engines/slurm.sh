#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm engine (JOB_EXECUTOR=slurm, docs/slurm.md)
# and its tests: installs Debian's slurm-wlm, munge and slurmdbd when missing, writes slurm.conf for
# this host (its short name, its CPUs and memory as slurmd sees them), keeps accounting in slurmdbd
# on the local MariaDB (sacct: finished jobs' CPU time), starts munged, slurmdbd, slurmctld and
# slurmd unless they already answer, and waits (bounded) for the node to be idle. Run as root;
# idempotent: a second run finds everything answering and only checks. Exits non-zero, saying why,
# when Slurm cannot start.
set -euo pipefail

say() { echo "slurm.sh: $*"; }
fail() {
  echo "slurm.sh: $*" >&2
  for log in /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log /var/log/slurm/slurmdbd.log; do
    [ -f "$log" ] && { echo "--- last lines of $log" >&2; tail -n 15 "$log" >&2; }
  done
  exit 1
}
[ "$(id -u)" = 0 ] || fail "must run as root"

conf_dir=/etc/slurm
log_dir=/var/log/slurm
state_dir=/var/lib/slurm/slurmctld
spool_dir=/var/lib/slurm/slurmd
cluster=gateway
# The database slurmdbd keeps jobs in, and its own MariaDB user (local only).
db_name=slurm_acct_db
db_user=slurm
db_pass=slurm-local-accounting

# --- packages -------------------------------------------------------------------------------
missing=()
for program in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge slurmdbd:slurmdbd; do
  command -v "${program%%:*}" >/dev/null 2>&1 || missing+=("${program##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} slurm-wlm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends \
    slurm-wlm "${missing[@]}" >/dev/null ||
    { apt-get update -q >/dev/null && apt-get install -y -q -o DPkg::Lock::Timeout=300 \
      --no-install-recommends slurm-wlm "${missing[@]}" >/dev/null; } ||
    fail "could not install ${missing[*]}"
fi

# --- munge ----------------------------------------------------------------------------------
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
  say "making the munge key"
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  runuser -u munge -- munged --force || fail "munged did not start"
  for _ in $(seq 50); do munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n </dev/null | unmunge >/dev/null 2>&1 || fail "munged does not answer"
fi

# --- configuration --------------------------------------------------------------------------
host=$(hostname -s)
# This host as slurmd sees it (CPUs, sockets, cores, memory): a node configured with more than it
# has would be drained.
node_line=$(slurmd -C | head -n 1)
case "$node_line" in NodeName=*) ;; *) fail "slurmd -C did not describe this host: $node_line" ;; esac
node_hw=${node_line#NodeName=* }
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node_line")
# A small second partition: at most 1 CPU, 256 MiB, 2 minutes per job (an over-the-limit
# submission is refused at once: EnforcePartLimits=ALL).
mkdir -p "$conf_dir" "$log_dir" "$state_dir" "$spool_dir"
chown slurm:slurm "$log_dir" "$state_dir"
conf=$(cat <<CONF
# Written by scripts/job-engines/slurm.sh (a one-node cluster for the gateway's Slurm engine).
ClusterName=$cluster
SlurmctldHost=$host(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state_dir
SlurmdSpoolDir=$spool_dir
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups here: processes are tracked by parentage, and limits are held by the step's own
# sandbox (the local engine on the node).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
# Scheduling: a job starts within about a second of its submission.
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,sched_min_interval=0,bf_interval=1,batch_sched_delay=0,default_queue_depth=100
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=256
# A submission over its partition's limits is refused by sbatch, not left pending.
EnforcePartLimits=ALL
# Finished jobs stay known to scontrol for an hour; sacct knows them always.
MinJobAge=3600
KillWait=2
SlurmdTimeout=60
InactiveLimit=0
Waittime=0
# Accounting: sacct through slurmdbd; CPU time of each job's processes, sampled every second.
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
# Only accounts slurmdbd knows may be charged (an unknown SLURM_ACCOUNT is refused at submission).
AccountingStorageEnforce=associations
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 $node_hw State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=1-00:00:00 OverSubscribe=FORCE:8 State=UP
PartitionName=small Nodes=$host MaxTime=00:02:00 MaxCPUsPerNode=1 MaxMemPerNode=256 State=UP
CONF
)
dbd_conf=$(cat <<CONF
# Written by scripts/job-engines/slurm.sh: accounting for the one-node cluster, on the local MariaDB.
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
SlurmUser=slurm
PidFile=/run/slurmdbd.pid
LogFile=$log_dir/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3306
StorageUser=$db_user
StoragePass=$db_pass
StorageLoc=$db_name
CONF
)
# Rewritten only when different, so that a second run leaves running daemons alone.
changed=0
if [ "$(cat "$conf_dir/slurm.conf" 2>/dev/null)" != "$conf" ]; then
  printf '%s\n' "$conf" >"$conf_dir/slurm.conf"
  changed=1
fi
if [ "$(cat "$conf_dir/slurmdbd.conf" 2>/dev/null)" != "$dbd_conf" ]; then
  printf '%s\n' "$dbd_conf" >"$conf_dir/slurmdbd.conf"
  changed=1
fi
chmod 0644 "$conf_dir/slurm.conf"
chown slurm:slurm "$conf_dir/slurmdbd.conf"
chmod 0600 "$conf_dir/slurmdbd.conf"

# --- accounting: slurmdbd on MariaDB ----------------------------------------------------------
if ! mariadb -h 127.0.0.1 -u root -e 'SELECT 1' >/dev/null 2>&1; then
  fail "MariaDB does not answer at 127.0.0.1:3306 (root, no password): slurmdbd keeps its jobs there"
fi
mariadb -h 127.0.0.1 -u root <<SQL || fail "could not make slurmdbd's database and user in MariaDB"
CREATE DATABASE IF NOT EXISTS $db_name;
CREATE USER IF NOT EXISTS '$db_user'@'localhost' IDENTIFIED BY '$db_pass';
CREATE USER IF NOT EXISTS '$db_user'@'127.0.0.1' IDENTIFIED BY '$db_pass';
GRANT ALL ON $db_name.* TO '$db_user'@'localhost';
GRANT ALL ON $db_name.* TO '$db_user'@'127.0.0.1';
SQL

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
restart() { # pidfile: ends the daemon (its configuration changed), waiting for it to go
  running "$1" || return 0
  kill "$(cat "$1")"
  for _ in $(seq 100); do running "$1" || return 0; sleep 0.1; done
  fail "$(basename "$1" .pid) did not stop"
}
if [ "$changed" = 1 ]; then
  say "configuration written: $conf_dir/slurm.conf"
  restart /run/slurmd.pid
  restart /run/slurmctld.pid
  restart /run/slurmdbd.pid
fi

dbd_up() { sacctmgr -n -P show cluster format=cluster >/dev/null 2>&1; }
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
# ensure NAME PIDFILE CHECK: starts daemon NAME unless CHECK answers. One whose pid file names a
# live process is given a few seconds first (still starting, or stopping), then restarted; a stale
# pid file (the process gone, as after a machine's restart) is just replaced.
ensure() {
  local name=$1 pidfile=$2 check=$3
  "$check" && return 0
  if running "$pidfile"; then
    for _ in $(seq 50); do "$check" && return 0; running "$pidfile" || break; sleep 0.2; done
    restart "$pidfile"
  fi
  say "starting $name"
  "$name" || fail "$name did not start"
  for _ in $(seq 150); do "$check" && return 0; sleep 0.2; done
  fail "$name does not answer after 30 s"
}

ensure slurmdbd /run/slurmdbd.pid dbd_up
if ! sacctmgr -n -P show cluster format=cluster | grep -qx "$cluster"; then
  sacctmgr -i add cluster "$cluster" >/dev/null || fail "could not add the cluster to slurmdbd"
fi
# The accounts jobs are charged to: `platform` (root's default, so the gateway running as root
# needs no SLURM_ACCOUNT) and `research`, each with root as a user.
for account in platform research; do
  if ! sacctmgr -n -P show account "$account" format=account | grep -qx "$account"; then
    sacctmgr -i add account "$account" cluster="$cluster" Description="$account" Organization=gateway >/dev/null ||
      fail "could not add the account $account"
  fi
done
if ! sacctmgr -n -P show assoc cluster="$cluster" user=root format=account | grep -qx research; then
  sacctmgr -i add user root account=platform,research defaultaccount=platform cluster="$cluster" >/dev/null ||
    fail "could not make root a user of the platform and research accounts"
fi

# --- slurmctld and slurmd --------------------------------------------------------------------
ensure slurmctld /run/slurmctld.pid ctld_up
if ! running /run/slurmd.pid; then
  say "starting slurmd"
  slurmd || fail "slurmd did not start"
fi

# A node left down or drained by an earlier run (a restart, say) is put back.
state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null | head -n 1 || true)
case "$state" in
  down* | drain* | fail*) scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
esac
for _ in $(seq 150); do
  state=$(sinfo -h -n "$host" -o '%T' 2>/dev/null | head -n 1 || true)
  case "$state" in idle* | mixed* | allocated*) break ;; esac
  sleep 0.2
done
case "$state" in
  idle* | mixed* | allocated*) say "node $host is $state; partitions: $(sinfo -h -o '%P' | tr '\n' ' ')" ;;
  *) fail "node $host is not ready after 30 s (sinfo says: ${state:-nothing})" ;;
esac
