#!/usr/bin/env bash
# Installs the Debian packages of scripts/deps.txt that are missing (nothing else). Idempotent.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
missing=()
while read -r pkg; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done < "$here/deps.txt"
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "colocsim: all required packages are installed"
  exit 0
fi
echo "colocsim: installing missing packages: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "colocsim: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
# env: sudo resets the environment, and apt must never prompt (CI has no stdin).
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
