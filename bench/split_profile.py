#!/usr/bin/env python3
"""split_profile.py - a split call's steps from a SKEL_TRACE file.

    python3 bench/split_profile.py TRACE [N]

Takes the last N (default all) "split: call" events and, per step (the
"split: ..." events and the copies inside a call), prints its median
duration and its median start and end from the call's start, in
microseconds, sorted by end; then the last three calls step by step."""
import statistics
import sys

ev = []
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == 'ev':  # ev LANE KIND PLACE FROM T0 T1 BYTES FLAGS NAME
        ev.append((f[2], float(f[5]), float(f[6]), ' '.join(f[9:]) if f[2] != 'C' else 'copy'))
calls = [e for e in ev if e[3] == 'split: call']
if len(sys.argv) > 2:
    calls = calls[-int(sys.argv[2]):]
inside = [[e for e in ev if e[1] >= c[1] - 1 and e[2] <= c[2] + 1] for c in calls]
steps = {}
for c, es in zip(calls, inside):
    for e in es:
        steps.setdefault(e[3], []).append((e[2] - e[1], e[1] - c[1], e[2] - c[1]))
med = statistics.median
print('%d split calls: step, median us [start .. end from the call start], events a call' % len(calls))
for name, v in sorted(steps.items(), key=lambda kv: med([x[2] for x in kv[1]])):
    print('  %-24s %8.1f  [%8.1f .. %8.1f]  %.2f' % (name, med([x[0] for x in v]), med([x[1] for x in v]),
                                                   med([x[2] for x in v]), len(v) / len(calls)))
for c, es in list(zip(calls, inside))[-3:]:
    print('  one call: ' + ', '.join('%s %.0f-%.0f' % (e[3].replace('split: ', ''), e[1] - c[1], e[2] - c[1])
                                    for e in sorted(es, key=lambda e: e[1]) if e[3] != 'split: call'))
