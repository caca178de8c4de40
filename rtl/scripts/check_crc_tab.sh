#!/usr/bin/env bash
# rtl/hca_crc32_tab.vh must be what rtl/scripts/gen_crc32_tab.py generates.
if ${PYTHON:-/usr/bin/python3} rtl/scripts/gen_crc32_tab.py | cmp -s - rtl/hca_crc32_tab.vh; then
  echo "rtl/hca_crc32_tab.vh is current"
  echo "1 passed, 0 failed"
else
  echo "rtl/hca_crc32_tab.vh is stale: run rtl/scripts/gen_crc32_tab.py > rtl/hca_crc32_tab.vh"
  echo "0 passed, 1 failed"
  exit 1
fi
