#!/bin/bash
# Runs ../shared/tools/match.py with the background datagen paused
# (SIGSTOP) and resumes it (SIGCONT) however the match ends: on two shared
# cores a niced datagen still slows the engines, and the timed games must
# have the cores. Start and end go to the data folder's ledger.txt.
#
#   tools/scripts/match-paused.sh MATCH.PY-ARGUMENTS...
#   env: DATA  the data folder holding datagen.pid (default ../data)
#
# Stop a match with `pkill -TERM -f tools/match.py`: the trap resumes datagen.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$ROOT/../data}
cd "$ROOT"
PID=$(cat "$DATA/datagen.pid" 2>/dev/null || true)
resume() {
    [ -n "$PID" ] && kill -CONT "$PID" 2>/dev/null
    echo "$(date -u +%FT%T) match end, datagen ${PID:-none} resumed" >> "$DATA/ledger.txt"
}
trap resume EXIT
trap 'exit 143' TERM INT
[ -n "$PID" ] && kill -STOP "$PID" 2>/dev/null
echo "$(date -u +%FT%T) match start, datagen ${PID:-none} paused: $*" >> "$DATA/ledger.txt"
python3 ../shared/tools/match.py "$@"
