#!/usr/bin/env bash
# The Docker engine the `docker` job executor and its tests run on (docs/executor.md "Docker"):
# installs Debian's docker.io and docker-registry when missing, starts dockerd (no bridge, no
# iptables: this machine has no network to give containers, and steps get none) unless one answers
# on /var/run/docker.sock, starts a registry on 127.0.0.1:5000 only (loopback registries are
# trusted without TLS), and pushes a small test image there, 127.0.0.1:5000/platform/busybox:1,
# made with `docker import` of a root built here (busybox-static, its applet links, /etc/passwd
# with nobody): no registry outside this machine is reachable.
# Run as root; idempotent: a second run finds everything answering and does nothing. Nothing it
# leaves behind (pidfiles, logs, the registry's storage) stops a later run: a pidfile whose process
# is gone is removed, a daemon that started but never answered is killed before another starts.
set -euo pipefail

readonly registry_addr=127.0.0.1:5000
readonly test_image="$registry_addr/platform/busybox:1"
readonly dockerd_pidfile=/run/platform-gateway-dockerd.pid
readonly dockerd_log=/var/log/platform-gateway-dockerd.log
readonly registry_pidfile=/run/platform-gateway-docker-registry.pid
readonly registry_log=/var/log/platform-gateway-docker-registry.log
readonly registry_config=/etc/docker/registry/platform-gateway.yml
readonly registry_storage=/var/lib/docker-registry
readonly start_seconds=30

say() { echo "docker.sh: $*"; }
fail() {
  echo "docker.sh: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "run as root (it installs packages and starts dockerd)"

# --- packages ---------------------------------------------------------------------------------
missing=()
[ -x /usr/sbin/dockerd ] || missing+=(docker.io)
[ -x /usr/bin/docker-registry ] || missing+=(docker-registry)
[ -x /bin/busybox ] || missing+=(busybox-static)
if [ "${#missing[@]}" -gt 0 ]; then
  # The packages' own services must not start (docker-registry's would listen on every
  # interface, dockerd's would want a bridge): this script starts both itself.
  made_policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null
  [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
  say "installed ${missing[*]}"
fi

# Debian's client, whichever other `docker` comes first on PATH (it must speak dockerd's API).
docker() { /usr/bin/docker "$@"; }

# Whether process $1 is alive: a zombie (dead, its parent not reaping it) answers kill -0 but is gone.
alive() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# Whether the process a pidfile names is alive; a pidfile naming a dead one is removed.
pidfile_alive() {
  [ -f "$1" ] || return 1
  alive "$(cat "$1" 2>/dev/null || true)" && return 0
  rm -f "$1"
  return 1
}

# --- dockerd ----------------------------------------------------------------------------------
docker_answers() { timeout 5 /usr/bin/docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

if docker_answers; then
  :
else
  # One of ours that started but does not answer (half-started, wedged) is ended first.
  if pidfile_alive "$dockerd_pidfile"; then
    say "killing dockerd $(cat "$dockerd_pidfile"), which does not answer"
    kill "$(cat "$dockerd_pidfile")" 2>/dev/null || true
    for _ in $(seq 50); do pidfile_alive "$dockerd_pidfile" || break; sleep 0.1; done
    if pidfile_alive "$dockerd_pidfile"; then kill -9 "$(cat "$dockerd_pidfile")" || true; fi
    rm -f "$dockerd_pidfile"
  fi
  # A socket left by a dead daemon would be taken for a live one by the clients; the containerd
  # dockerd started, when it died with it (even as a zombie not yet reaped), would be waited for.
  rm -f /var/run/docker.sock
  pidfile_alive /var/run/docker/containerd/containerd.pid || true
  mkdir -p "$(dirname "$dockerd_log")"
  setsid /usr/sbin/dockerd \
    --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
    --pidfile "$dockerd_pidfile" \
    --host unix:///var/run/docker.sock \
    >>"$dockerd_log" 2>&1 </dev/null &
  dockerd_pid=$!
  for _ in $(seq $((start_seconds * 5))); do
    docker_answers && break
    alive "$dockerd_pid" || break
    sleep 0.2
  done
  if ! docker_answers; then
    if alive "$dockerd_pid"; then
      kill "$dockerd_pid" 2>/dev/null || true
      why="did not answer within ${start_seconds} s"
    else
      why="exited without answering"
    fi
    echo "docker.sh: dockerd cannot start here: it $why; the end of $dockerd_log:" >&2
    tail -n 20 "$dockerd_log" >&2 || true
    exit 1
  fi
  say "started dockerd (pid $dockerd_pid, log $dockerd_log)"
fi

# --- the loopback registry --------------------------------------------------------------------
registry_answers() {
  curl -fsS --max-time 3 -o /dev/null -D - "http://$registry_addr/v2/" 2>/dev/null |
    grep -qi '^docker-distribution-api-version'
}

if ! registry_answers; then
  if pidfile_alive "$registry_pidfile"; then
    kill "$(cat "$registry_pidfile")" 2>/dev/null || true
    rm -f "$registry_pidfile"
  fi
  mkdir -p "$(dirname "$registry_config")" "$registry_storage"
  cat >"$registry_config" <<EOF
# Written by platform-gateway's scripts/job-engines/docker.sh: the loopback registry images are
# pulled from by name in tests (never reachable from another machine).
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $registry_storage
  delete:
    enabled: true
http:
  addr: $registry_addr
EOF
  setsid /usr/bin/docker-registry serve "$registry_config" >>"$registry_log" 2>&1 </dev/null &
  echo $! >"$registry_pidfile"
  for _ in $(seq 50); do
    registry_answers && break
    pidfile_alive "$registry_pidfile" || break
    sleep 0.2
  done
  if ! registry_answers; then
    echo "docker.sh: docker-registry did not answer on $registry_addr; the end of $registry_log:" >&2
    tail -n 20 "$registry_log" >&2 || true
    exit 1
  fi
  say "started docker-registry on $registry_addr (pid $(cat "$registry_pidfile"), storage $registry_storage)"
fi

# --- the test image ---------------------------------------------------------------------------
image_in_registry() {
  curl -fsS --max-time 3 -o /dev/null \
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
    "http://$registry_addr/v2/platform/busybox/manifests/1" 2>/dev/null
}

if ! image_in_registry; then
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
  mkdir -p "$root"/{bin,etc,tmp,work}
  chmod 1777 "$root/tmp"
  cp /bin/busybox "$root/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
    >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
    docker import --change 'ENV PATH=/bin' --change 'CMD ["/bin/sh"]' - "$test_image" >/dev/null
  docker push "$test_image" >/dev/null
  say "pushed $test_image"
fi
