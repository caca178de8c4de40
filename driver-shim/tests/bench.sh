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

# CPU seconds of a process so far: the scheduler's nanoseconds (schedstat; its
# clock ticks, 10 ms, were as large as the switch's whole figure at 64 B).
proc_cpu() {
  local st
  if read -r -a st < "/proc/$1/schedstat" 2>/dev/null; then
    awk -v ns="${st[0]}" 'BEGIN { printf "%.4f", ns / 1e9 }'
    return
  fi
  read -r -a st < "/proc/$1/stat" 2>/dev/null || { echo 0; return; }
  awk -v u="${st[13]}" -v s="${st[14]}" -v t="$tck" 'BEGIN { printf "%.3f", (u + s) / t }'
}

# What the switch spent waiting on the CPU for frames (its exit report).
sw_spin() {
  sed -nE 's/.*cpu [0-9.]+ s, of which ([0-9.]+) s waiting on the CPU.*/\1/p' "$1" | head -1
}

# Device-thread CPU seconds from a `hcasim run` log (HCASIM_DEBUG=1).
dev_cpu() {
  sed -nE 's/.*device thread: cpu ([0-9.]+) s.*/\1/p' "$1" | head -1
}

csv=${BENCH_SHIM_CSV:-build/bench/shim.csv}
mkdir -p "$(dirname "$csv")"
echo "backend,size,iters,mb_per_s_avg,gb_per_s,mpps,mb_per_s_peak,mode,cpu_us_per_msg" > "$csv"

# BENCH_SHIM_SPECS="SIZE ITERS,SIZE ITERS" to run other sizes.  The first run,
# 64 B x 1000 ("fixed"), measures what a run costs whatever its length: the
# device threads' start-up (bring-up, firmware commands) and their idle ticks
# (device time follows the wall clock: a firmware health tick every 262 us,
# about a thousand wake-ups a second) during perftest's own start-up and
# exchange.  It is subtracted for the "net" figure of each run.
IFS=, read -r -a specs <<<"${BENCH_SHIM_FIXED:-64 1000},${BENCH_SHIM_SPECS:-64 50000,65536 5000}"
read -r -a modes <<<"${BENCH_SHIM_MODES:-shm batched per-frame}"
progress_init $(((${#specs[@]} - 1) * ${#modes[@]} + 1)) >&2
step=0
fixed_cpu=0 fixed_iters=0
for spec in "${specs[@]}"; do
  read -r size iters <<<"$spec"
  run_modes=("${modes[@]}")
  fixed=0
  [ "$step" -eq 0 ] && fixed=1 && run_modes=(shm)
  for mode in "${run_modes[@]}"; do
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
    if [ "$fixed" = 1 ]; then
      fixed_iters=$iters
      fixed_cpu=$(awk -v c="$(dev_cpu "$CLI_LOG")" -v s="$(dev_cpu "$SRV_LOG")" -v w="$sw_cpu" \
        -v sp="$(sw_spin "$SW_LOG")" 'BEGIN { printf "%.4f", c + s + w - sp }')
      printf 'bench shim: fixed cost of a run (ib_write_bw %d B x %d, %s): device threads %s s + %s s, switch %s s (%s s of it waiting for frames); %s s without the wait\n' \
        "$size" "$iters" "$mode" "$(dev_cpu "$CLI_LOG")" "$(dev_cpu "$SRV_LOG")" "$sw_cpu" "$(sw_spin "$SW_LOG")" "$fixed_cpu"
      continue
    fi
    read -r _ _ peak avg rate _ <<<"$line"
    rate=${rate%%[!0-9.]*}	# (the device thread's exit line may follow on the same line)
    frames=$(sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$SW_LOG")
    sends=$(sed -nE 's/.*frames out in ([0-9]+) sends.*/\1/p' "$CLI_LOG" | head -1)
    awk -v size="$size" -v iters="$iters" -v be="$backend" -v mode="$mode" -v avg="$avg" \
        -v rate="$rate" -v peak="$peak" -v c="$(dev_cpu "$CLI_LOG")" -v s="$(dev_cpu "$SRV_LOG")" \
        -v w="$sw_cpu" -v sp="$(sw_spin "$SW_LOG")" -v fx="$fixed_cpu" -v fxn="$fixed_iters" \
        -v frames="${frames:-0}" -v sends="${sends:-0}" -v csv="$csv" 'BEGIN {
      cpu = c + s + w; bytes = size * iters
      gbps = avg * 8 / 1000
      ceil_gbps = cpu > 0 ? 2 * bytes * 8 / cpu / 1e9 : 0
      ceil_mpps = cpu > 0 ? 2 * iters / cpu / 1e6 : 0
      printf "bench shim: ib_write_bw %6d B x %5d on %s, %-9s: %8.2f MB/s (%6.2f Gb/s), %.4f Mpps, peak %.2f MB/s\n",
             size, iters, be, mode, avg, gbps, rate, peak
      printf "bench shim:   cpu: client device %.3f s, server device %.3f s, switch %.3f s = %.2f us/msg;" \
             " on 2 idle cores at most %.2f Gb/s, %.3f Mpps; %d frames, client sent them in %d system calls\n",
             c, s, w, cpu * 1e6 / iters, ceil_gbps, ceil_mpps, frames, sends
      # marginal: what the messages beyond those of the fixed run cost (its CPU and the
      # waits of the switch on the CPU not counted)
      net = cpu - sp - fx; n = iters - fxn
      if (fx > 0 && net > 0 && n > 0)
        printf "bench shim:   marginal: %.2f us/msg (this run less the switch waiting on the CPU for frames, %.3f s, and less the fixed run, %.3f s, over %d more messages); on 2 idle cores at most %.2f Gb/s, %.3f Mpps\n",
               net * 1e6 / n, sp, fx, n, 2 * n * size * 8 / net / 1e9, 2 * n / net / 1e6
      printf "%s,%d,%d,%s,%.3f,%s,%s,%s,%.2f\n", be, size, iters, avg, gbps, rate, peak, mode,
             cpu * 1e6 / iters >> csv
    }'
  done
done
finish
