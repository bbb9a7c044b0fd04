#!/bin/sh
# The real table builds of issue 9, resumable: rerun after any interruption;
# finished levels are kept after their header and checksum are checked.
# Usage: scripts/real-builds.sh ADJI_BINARY DIR   (logs DIR/adjito.log, DIR/adjiboto.log)
BIN=${1:?adji binary}; DIR=${2:?tables directory}
for spec in "adjito 28" "adjiboto 40"; do
  set -- $spec
  echo "=== $1 start $(date -Is)" >> "$DIR/$1.log"
  /usr/bin/time -v "$BIN" tables build --game "$1" --max-seeds "$2" --dir "$DIR" --threads 2 --memory 22G --compare-floor >> "$DIR/$1.log" 2>> "$DIR/$1.time"
  echo "=== $1 exit $? $(date -Is)" >> "$DIR/$1.log"
done
