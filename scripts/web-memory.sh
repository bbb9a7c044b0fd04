#!/bin/sh
# Peak memory of `adji serve` while WORKERS analyses of the Adjito start run
# at once for SECONDS each (results/web-load.md): prints the server's memory
# plan (its own refusal under --memory 1), then VmRSS every second and the
# peak (VmHWM) at the end. Loopback only; every wait is bounded.
# Usage: scripts/web-memory.sh [SECONDS] [WORKERS] [HASH_MIB]
# (ADJI=BINARY runs another build, e.g. an older one.)
set -u
SECS=${1:-20}; WORKERS=${2:-2}; HASH=${3:-16}
ADJI=${ADJI:-target/release/adji}
ARGS="--port 0 --no-tables --workers $WORKERS --hash $HASH --time-cap $((SECS + 5))"
echo "plan: $($ADJI serve $ARGS --memory 1 2>&1 | head -1)"
OUT=$(mktemp)
$ADJI serve $ARGS --memory 64G > "$OUT" 2>/dev/null &
P=$!
trap 'kill $P 2>/dev/null; rm -f "$OUT"' EXIT
i=0
while [ ! -s "$OUT" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
URL=$(head -1 "$OUT")
[ -n "$URL" ] || { echo "web-memory.sh: the server did not start" >&2; exit 1; }
rss() { awk -v k="$1" '$1 == k {print $2}' /proc/$P/status; }
echo "idle: VmRSS $(rss VmRSS:) kB"
PIDS=
for w in $(seq "$WORKERS"); do
  curl -s --max-time $((SECS + 15)) "${URL}api/analyse?position=start&time=$SECS" \
    | grep -o '"nodes":[0-9]*' | tail -1 | sed "s/^/analysis $w: /" &
  PIDS="$PIDS $!"
done
t=0
while [ $t -le $((SECS + 2)) ]; do
  echo "t=${t}s VmRSS $(rss VmRSS:) kB"
  sleep 1; t=$((t + 1))
done
wait $PIDS
echo "peak: VmHWM $(rss VmHWM:) kB"
