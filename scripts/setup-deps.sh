#!/usr/bin/env bash
# Installs the Debian packages of scripts/deps.txt that are missing, and nothing else. Idempotent: when
# everything is there it only says so (no apt-get, no network). Runs apt-get as root, or through sudo.
# Called by run-default.sh and test.sh; COLOCSIM_DEPS=FILE reads another list (used to test this script).
# Starts no system service: some packages (mariadb-server, slurmdbd, munge, slurm-wlm, for the tests that start
# private instances of them in a temporary directory) would enable and start system-wide daemons on
# installation; while apt-get runs, Debian's /usr/sbin/policy-rc.d hook (invoke-rc.d(8)) refuses every start,
# as in container images, unless the machine already has such a hook, which is then left as it is.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
deps="${COLOCSIM_DEPS:-$here/deps.txt}"

if ! command -v dpkg-query >/dev/null; then
  echo "colocsim: dpkg-query not found: this script installs Debian 12 packages; install the packages of" >&2
  echo "          $deps with your system's package manager, then run cmake yourself (README.md)" >&2
  exit 1
fi

missing=()
wanted=0
while IFS= read -r line || [[ -n "$line" ]]; do
  pkg="${line%%#*}"           # drop comments
  pkg="${pkg//[[:space:]]/}"  # and blanks
  [[ -z "$pkg" ]] && continue
  wanted=$((wanted + 1))
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done < "$deps"

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "colocsim: all $wanted packages of $deps are installed"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "colocsim: not root and no sudo: cannot install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
# env: sudo resets the environment, and apt must never prompt (CI has no stdin).
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
echo "colocsim: installing the missing packages: ${missing[*]}"
echo "+ ${apt[*]} update -q"
"${apt[@]}" update -q
hook="${COLOCSIM_POLICY_RC_D:-/usr/sbin/policy-rc.d}" # the variable: for tests/sim/SetupDeps.sh only
if [[ ! -e "$hook" ]]; then
  printf '#!/bin/sh\n# colocsim scripts/setup-deps.sh: no service starts while it installs packages\nexit 101\n' |
    "${sudo[@]}" tee "$hook" >/dev/null
  "${sudo[@]}" chmod 755 "$hook"
  trap '"${sudo[@]}" rm -f "$hook"' EXIT
  echo "colocsim: $hook refuses service starts until the installation ends"
fi
echo "+ ${apt[*]} install -y -q --no-install-recommends ${missing[*]}"
"${apt[@]}" install -y -q --no-install-recommends "${missing[@]}"
