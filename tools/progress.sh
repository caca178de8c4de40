# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Progress of a long loop, on a terminal only (sourced, not run).  The C
# twin is sim/progress.h (cosim, bench_rtl).
#
#   progress_init TOTAL           start the clock for TOTAL steps
#   progress_show DONE WHAT [LEFT_SECONDS]
#                                 "[DONE/TOTAL] 1m05s elapsed, ~3m20s left: WHAT" on one
#                                 line that the next output overwrites; the estimate is
#                                 LEFT_SECONDS if given, else the mean time per step so far
#   progress_clear                erase that line (call before printing anything else)
#
# Shown only when standard output is a terminal, so logs stay clean;
# HCASIM_PROGRESS=1 shows it anyway (tests), HCASIM_PROGRESS=0 never.

progress_init() {
  PG_TOTAL=$1
  PG_START=$(date +%s)
  case ${HCASIM_PROGRESS:-} in
    1) PG_ON=1 ;;
    0) PG_ON=0 ;;
    *) if [ -t 1 ]; then PG_ON=1; else PG_ON=0; fi ;;
  esac
}

# progress_dur SECONDS -> 45s, 3m05s, 1h02m
progress_dur() {
  local s=$1
  if [ "$s" -ge 3600 ]; then printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60))
  elif [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60))
  else printf '%ds' "$s"; fi
}

progress_show() {
  [ "${PG_ON:-0}" = 1 ] || return 0
  local done=$1 what=$2 left=${3:-} el
  el=$(( $(date +%s) - PG_START ))
  if [ -z "$left" ] && [ "$done" -gt 0 ]; then left=$(( el * (PG_TOTAL - done) / done )); fi
  printf '\r\033[K[%d/%d] %s elapsed, %s left: %s' "$done" "$PG_TOTAL" "$(progress_dur "$el")" \
    "$([ -n "$left" ] && printf '~%s' "$(progress_dur "$left")" || printf 'estimating')" "$what"
}

progress_clear() {
  [ "${PG_ON:-0}" = 1 ] || return 0
  printf '\r\033[K'
}
