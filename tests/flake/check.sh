#!/usr/bin/env bash
# flake.nix must parse (nix-instantiate --parse), declare a devShell, and
# hold the Nix equivalent of every Debian package tools/deps.sh installs
# (tools/deps-nix.txt maps one to the other).
set -u
p=0 f=0
if out=$(nix-instantiate --parse flake.nix 2>&1); then p=$((p + 1)); else f=$((f + 1)); echo "FAIL flake.nix does not parse: $out"; fi
if grep -q 'devShells' flake.nix; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL flake.nix declares no devShells"; fi
map=${DEPS_NIX:-tools/deps-nix.txt}
for pkg in $(${DEPS_SH:-tools/deps.sh} list); do
  nix=$(sed -n "s/^$pkg:[[:space:]]*\([^[:space:]#]*\).*/\1/p" "$map")
  if [ -z "$nix" ]; then
    f=$((f + 1)); echo "FAIL $pkg is in tools/deps.sh but not in $map: add \`$pkg: NIX-NAME\` and put NIX-NAME in flake.nix (or \`$pkg: -\` with the reason)"
  elif [ "$nix" != - ] && ! grep -qF -- "$nix" flake.nix; then
    f=$((f + 1)); echo "FAIL $pkg: $map says its Nix equivalent is $nix, which flake.nix does not have: add it to the devShell's packages"
  else
    p=$((p + 1))
  fi
done
echo "$p passed, $f failed"
[ $f -eq 0 ]
