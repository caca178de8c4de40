#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench (driver shim): perftest ib_write_bw between two simulated HCAs
# on the model backend, each in its own process under `hcasim run`, through
# `hcasim switch` (no capture), for 64 B and 64 KiB messages.  Each size runs
# three times, in turn: "shm", the normal path (frames in shared-memory rings
# between each HCA and the switch, swproto.h/shmring.h; an application's
# empty polls do the device's work), "batched" with HCASIM_LINK_SHM=0 (frames
# batched in socket messages, several per system call: the path before the
# rings), and "per-frame" with HCASIM_LINK_SHM=0 HCASIM_LINK_BATCH=0
# HCASIM_POLL_HELP=0 (one frame per message and per system call, the device
# thread woken for each doorbell: the path before batching), so the bench
# shows what each is worth on this machine, in one run
# (BENCH_SHIM_MODES="shm batched" to run fewer).
#
# Per run: the bandwidth and message rate perftest reports (wall clock: how
# fast the simulation moves data on this machine now, load included), and
# what it cost -- the CPU time of both device threads (HCASIM_DEBUG=1 prints
# it at exit) and of the switch process -- turned into the ceiling the same
# work per byte would allow on 2 otherwise idle cores.  The load average
# says how busy the machine was; the socket floor (SOCKFLOOR=sockfloor
# program, as make bench-shim runs it) what one socket hop carries now.
#
# Also writes build/bench/shim.csv (BENCH_SHIM_CSV; one row per size and
# mode); progress when stderr is a terminal (stdout is tee-d to shim.log).
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh
. tools/progress.sh

backend=${BENCH_BACKEND:-model}
tck=$(getconf CLK_TCK)
printf 'bench shim: load average %s (%s cores)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"
# What one socket hop carries here now (SOCKFLOOR: build/bench/sockfloor).
if [ -n "${SOCKFLOOR:-}" ]; then
  "$SOCKFLOOR"; ok $? "socket floor"
fi

# CPU seconds of a process so far (user + system).
proc_cpu() {
  local st
  read -r -a st < "/proc/$1/stat" 2>/dev/null || { echo 0; return; }
  awk -v u="${st[13]}" -v s="${st[14]}" -v t="$tck" 'BEGIN { printf "%.3f", (u + s) / t }'
}

# Device-thread CPU seconds from a `hcasim run` log (HCASIM_DEBUG=1).
dev_cpu() {
  sed -nE 's/.*device thread: cpu ([0-9.]+) s.*/\1/p' "$1" | head -1
}

csv=${BENCH_SHIM_CSV:-build/bench/shim.csv}
mkdir -p "$(dirname "$csv")"
echo "backend,size,iters,mb_per_s_avg,gb_per_s,mpps,mb_per_s_peak,mode,cpu_us_per_msg" > "$csv"

# BENCH_SHIM_SPECS="SIZE ITERS,SIZE ITERS" to run other sizes
IFS=, read -r -a specs <<<"${BENCH_SHIM_SPECS:-64 50000,65536 5000}"
read -r -a modes <<<"${BENCH_SHIM_MODES:-shm batched per-frame}"
progress_init $((${#specs[@]} * ${#modes[@]})) >&2
step=0
for spec in "${specs[@]}"; do
  read -r size iters <<<"$spec"
  for mode in "${modes[@]}"; do
    progress_show "$step" "ib_write_bw $size B x $iters on $backend, $mode" >&2
    step=$((step + 1))
    SW_NO_PCAP=1 start_switch --quiet || exit 1
    port=$(free_port)
    export HCASIM_BACKEND=$backend HCASIM_DEBUG=1
    unset HCASIM_LINK_SHM HCASIM_LINK_BATCH HCASIM_POLL_HELP
    case $mode in
      batched) export HCASIM_LINK_SHM=0 ;;
      per-frame) export HCASIM_LINK_SHM=0 HCASIM_LINK_BATCH=0 HCASIM_POLL_HELP=0 ;;
    esac
    run_pair "$port" ib_write_bw -F -x 1 -p "$port" -s "$size" -n "$iters" -- \
      ib_write_bw -F -x 1 -p "$port" -s "$size" -n "$iters" 127.0.0.1
    sw_cpu=$(proc_cpu "$SW_PID")
    stop_switch
    progress_clear >&2
    unset HCASIM_LINK_SHM HCASIM_LINK_BATCH HCASIM_POLL_HELP
    line=$(grep -E "^ +$size +$iters " "$CLI_LOG")
    if [ "$SRV_RC$CLI_RC" != 00 ] || [ -z "$line" ]; then
      ok 1 "ib_write_bw $size B ($mode) did not complete"
      show_logs
      continue
    fi
    ok 0 ""
    read -r _ _ peak avg rate _ <<<"$line"
    rate=${rate%%[!0-9.]*}	# (the device thread's exit line may follow on the same line)
    frames=$(sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$SW_LOG")
    sends=$(sed -nE 's/.*frames out in ([0-9]+) sends.*/\1/p' "$CLI_LOG" | head -1)
    awk -v size="$size" -v iters="$iters" -v be="$backend" -v mode="$mode" -v avg="$avg" \
        -v rate="$rate" -v peak="$peak" -v c="$(dev_cpu "$CLI_LOG")" -v s="$(dev_cpu "$SRV_LOG")" \
        -v w="$sw_cpu" -v frames="${frames:-0}" -v sends="${sends:-0}" -v csv="$csv" 'BEGIN {
      cpu = c + s + w; bytes = size * iters
      gbps = avg * 8 / 1000
      ceil_gbps = cpu > 0 ? 2 * bytes * 8 / cpu / 1e9 : 0
      ceil_mpps = cpu > 0 ? 2 * iters / cpu / 1e6 : 0
      printf "bench shim: ib_write_bw %6d B x %5d on %s, %-9s: %8.2f MB/s (%6.2f Gb/s), %.4f Mpps, peak %.2f MB/s\n",
             size, iters, be, mode, avg, gbps, rate, peak
      printf "bench shim:   cpu: client device %.3f s, server device %.3f s, switch %.3f s = %.2f us/msg;" \
             " on 2 idle cores at most %.2f Gb/s, %.3f Mpps; %d frames, client sent them in %d system calls\n",
             c, s, w, cpu * 1e6 / iters, ceil_gbps, ceil_mpps, frames, sends
      printf "%s,%d,%d,%s,%.3f,%s,%s,%s,%.2f\n", be, size, iters, avg, gbps, rate, peak, mode,
             cpu * 1e6 / iters >> csv
    }'
  done
done
finish
