#!/usr/bin/env bash
# Optional machine packages for `npm run bench` (run as root, Debian): nginx-light for the nginx
# proxy_pass row, wrk for the full-load rows (autocannon in a child process is used without it).
set -euo pipefail
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v wrk >/dev/null || missing+=(wrk)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
