#!/bin/bash
# scripts/setup-deps.sh on stand-ins (no package is installed, no system file is touched): a list naming a
# package that is not installed, an apt-get on PATH that records what it was asked and, on `install`, runs
# the policy-rc.d hook as invoke-rc.d would before starting a service. Checks:
#   1. nothing missing: no apt-get at all;
#   2. something missing, no hook on the machine: apt-get update then install --no-install-recommends of
#      exactly the missing package, the hook refuses service starts (exit 101) during the installation and
#      is gone afterwards;
#   3. a hook already there: left exactly as it was.
set -u
SCRIPT=$1
WORK=$2
rm -rf "$WORK" && mkdir -p "$WORK/bin" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cat >"$WORK/bin/apt-get" <<STUB
#!/bin/bash
echo "apt-get \$*" >>"$WORK/apt.log"
if [[ "\$1" == install ]]; then
  if [[ -x "\$COLOCSIM_POLICY_RC_D" ]]; then "\$COLOCSIM_POLICY_RC_D" mariadb start; echo "hook exit \$?" >>"$WORK/apt.log"
  else echo "no hook" >>"$WORK/apt.log"; fi
fi
STUB
chmod +x "$WORK/bin/apt-get"
export PATH="$WORK/bin:$PATH" COLOCSIM_POLICY_RC_D="$WORK/policy-rc.d"
[[ $(id -u) -eq 0 ]] || { echo "SETUP-DEPS-SKIPPED: not root (the script would call sudo)"; exit 0; }

# 1. dpkg-query sees bash installed: nothing to do
printf 'bash # a comment\n\n' >"$WORK/have.txt"
COLOCSIM_DEPS="$WORK/have.txt" "$SCRIPT" >"$WORK/out1" 2>&1 || fail "1: exit $?"
[[ ! -e "$WORK/apt.log" ]] || fail "1: apt-get ran: $(cat "$WORK/apt.log")"
grep -q "all 1 packages" "$WORK/out1" || fail "1: $(cat "$WORK/out1")"

# 2. a missing package, no hook
printf 'bash\ncolocsim-no-such-package-xyz\n' >"$WORK/miss.txt"
COLOCSIM_DEPS="$WORK/miss.txt" "$SCRIPT" >"$WORK/out2" 2>&1 || fail "2: exit $?"
want="apt-get update -q
apt-get install -y -q --no-install-recommends colocsim-no-such-package-xyz
hook exit 101"
[[ "$(cat "$WORK/apt.log")" == "$want" ]] || fail "2: apt-get saw: $(cat "$WORK/apt.log")"
[[ ! -e "$COLOCSIM_POLICY_RC_D" ]] || fail "2: the hook was left behind"

# 3. a hook of the machine's own: kept byte for byte, and it is the one that answers
rm -f "$WORK/apt.log"
printf '#!/bin/sh\nexit 0\n' >"$COLOCSIM_POLICY_RC_D" && chmod 755 "$COLOCSIM_POLICY_RC_D"
cp "$COLOCSIM_POLICY_RC_D" "$WORK/hook.orig"
COLOCSIM_DEPS="$WORK/miss.txt" "$SCRIPT" >"$WORK/out3" 2>&1 || fail "3: exit $?"
cmp -s "$COLOCSIM_POLICY_RC_D" "$WORK/hook.orig" || fail "3: the machine's hook changed"
grep -q "hook exit 0" "$WORK/apt.log" || fail "3: apt-get saw: $(cat "$WORK/apt.log")"

[[ $fails -eq 0 ]] && echo "setup-deps: all checks passed"
exit $((fails > 0))
