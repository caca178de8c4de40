#!/usr/bin/env bash
# fw_rv32 test: the RV32IMC firmware image linked, is what the soft core
# runs, fits its memory map (soc.h), needs nothing it does not have; prints
# its size.  Usage: firmware/rv32/check.sh build/rv32/hcafw.elf
set -uo pipefail
elf=$1
pre=${RV_PREFIX:-riscv64-unknown-elf-}
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

check "[ -s '$elf' ]" "image $elf missing"
hdr=$(${pre}readelf -h "$elf" 2>/dev/null)
check "grep -q 'Class:.*ELF32' <<<\"\$hdr\"" "not ELF32"
check "grep -q 'Machine:.*RISC-V' <<<\"\$hdr\"" "not RISC-V"
check "grep -q 'Flags:.*RVC' <<<\"\$hdr\"" "not compressed (RV32IMC)"
check "grep -q 'Entry point address:.*0x0\$' <<<\"\$hdr\"" "entry not at the reset vector 0"
attrs=$(${pre}readelf -A "$elf" 2>/dev/null || true)
syms=$(${pre}nm "$elf")
for s in _start main hca_fw_init hca_fw_run fw_cmd_execute fw_h_QP_MODIFY fw_h_hcasim_DEVICE_QUERY_FW; do
  check "grep -qw '$s' <<<\"\$syms\"" "symbol $s missing"
done
# Freestanding: no heap, no stdio, no syscalls.
for s in malloc free printf puts _sbrk sbrk write _write exit; do
  check "! grep -qE ' [TtUu] $s\$' <<<\"\$syms\"" "links $s"
done
check "! grep -q ' U ' <<<\"\$syms\"" "undefined symbols: $(grep ' U ' <<<"$syms" | tr '\n' ' ')"
# The memory map: ROM 256 KiB at 0, RAM 256 KiB at 0x10000000 (stack included).
read -r text data bss _ < <(${pre}size "$elf" | awk 'NR == 2 { print $1, $2, $3, $4 }')
check "[ $((text + data)) -le $((256 * 1024)) ]" "ROM overflow: $((text + data))"
check "[ $((data + bss)) -le $((256 * 1024)) ]" "RAM overflow: $((data + bss))"
top=$(grep -E ' __stack_top$' <<<"$syms" | cut -d' ' -f1)
check "[ $((16#${top:-0})) -le $((0x10040000)) ] && [ $((16#${top:-0})) -gt $((0x10000000)) ]" "stack top $top outside RAM"
fwsize=$(grep -E ' [bB] fw$' <<<"$syms" | head -1)
echo "rv32 image: text $text data $data bss $bss bytes (ROM $((text + data)) / 262144, RAM $((data + bss)) / 262144)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
