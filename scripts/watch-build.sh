#!/bin/sh
# Runs a command (a table build) and every 5 s appends to OUT.log its CPU
# ticks (user, system), its AnonHugePages and Rss (kB, from smaps), the
# kernel's THP and compaction counters (compact_stall, compact_fail,
# thp_fault_alloc, thp_fault_fallback) and MemFree and Cached (kB); the
# command's output goes to OUT.out (results/tables.md §2, eighth round).
# Usage: scripts/watch-build.sh OUT COMMAND [ARGS...]
OUT=${1:?output prefix}; shift
[ $# -gt 0 ] || { echo "watch-build.sh: no command to run" >&2; exit 2; }
"$@" > "$OUT.out" 2>&1 &
P=$!
t0=$(date +%s)
while kill -0 $P 2>/dev/null; do
  s=$(cut -d' ' -f14,15 /proc/$P/stat 2>/dev/null)
  h=$(awk '/^AnonHugePages/{a+=$2} /^Rss/{r+=$2} END{print a, r}' /proc/$P/smaps 2>/dev/null)
  v=$(awk '/^(thp_fault_alloc|thp_fault_fallback|compact_stall|compact_fail) /{printf "%s ", $2}' /proc/vmstat)
  c=$(awk '/^Cached:|^MemFree:/{printf "%s ", $2}' /proc/meminfo)
  echo "$(( $(date +%s) - t0 )) cpu $s huge_rss $h vm $v mem $c" >> "$OUT.log"
  sleep 5
done
wait $P; rc=$?
echo "exit $rc" >> "$OUT.log"
exit $rc
