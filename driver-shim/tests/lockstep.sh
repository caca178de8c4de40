#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shim holds any backend by name: unmodified ibv_rc_pingpong on the
# "lockstep" backend (a reference and a DUT engine compared transaction by
# transaction, sim/lockstep.c), through `hcasim switch`.
#   1. DUT = the model itself: the run passes and nothing diverges;
#   2. DUT = model-mutant with a planted header bug (BTH SE set on the 3rd
#      frame): the run still completes (the DUT's frames go on the wire) and
#      the lockstep engine reports the first divergence in the tx stream,
#      naming the BTH SE field.
# When the RTL engine is linked in, lockstep's default DUT becomes "rtl".
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

ITERS=20
start_switch --quiet || exit 1
port=$(free_port)
SRV_OPTS="--backend lockstep --options dut=model" CLI_OPTS="--backend lockstep --options dut=model" \
  run_pair "$port" ibv_rc_pingpong -g 1 -c -p "$port" -s 4096 -n "$ITERS" -- \
  ibv_rc_pingpong -g 1 -c -p "$port" -s 4096 -n "$ITERS" 127.0.0.1
stop_switch
ok "$SRV_RC" "lockstep(model, model): server exit $SRV_RC"
ok "$CLI_RC" "lockstep(model, model): client exit $CLI_RC"
grep -q "^$((4096 * ITERS * 2)) bytes in " "$CLI_LOG"; ok $? "lockstep(model, model): all bytes moved"
! grep -q "DIVERGENCE" "$SRV_LOG" "$CLI_LOG"; ok $? "lockstep(model, model): no divergence"
[ "$SRV_RC$CLI_RC" = 00 ] || show_logs

start_switch --quiet || exit 1
port=$(free_port)
SRV_OPTS="--backend lockstep --options dut=model-mutant,dut.bug=hdr_se,dut.at=3" CLI_OPTS="" \
  run_pair "$port" ibv_rc_pingpong -g 1 -p "$port" -s 64 -n "$ITERS" -- \
  ibv_rc_pingpong -g 1 -p "$port" -s 64 -n "$ITERS" 127.0.0.1
stop_switch
ok "$SRV_RC" "lockstep(model, mutant): server exit $SRV_RC"
ok "$CLI_RC" "lockstep(model, mutant): client exit $CLI_RC"
grep -q "FIRST DIVERGENCE" "$SRV_LOG"; ok $? "lockstep(model, mutant): divergence reported"
grep -q "stream tx" "$SRV_LOG"; ok $? "lockstep(model, mutant): in the tx stream"
grep -qE '^ +\* bth\.se +0 +1 ' "$SRV_LOG"; ok $? "lockstep(model, mutant): first difference is BTH SE (ref 0, dut 1)"
[ "$T_FAIL" -eq 0 ] || show_logs
finish
