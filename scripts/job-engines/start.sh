#!/usr/bin/env bash
# The job engines the executor's tests run on (issue 44, docs/executor.md, docs/slurm.md): a Docker
# engine with a registry on loopback, and a one-node Slurm cluster. Installs what is missing and
# starts what is not running; a second run is a quick no-op. CI calls it before the tests (as root);
# a developer runs `sudo bash scripts/job-engines/start.sh` to run those tests locally.
set -euo pipefail
here="$(dirname "$0")"
bash "$here/docker.sh"
bash "$here/slurm.sh"
