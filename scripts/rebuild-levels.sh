#!/bin/sh
# Rebuilds levels FROM..TO of a game one at a time, each against the real
# lower levels (a directory of links to TABLES), with --compare-floor, and
# checks that each rebuilt file is byte-identical to the real one. Resumable:
# a level whose row is already in the log is skipped.
# Usage: scripts/rebuild-levels.sh ADJI_BINARY TABLES GAME FROM TO LOG
BIN=${1:?adji binary}; TABLES=${2:?real tables directory}; GAME=${3:?game}
FROM=${4:?first level}; TO=${5:?last level}; LOG=${6:?log file}
[ -x "$BIN" ] || { echo "rebuild-levels.sh: $BIN is not an executable" >&2; exit 2; }
[ -d "$TABLES" ] || { echo "rebuild-levels.sh: $TABLES is not a directory" >&2; exit 2; }
case "$FROM$TO" in *[!0-9]*) echo "rebuild-levels.sh: FROM and TO must be numbers" >&2; exit 2;; esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rebuild-$GAME.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for n in $(seq "$FROM" "$TO"); do
  name=$(printf '%s-start-%03d.adjt' "$GAME" "$n")
  grep -q "^$GAME $n " "$LOG" 2>/dev/null && continue
  i=0
  while [ "$i" -lt "$n" ]; do
    f=$(printf '%s-start-%03d.adjt' "$GAME" "$i")
    ln -sf "$TABLES/$f" "$WORK/$f"
    i=$((i + 1))
  done
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  row=$("$BIN" tables build --game "$GAME" --max-seeds "$n" --dir "$WORK" --threads 2 --memory 22G --compare-floor 2>&1 \
    | grep -E "^\| $n \| [0-9]+ \| built")
  if [ -z "$row" ]; then
    # Not logged, so that a rerun builds it again.
    echo "rebuild-levels.sh: $GAME level $n: the build printed no row (failed or interrupted)" >&2
    exit 1
  fi
  if cmp -s "$WORK/$name" "$TABLES/$name"; then same=identical; else same=DIFFERENT; fi
  rm -f "$WORK/$name"
  echo "$GAME $n $(date -u +%H:%M:%S) load $load $same $row" >> "$LOG"
done
