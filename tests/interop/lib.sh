# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers of the interop tests (sourced after driver-shim/tests/lib.sh):
# a QEMU guest running Linux rxe, joined to `hcasim switch --qemu`.
#
#   GUEST_IMG   directory of the guest image (tests/interop/mkguest.sh), default build/interop
#   start_guest [IP]   boot the guest on the switch of start_switch (which must have been
#                      given --qemu $QEMU_SOCK); waits for its command agent.  Sets GUEST_PID,
#                      GUEST_LOG (console), GUEST_FWD (host port forwarded to the guest's 18515)
#   guest CMD          run CMD (one shell line) in the guest; its output on stdout, its status
#   guest_wait_listen PORT        until the guest listens on TCP port PORT
#   guest_wait_rdma_listen PORT   until an rdma_cm id of the guest listens on PORT
#   stop_guest         power it off (then kill)
#   GUEST_MAC          the guest's NIC on the switch
QEMU=${QEMU:-qemu-system-x86_64}
GUEST_IMG=${GUEST_IMG:-build/interop}
GUEST_MAC=${GUEST_MAC:-52:54:00:0a:00:02}
GUEST_PORT=18515          # the guest's verbs programs listen here (hostfwd'ed to GUEST_FWD)
GUEST_BOOT_TIMEOUT=${GUEST_BOOT_TIMEOUT:-240}
QEMU_SOCK=$T_DIR/qemu.sock

# guest CMD: one connection to the agent per command; the last line it
# sends is hcasim-rc=STATUS.
guest() {
  local out rc
  out=$(exec 3<>"/dev/tcp/127.0.0.1/$GUEST_AGENT" && printf '%s\n' "$*" >&3 && cat <&3) || return 255
  rc=$(sed -n 's/^hcasim-rc=\([0-9]*\)$/\1/p' <<<"$out" | tail -1)
  sed '/^hcasim-rc=[0-9]*$/d' <<<"$out"
  [ -n "$rc" ] || return 255
  return "$rc"
}

start_guest() {
  local ip=${1:-10.0.0.2} _ accel=${HCASIM_QEMU_ACCEL:-tcg}
  GUEST_AGENT=$(free_port)
  GUEST_FWD=$(free_port)
  GUEST_LOG=$T_DIR/guest.log
  "$QEMU" -accel "$accel" -m 768 -smp 1 -nographic -no-reboot -nodefaults -serial stdio \
    -kernel "$GUEST_IMG/vmlinuz" -initrd "$GUEST_IMG/initrd.cpio" \
    -append "console=ttyS0 panic=-1 quiet hcasim.mac=$GUEST_MAC hcasim.ip=$ip/24" \
    -netdev "stream,id=hs,server=off,addr.type=unix,addr.path=$QEMU_SOCK" \
    -device "virtio-net-pci,netdev=hs,mac=$GUEST_MAC,romfile=" \
    -netdev "user,id=ctl,hostfwd=tcp:127.0.0.1:$GUEST_AGENT-:5555,hostfwd=tcp:127.0.0.1:$GUEST_FWD-:$GUEST_PORT" \
    -device "virtio-net-pci,netdev=ctl,romfile=" </dev/null >"$GUEST_LOG" 2>&1 &
  GUEST_PID=$!
  T_PIDS+=("$GUEST_PID")
  for _ in $(seq $((GUEST_BOOT_TIMEOUT * 2))); do
    if grep -q "hcasim-guest: ready" "$GUEST_LOG" 2>/dev/null && guest true 2>/dev/null; then
      return 0
    fi
    kill -0 "$GUEST_PID" 2>/dev/null || break
    sleep 0.5
  done
  echo "guest did not come up:"; tail -20 "$GUEST_LOG"
  return 1
}

stop_guest() {
  guest "poweroff -f" >/dev/null 2>&1
  local _
  for _ in $(seq 20); do kill -0 "$GUEST_PID" 2>/dev/null || break; sleep 0.25; done
  kill "$GUEST_PID" 2>/dev/null
  wait "$GUEST_PID" 2>/dev/null
}

# Wait until the guest listens on TCP port $1.
guest_wait_listen() {
  local _
  for _ in $(seq 120); do
    guest "netstat -ltn | grep -q ':$1 '" && return 0
    sleep 0.5
  done
  return 1
}

# Wait until an rdma_cm id in the guest listens on port $1 (rping -s), as the
# kernel's resource tracking shows it (`rdma resource show cm_id`).
guest_wait_rdma_listen() {
  local _
  for _ in $(seq 120); do
    guest "rdma resource show cm_id | grep -q 'state LISTEN .*:$1 '" && return 0
    sleep 0.5
  done
  return 1
}
