#!/usr/bin/env bash
# Starts and stops a private, throw-away Slurm cluster on this machine: one munged (with a key of
# its own), one slurmctld and one slurmd, everything (key, slurm.conf, state, spool, logs, pid files,
# sockets) inside DIR. Nothing under /etc/slurm or /etc/munge is read or written and no system
# service is touched, so it runs beside a system munged/Slurm if there is one.
#
#   scripts/slurm-local.sh start DIR   # installs slurm-wlm and munge when missing, starts, waits for the node
#   . DIR/env.sh                       # SLURM_CONF=DIR/slurm.conf for srun, sinfo, squeue, scancel
#   srun --overcommit -n 3 CMD ...     # three tasks on the one node (SLURM_PROCID 0..2, SLURM_NTASKS=3)
#   scripts/slurm-local.sh stop DIR    # kills what start started (by its pid files) and removes DIR
#
# stop is safe to call twice and after a start that failed halfway. The daemons run as the user
# that runs this script (root on the project's machines).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
[ -n "$2" ] || usage
DIR=$(realpath -m -- "$2")
# A marker that says DIR is ours: stop removes only such a directory (or an empty one).
MARK="$DIR/.slurm-local"
case "$DIR" in
  / | /tmp | /root | /home | /etc | /usr | /var) echo "slurm-local: refusing DIR=$DIR" >&2; exit 2 ;;
esac

log() { echo "slurm-local: $*" >&2; }

# The pid in pid file $1 if it is alive and really one of ours: its command line names DIR (every
# daemon is started with a path inside DIR), so a pid reused by another process is never killed.
our_pid() {
  local f=$1 pid
  [ -f "$f" ] || return 1
  pid=$(tr -dc '0-9' <"$f" 2>/dev/null || true)
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DIR/" || return 1
  echo "$pid"
}

# True when pid file $1 names no live process of ours twice, 0.2 s apart: a daemon rewrites the
# file spawn wrote (SlurmctldPidFile, SlurmdPidFile), and a read between its truncation and its
# write finds it empty (seen once in CI: "slurmctld exited" with the daemon just starting).
gone() {
  our_pid "$1" >/dev/null && return 1
  sleep 0.2
  ! our_pid "$1" >/dev/null
}

# True while pid $1 exists and is not a zombie (a zombie is dead, only not yet reaped).
alive() {
  local st
  st=$(sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}

# Pids that stop signalled; it waits for them to be reaped before it returns.
SIGNALLED=()

# SIGTERM the pids given, then SIGKILL those still alive after ~5 s.
terminate() {
  local pid i left
  [ $# -gt 0 ] || return 0
  SIGNALLED+=("$@")
  kill -TERM "$@" 2>/dev/null || true
  for i in $(seq 50); do
    left=0
    for pid in "$@"; do alive "$pid" && left=1; done
    [ $left -eq 0 ] && return 0
    sleep 0.1
  done
  for pid in "$@"; do alive "$pid" && kill -KILL "$pid" 2>/dev/null || true; done
}

# The daemons are orphans (start has exited), so init reaps them, and not at once: in a gVisor
# sandbox it took ~1.5 s, during which `pgrep slurmd` still lists a <defunct> slurmd. Wait (at most
# ~5 s) until they are gone, so that a caller checking with pgrep right after stop sees nothing.
await_reaped() {
  local pid i left
  [ ${#SIGNALLED[@]} -gt 0 ] || return 0
  for i in $(seq 50); do
    left=0
    for pid in "${SIGNALLED[@]}"; do
      if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
      [ -e "/proc/$pid" ] && left=1
    done
    [ $left -eq 0 ] && return 0
    sleep 0.1
  done
}

# slurmstepd processes (one per running job step) daemonize away from slurmd and would outlive it:
# ours are the ones holding a file open inside DIR (slurmd's log, the step's socket in the spool).
our_stepds() {
  local p fd
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
    for fd in "$p"/fd/*; do
      case "$(readlink "$fd" 2>/dev/null)" in
        "$DIR"/*) echo "${p#/proc/}"; break ;;
      esac
    done
  done
}

stop_daemons() {
  local pid
  # Cancel jobs first so that slurmd ends their steps itself (bounded: slurmctld may be gone).
  if [ -f "$DIR/slurm.conf" ] && our_pid "$DIR/run/slurmctld.pid" >/dev/null; then
    SLURM_CONF="$DIR/slurm.conf" timeout 5 scancel --quiet --user="$(id -un)" >/dev/null 2>&1 || true
  fi
  # slurmd first, then the steps it leaves, then slurmctld and munged together.
  if pid=$(our_pid "$DIR/run/slurmd.pid"); then terminate "$pid"; fi
  # shellcheck disable=SC2046
  terminate $(our_stepds)
  local rest=()
  if pid=$(our_pid "$DIR/run/slurmctld.pid"); then rest+=("$pid"); fi
  if pid=$(our_pid "$DIR/run/munged.pid"); then rest+=("$pid"); fi
  terminate ${rest[@]+"${rest[@]}"}
  await_reaped
}

stop() {
  [ -e "$DIR" ] || return 0
  stop_daemons
  if [ -e "$MARK" ]; then
    rm -rf -- "$DIR"
  elif [ -d "$DIR" ] && [ -z "$(ls -A "$DIR")" ]; then
    rmdir -- "$DIR"
  else
    log "not removing $DIR: it was not made by slurm-local.sh start"
    return 1
  fi
}

# Two distinct free TCP ports, chosen by the kernel (bind to port 0, both held at once so they
# differ). Without python3: random ports that no socket in /proc/net/tcp* uses.
free_ports() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("", 0))
print(*(s.getsockname()[1] for s in ss))'
    return
  fi
  local used p out=()
  # Local ports there are in hex (mawk has no strtonum, so compare in hex).
  used=$(awk 'NR > 1 { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || true)
  while [ ${#out[@]} -lt 2 ]; do
    p=$((20000 + RANDOM % 40000))
    grep -qx "$(printf '%04X' "$p")" <<<"$used" || [[ " ${out[*]-} " == *" $p "* ]] || out+=("$p")
  done
  echo "${out[@]}"
}

# The last lines of each log. slurmctld and slurmd in the foreground write their log to stderr
# (NAME.out) as well as to NAME.log: a .out is shown only when the .log is missing or empty, as
# after a failure before the daemon opened its log (a bad slurm.conf, say).
tail_logs() {
  local f
  for f in "$DIR"/log/*; do
    [ -s "$f" ] || continue
    case "${f##*/}" in slurm*.out) [ -s "${f%.out}.log" ] && continue ;; esac
    echo "----- last lines of $f" >&2
    tail -n 20 "$f" >&2
  done
}

fail() {
  log "$*"
  tail_logs
  stop_daemons
  log "logs left in $DIR (remove with: $0 stop $DIR)"
  exit 1
}

# Runs a daemon detached: its own session (a Ctrl-C or a harness killing the caller's process group
# does not reach it; stop does), no inherited stdin/stdout/stderr (a caller reading start's output
# through a pipe is not held open), its pid recorded in run/NAME.pid. Without job control `setsid`
# execs in place, so $! is the daemon's own pid.
spawn() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$DIR/log/$name.out" 2>&1 &
  echo $! >"$DIR/run/$name.pid"
}

start() {
  local missing=() b
  for b in slurmctld slurmd munged srun sinfo mungekey; do
    command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || missing+=("$b")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing slurm-wlm and munge (missing: ${missing[*]})"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
  fi
  # The daemons live in /usr/sbin, which a non-login PATH may lack.
  PATH="$PATH:/usr/sbin:/sbin"

  if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
    if [ -e "$MARK" ]; then
      log "$DIR holds a cluster already: run '$0 stop $DIR' first"
    else
      log "$DIR exists and is not empty"
    fi
    exit 1
  fi
  # Unix socket paths are limited to 108 bytes; slurmd's step sockets sit in DIR/spool.
  if [ ${#DIR} -gt 80 ]; then log "DIR is too long for unix socket paths: $DIR"; exit 1; fi
  # slurm.conf has no quoting for paths.
  case "$DIR" in *[[:space:]]* | *'#'* | *,* | *=*) log "DIR must not hold spaces, '#', ',' or '=': $DIR"; exit 1 ;; esac

  # munged refuses group/other-writable directories on the path to its key, socket and logs
  # (a sticky one such as /tmp is accepted), hence 0755 and 0700.
  mkdir -p -m 0755 "$DIR"
  chmod 0755 "$DIR"
  touch "$MARK"
  mkdir -m 0700 "$DIR/munge"
  mkdir -m 0755 "$DIR/log" "$DIR/run" "$DIR/state" "$DIR/spool"

  local user host cpus ports ctld_port slurmd_port
  user=$(id -un)
  host=$(hostname -s)
  cpus=$(nproc)
  ports=$(free_ports) || fail "could not pick free ports (python3 needed)"
  read -r ctld_port slurmd_port <<<"$ports"

  # --- munge: a key of our own, on a socket of our own, so a system munged is neither used nor
  # disturbed. munged insists the key is owned by the user it runs as and readable by no one else.
  mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
  chown "$user" "$DIR/munge/munge.key"
  chmod 0400 "$DIR/munge/munge.key"
  # In the foreground munged logs to stderr (log/munged.out); --log-file is given all the same.
  # Its own pid file is not run/munged.pid: munged rewrites it as it starts, and the wait below
  # would read it half-written and take munged for dead.
  spawn munged munged --foreground \
    --socket="$DIR/munge.socket" \
    --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/munge/munged.pid" \
    --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed"
  local i ok=0
  for i in $(seq 100); do
    if munge -n -S "$DIR/munge.socket" 2>/dev/null | unmunge -S "$DIR/munge.socket" >/dev/null 2>&1; then
      ok=1
      break
    fi
    our_pid "$DIR/run/munged.pid" >/dev/null || break
    sleep 0.1
  done
  [ $ok -eq 1 ] || fail "munged did not come up on $DIR/munge.socket"

  # --- slurm.conf. Every path points inside DIR; Slurm also looks for its other optional files
  # (cgroup.conf, gres.conf, plugstack.conf, ...) beside slurm.conf, i.e. in DIR, not in /etc/slurm.
  cat >"$DIR/slurm.conf" <<EOF
# Written by scripts/slurm-local.sh: a private one-node cluster, removed by 'slurm-local.sh stop'.
ClusterName=local
# 127.0.0.1 explicitly, so nothing depends on how the host name resolves.
SlurmctldHost=$host(127.0.0.1)
# Ports the kernel reported free, so that several clusters (or a system Slurm) can coexist.
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
# Our own munged: AuthInfo's socket is used by both auth/munge and cred/munge.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: linuxproc tracks a step's processes through /proc parentage and task/none binds
# nothing, so neither needs cgroup.conf nor a writable cgroup hierarchy (containers lack one).
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# Allocate by CPU; with --overcommit a job takes one CPU, so -n 3 fits a 2-CPU machine.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Trust this file rather than the hardware slurmd detects (a VM or container may report sockets,
# cores or memory that would otherwise drain the node as "config differs from hardware").
SlurmdParameters=config_overrides
# A node that went down (e.g. slurmd restarted) comes back by itself once it registers.
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# /usr/bin/mail is usually absent; nothing here sends mail.
MailProg=/bin/true
# srun need not keep pinging slurmctld; short waits so that stop and cancelled steps end quickly.
InactiveLimit=0
KillWait=5
MinJobAge=30
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=1000 State=UNKNOWN
# OverSubscribe=FORCE:8: up to 8 jobs share each CPU, so concurrent sruns (tests run in parallel)
# run side by side instead of queueing behind each other ("job queued and waiting for resources").
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF

  cat >"$DIR/env.sh" <<EOF
# Source this to use the cluster in $DIR with srun, sinfo, squeue, scancel.
export SLURM_CONF=$DIR/slurm.conf
EOF

  # -D: stay in the foreground so the pid recorded by spawn is the daemon's; -f: our slurm.conf
  # (this also puts DIR on the command line, which is how stop recognises the processes).
  spawn slurmctld slurmctld -D -f "$DIR/slurm.conf"
  spawn slurmd slurmd -D -f "$DIR/slurm.conf" -N "$host"

  local state="" deadline=$((SECONDS + 30))
  while [ $SECONDS -lt $deadline ]; do
    gone "$DIR/run/slurmctld.pid" && fail "slurmctld exited"
    gone "$DIR/run/slurmd.pid" && fail "slurmd exited"
    state=$(SLURM_CONF="$DIR/slurm.conf" timeout 5 sinfo -h -N -n "$host" -o '%t' 2>/dev/null || true)
    case "$state" in idle | mix | alloc) break ;; esac
    sleep 0.1
  done
  case "$state" in
    idle | mix | alloc) ;;
    *) fail "node $host not idle after 30 s (state: ${state:-none})" ;;
  esac
  echo "slurm-local: cluster up in $DIR (node $host, $cpus CPUs, slurmctld port $ctld_port); use: . $DIR/env.sh"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
