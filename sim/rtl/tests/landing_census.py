#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The state node 0's RTL is in when a test's context writes land.

A test that prints marker lines "[landing <engine> <what> d=<n> end @<cycle>]"
on stderr after each context write (rtl_errors' modify_during_item, with
HCASIM_RTL_DEBUG set) is run with HCASIM_RTL_DEBUG=1, so that the rtl engine
prints its state line (busy, dbg: the working job and its state) every
clocked cycle.  The last state line of the marker's engine before the marker
is the state the write landed in (the harness holds the engine during the
register accesses).  Prints, per <what>, how many writes landed in each state;
-v also one line per write.

  HCASIM_RTL_DEBUG=1 build/tests/rtl_errors --width 512 --engine rtl \\
      modify_during_item 2>dbg.txt
  python3 sim/rtl/tests/landing_census.py dbg.txt build/rtl/state_names/states.txt
"""
import collections
import re
import sys

# JOB_* of rtl/hca_defs.vh (dbg[7:0])
JOBS = {0: 'none', 1: 'hca_dispatch', 2: 'hca_recv', 3: 'hca_req', 4: 'hca_resp', 5: 'hca_comp',
        6: 'hca_comp_retire', 7: 'hca_complete_send', 8: 'hca_complete_recv', 9: 'hca_qp_flush',
        10: 'hca_qp_err', 11: 'hca_ack_send', 12: 'hca_scatter', 13: 'hca_mr_check', 14: 'hca_cq_post',
        15: 'hca_eq_post', 16: 'hca_read_atomic', 17: 'hca_comp_read', 18: 'hca_comp_retry',
        19: 'hca_comp_timer'}


def main():
    args = [a for a in sys.argv[1:] if a != '-v']
    if len(args) != 2:
        sys.exit(__doc__)
    names = {}
    for line in open(args[1]):
        mod, val, name = line.split()
        names[(mod, int(val))] = name
    state_rx = re.compile(r'\[rtl (0x[0-9a-f]+) @(\d+)\] busy (\d) dbg 0x([0-9a-f]+)')
    mark_rx = re.compile(r'\[landing (0x[0-9a-f]+) (\S+) d=(\d+) end @(\d+)\]')
    last = {}
    census = collections.defaultdict(collections.Counter)
    for line in open(args[0], errors='replace'):
        m = state_rx.match(line)
        if m:
            last[m.group(1)] = (int(m.group(2)), m.group(3), int(m.group(4), 16))
            continue
        m = mark_rx.match(line)
        if not m:
            continue
        cyc, busy, dbg = last.get(m.group(1), (0, '0', 0))
        job = JOBS.get(dbg & 0xff, str(dbg & 0xff))
        st = 'idle' if busy == '0' else '%s %s' % (job, names.get((job, (dbg >> 8) & 0xff), (dbg >> 8) & 0xff))
        census[m.group(2)][st] += 1
        if '-v' in sys.argv:
            print(m.group(2), 'd=' + m.group(3), 'cycle', cyc, st)
    for what, c in census.items():
        print(what, sum(c.values()), 'writes')
        for st, n in c.most_common():
            print('  %5d %s' % (n, st))


if __name__ == '__main__':
    main()
