#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The preloadable shim must catch every libibverbs and librdmacm call the
# verbs and rdma_cm binaries make: for each binary, every symbol it imports
# with an IBVERBS_* version, and every rdma_* symbol it imports with an
# RDMACM_* version, must be defined by libhcasim-verbs.so with that same
# version (otherwise the dynamic linker binds it to the real library, which
# would then be handed the shim's objects; librdmacm's rsocket calls, r*,
# stay with the real library).  The shim must export nothing else than the
# verbs and rdma_cm APIs and its own hcasim_shim_* extensions.  Oracle:
# objdump -T.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

SO=${SHIM_SO:-build/lib/libhcasim-verbs.so}
BINS=${SYMBOL_BINS:-"ibv_devinfo ibv_devices ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong
  ibv_srq_pingpong ibv_xsrq_pingpong ib_write_bw ib_read_bw ib_send_bw ib_write_lat
  ib_read_lat ib_send_lat ib_atomic_bw ib_atomic_lat
  rping rdma_server rdma_client rdma_xserver rdma_xclient udaddy ucmatose mckey cmtime
  riostream rstream rcopy udpong"}

defined=$T_DIR/defined.txt
objdump -T "$SO" | awk '$2 == "g" && $4 != "*UND*" && $4 != "*ABS*" { print $(NF-1), $NF }' |
  tr -d '()' | sort -u >"$defined"
[ -s "$defined" ]; ok $? "objdump lists the shim's exports"

for b in $BINS; do
  path=$(command -v "$b") || { echo "skip $b (not installed)"; continue; }
  missing=$(objdump -T "$path" | awk '$3 == "*UND*" || $4 == "*UND*" { print $(NF-1), $NF }' |
            tr -d '()' | grep -E '^(IBVERBS_|RDMACM_)' | awk '$1 !~ /^RDMACM/ || $2 ~ /^rdma_/' |
            sort -u | comm -23 - "$defined")
  [ -z "$missing" ]; ok $? "$b: every IBVERBS and rdma_* RDMACM import is the shim's (missing: $(echo $missing))"
done

# Only the verbs API and the extensions are exported.
extra=$(awk '{ print $2 }' "$defined" | grep -vE '^(ibv_|_ibv_|mbps_to_ibv_rate$|mult_to_ibv_rate$|hcasim_shim_|rdma_)' || true)
[ -z "$extra" ]; ok $? "no internal symbol leaks out of the shim ($(echo $extra))"
# The versions a binary can ask for exist as version definitions.
for v in IBVERBS_1.0 IBVERBS_1.1 IBVERBS_1.8 IBVERBS_1.11 IBVERBS_PRIVATE_34 RDMACM_1.0 RDMACM_1.1 \
  RDMACM_1.2 RDMACM_1.3; do
  objdump -p "$SO" | grep -qE "^[0-9]+ 0x[0-9a-f]+ 0x[0-9a-f]+ $v\$"; ok $? "version $v defined"
done
finish
