#!/usr/bin/env bash
# Install the Debian 12 packages hcasim needs.  Idempotent, non-interactive.
#   tools/deps.sh ensure   install only if something is missing (quiet when complete)
#   tools/deps.sh install  same, but says what it checked
#   tools/deps.sh list     print the package list
# Runs apt-get as root directly, otherwise through sudo.
set -euo pipefail

PKGS=(
  build-essential make gcc g++ binutils python3 pkg-config zlib1g-dev iproute2
  verilator yosys gtkwave parallel
  libsystemc-dev
  libibverbs-dev ibverbs-utils perftest
  libisal-dev
  librdmacm-dev rdmacm-utils
  tshark python3-scapy python3-matplotlib
  clang libclang-rt-14-dev
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  nix-bin
)
# Installed without their Recommends (which would bring a desktop stack):
# the interop guest (tests/interop/, docs/interop.md) -- QEMU with TCG,
# Debian's kernel and its rdma_rxe module, a static busybox, cpio.
PKGS_NO_RECOMMENDS=(
  qemu-system-x86 linux-image-amd64 busybox-static cpio
)

mode=${1:-ensure}
if [ "$mode" = list ]; then printf '%s\n' "${PKGS[@]}" "${PKGS_NO_RECOMMENDS[@]}"; exit 0; fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  # Not Debian (e.g. inside `nix develop`): the environment provides the tools.
  [ "$mode" = install ] && echo "deps: no dpkg here; relying on the environment (flake.nix devShell)"
  exit 0
fi

missing=() missing_norec=()
for p in "${PKGS[@]}"; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing+=("$p")
done
for p in "${PKGS_NO_RECOMMENDS[@]}"; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing_norec+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_norec[@]} -eq 0 ]; then
  [ "$mode" = install ] && echo "deps: all $(( ${#PKGS[@]} + ${#PKGS_NO_RECOMMENDS[@]} )) packages installed"
  exit 0
fi

echo "deps: installing ${missing[*]} ${missing_norec[*]}"
if [ "$(id -u)" -eq 0 ]; then SUDO=(); elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else
  echo "deps: need root or sudo to install: ${missing[*]} ${missing_norec[*]}" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
[ ${#missing[@]} -eq 0 ] ||
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
[ ${#missing_norec[@]} -eq 0 ] ||
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing_norec[@]}"
echo "deps: done"
