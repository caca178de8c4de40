#!/usr/bin/env bash
# flake.nix must parse (nix-instantiate --parse) and declare a devShell.
set -u
p=0 f=0
if out=$(nix-instantiate --parse flake.nix 2>&1); then p=$((p + 1)); else f=$((f + 1)); echo "FAIL flake.nix does not parse: $out"; fi
if grep -q 'devShells' flake.nix; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL flake.nix declares no devShells"; fi
echo "$p passed, $f failed"
[ $f -eq 0 ]
