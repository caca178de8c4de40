#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real libibverbs utilities (Debian's ibv_devinfo, ibv_devices) on a simulated
# HCA under `hcasim run`: the device is listed, its port is ACTIVE with an
# Ethernet link layer, and its GID table holds the RoCE v2 GIDs derived from
# the configured MAC and IPv4 address.  Expected values are computed here
# from the configuration (EUI-64 and IPv4-mapped addresses, formatted by
# Python's ipaddress), not copied from the shim.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

MAC=02:11:22:33:44:55
IP=10.1.2.3
# "GID0 GUID" of a MAC: fe80::/64 + the modified EUI-64 (RFC 4291), and the EUI-64.
eui() {
  "$PYTHON" - "$1" <<'EOF'
import ipaddress, sys
m = bytes(int(x, 16) for x in sys.argv[1].split(":"))
eui = bytes([m[0] ^ 2]) + m[1:3] + b"\xff\xfe" + m[3:6]
print(ipaddress.IPv6Address(b"\xfe\x80" + b"\0" * 6 + eui),
      ":".join(eui.hex()[i:i + 4] for i in range(0, 16, 4)))
EOF
}
read -r GID0 GUID <<<"$(eui "$MAC")"

out=$T_DIR/devinfo.txt
timeout 60 "$HCASIM" run --ip "$IP" --mac "$MAC" -- ibv_devinfo -v >"$out" 2>&1
ok $? "ibv_devinfo -v exits 0"
grep -qP '^hca_id:\thcasim0$' "$out"; ok $? "device hcasim0 listed"
grep -qP '^\t\tport:\t1$' "$out"; ok $? "port 1 listed"
grep -qP '^\t\t\tstate:\t\t\tPORT_ACTIVE \(4\)$' "$out"; ok $? "port state PORT_ACTIVE"
grep -qP '^\t\t\tlink_layer:\t\tEthernet$' "$out"; ok $? "link layer Ethernet"
grep -qP '^\t\t\tphys_state:\t\tLINK_UP \(5\)$' "$out"; ok $? "physical state LINK_UP"
grep -qP "^\\t\\t\\tGID\\[  0\\]:\\t\\t$GID0, RoCE v2\$" "$out"; ok $? "GID 0 = $GID0, RoCE v2"
grep -qP "^\\t\\t\\tGID\\[  1\\]:\\t\\t::ffff:$IP, RoCE v2\$" "$out"; ok $? "GID 1 = ::ffff:$IP, RoCE v2"
[ "$(grep -c 'GID\[' "$out")" -eq 2 ]; ok $? "exactly two GIDs installed"
grep -qP "^\\tnode_guid:\\t\\t\\t$GUID\$" "$out"; ok $? "node GUID $GUID is the MAC's EUI-64"
grep -qP '^\ttransport:\t\t\tInfiniBand \(0\)$' "$out"; ok $? "transport InfiniBand (as RoCE devices report)"
grep -qP '^\tvendor_id:\t\t\t0x4843$' "$out"; ok $? "vendor id"
grep -qP '^\tphys_port_cnt:\t\t\t1$' "$out"; ok $? "one port"
grep -qP '^\tfw_ver:\t\t\t\t[0-9]+\.[0-9]+\.[0-9]+$' "$out"; ok $? "firmware version"
[ "$T_FAIL" -eq 0 ] || cat "$out"

# ibv_devices: name and GUID
timeout 60 "$HCASIM" run --ip "$IP" --mac "$MAC" -- ibv_devices >"$T_DIR/devices.txt" 2>&1
ok $? "ibv_devices exits 0"
grep -qP "^ +hcasim0\\s+${GUID//:/}\$" "$T_DIR/devices.txt"; ok $? "ibv_devices lists hcasim0 with its GUID"

# A device name and the default MAC rule (02:00:<ip>)
timeout 60 "$HCASIM" run --ip 192.168.7.9 --name mynic -- ibv_devinfo -v >"$out" 2>&1
ok $? "ibv_devinfo on a named device"
grep -qP '^hca_id:\tmynic$' "$out"; ok $? "--name sets the device name"
read -r DGID0 _ <<<"$(eui 02:00:c0:a8:07:09)"
grep -qP "^\\t\\t\\tGID\\[  0\\]:\\t\\t$DGID0, RoCE v2\$" "$out"
ok $? "default MAC 02:00:c0:a8:07:09 from the address"

# Configuration errors are reported, not crashes.
timeout 60 "$HCASIM" run --ip "$IP" --backend nosuch -- ibv_devinfo >"$out" 2>&1
[ $? -ne 0 ]; ok $? "unknown backend: ibv_devinfo fails"
grep -q 'no device backend named "nosuch" (linked in: .*model' "$out"; ok $? "unknown backend: message names the linked-in backends"
timeout 60 "$HCASIM" run --ip "$IP" --switch "$T_DIR/nowhere.sock" -- ibv_devinfo >"$out" 2>&1
[ $? -ne 0 ]; ok $? "missing switch: ibv_devinfo fails"
grep -q "cannot connect to switch" "$out"; ok $? "missing switch: message says so"
HCASIM_CONFIG=$T_DIR/none.conf timeout 60 "$HCASIM" run -- ibv_devinfo >"$out" 2>&1
grep -q "HCASIM_CONFIG=.*none.conf" "$out"; ok $? "missing config file is named in the error"
"$HCASIM" run --ip 300.1.1.1 -- true >"$out" 2>&1
[ $? -eq 2 ]; ok $? "hcasim run rejects a bad --ip"

finish
