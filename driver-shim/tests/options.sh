#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Backend options (`hcasim run --options K=V,...`, config `options`) and
# integer configuration keys are checked the same way on every backend
# (sim/engine_opts.h, docs/shim.md): an unknown key or a value outside its
# range -- negative numbers that strtoul would wrap to 4294967295, 2^32 that
# would truncate to 0, 2^64 that overflows -- makes Debian's ibv_devinfo fail
# (never hang, never run with a wrapped value) with one line naming the
# engine, the key and what it allows.  Valid options still bring the device
# up, on model, rtl and lockstep.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

# refused BACKEND OPTIONS PATTERN: ibv_devinfo fails and stderr matches PATTERN.
refused() {
  local be=$1 opts=$2 pat=$3 out=$T_DIR/opt$RANDOM.log rc
  timeout 30 "$HCASIM" run --backend "$be" --options "$opts" -- ibv_devinfo >"$out" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "$be --options $opts: refused (exit $rc)"
  grep -qE -- "$pat" "$out"; ok $? "$be --options $opts: message /$pat/"
  [ "$rc" -ne 0 ] && grep -qE -- "$pat" "$out" || head -5 "$out"
}

accepted() {
  local be=$1 opts=$2 out=$T_DIR/opt$RANDOM.log
  timeout 60 "$HCASIM" run --backend "$be" --options "$opts" -- ibv_devinfo >"$out" 2>&1
  ok $? "$be --options $opts: accepted"
  grep -qP '^\t\t\tstate:\t\t\tPORT_ACTIVE' "$out"; ok $? "$be --options $opts: device up"
}

# Unknown keys: every backend, the known ones listed.
refused model nosuch=1 '^model: unknown option "nosuch=1" \(options: trace=0\|1\)'
refused rtl nosuch=1 '^rtl: unknown option "nosuch=1" \(options: rd_lat=0\.\.1000000, rd_jitter=0\.\.1000000, wr_lat=0\.\.1000000, bug=none\|'
refused lockstep nosuch=1 '^lockstep: unknown option "nosuch=1" \(options: ref=TEXT, dut=TEXT, ref\.K=V, dut\.K=V, .*tx_order=qp\|port(, [a-z_]+=[^,)]+)*\)'
refused lockstep dut.nosuch=1 '^rtl: unknown option "nosuch=1"'
refused lockstep ref.nosuch=1 '^model: unknown option "nosuch=1"'
refused model rd_lat=40 '^model: unknown option "rd_lat=40"'
refused model trace '^model: no value in option "trace"'

# Values out of range: the key and its range named.
range='wants an integer 0\.\.1000000'
refused rtl rd_lat=-1 "^rtl: option rd_lat=-1: $range"
refused rtl rd_jitter=4294967296 "^rtl: option rd_jitter=4294967296: $range"
refused rtl wr_lat=18446744073709551616 "^rtl: option wr_lat=18446744073709551616: $range"
refused rtl rd_lat=1000001 "^rtl: option rd_lat=1000001: $range"
refused rtl rd_lat=12abc "^rtl: option rd_lat=12abc: $range"
refused rtl bug=nosuch '^rtl: option bug=nosuch: wants one of none\|hdr_se\|'
refused lockstep dut.rd_lat=-1 "^rtl: option rd_lat=-1: $range"
refused lockstep quiet=2 '^lockstep: option quiet=2: wants 0\|1'
refused lockstep tx_order=flow '^lockstep: option tx_order=flow: wants one of qp\|port'
refused model trace=-1 '^model: option trace=-1: wants 0\|1'

# The same through a configuration file.
cfg=$T_DIR/bad.conf
printf '[hcasim0]\nip = 10.0.0.1\nbackend = rtl\noptions = rd_lat=-1\n' >"$cfg"
out=$T_DIR/cfg.log
timeout 30 "$HCASIM" run --config "$cfg" -- ibv_devinfo >"$out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "config options = rd_lat=-1: refused (exit $rc)"
grep -qE "^rtl: option rd_lat=-1: $range" "$out"; ok $? "config options = rd_lat=-1: message"

# Integer configuration keys: negative and overflowing values, named with their range.
for kv in "seed = -1|seed wants an integer 0\.\.18446744073709551615" \
          "seed = 18446744073709551616|seed wants an integer 0\.\.18446744073709551615" \
          "slowdown = 0|slowdown wants an integer 1\.\.1000000" \
          "trace_to = -5|trace_to wants an integer 0\.\.18446744073709551615" \
          "width = -64|width must be 64 or 512"; do
  line=${kv%%|*} pat=${kv#*|}
  printf '[hcasim0]\nip = 10.0.0.1\n%s\n' "$line" >"$cfg"
  timeout 30 "$HCASIM" run --config "$cfg" -- ibv_devinfo >"$out" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "config $line: refused (exit $rc)"
  grep -qE "bad\.conf:3: $pat" "$out"; ok $? "config $line: message names the key and range"
done
printf 'wire_latency = -1\n[hcasim0]\nip = 10.0.0.1\n' >"$cfg"
timeout 30 "$HCASIM" run --config "$cfg" -- ibv_devinfo >"$out" 2>&1
[ $? -ne 0 ]; ok $? "config wire_latency = -1: refused"
grep -qE "bad\.conf:1: wire_latency wants an integer 0\.\.1000000000" "$out"; ok $? "config wire_latency: message"

# Valid options bring the device up on every backend.
accepted model trace=0
accepted rtl rd_lat=40,rd_jitter=0,wr_lat=1000000,bug=none
accepted lockstep dut.rd_lat=30,ref.trace=0,quiet=1,tx_order=port
finish
