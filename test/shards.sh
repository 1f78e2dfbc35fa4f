#!/bin/sh
# test/shards.sh N PROGRAM [ARGS...]: run the test program PROGRAM in N
# processes at once, process i with SKEL_TEST_SHARD=i/N (each runs every
# N-th test), then print their outputs in order; fails if any failed.
# N = 1 runs PROGRAM alone.  CI runs the AddressSanitizer suite so, one
# process a CPU (about one CPU busy a process: 7 of its 22 minutes alone).
n=$1; shift
[ "$n" -gt 1 ] 2>/dev/null || exec "$@"
d=$(mktemp -d) || exit 1
i=0; pids=
while [ "$i" -lt "$n" ]; do
    SKEL_TEST_SHARD=$i/$n "$@" >"$d/$i" 2>&1 &
    pids="$pids $!"; i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
i=0
while [ "$i" -lt "$n" ]; do echo "-- shard $i/$n"; cat "$d/$i"; i=$((i + 1)); done
rm -rf "$d"
exit $rc
