#!/bin/bash
# Runs a command with the background jobs paused and resumes them however
# it ends: on two shared cores a niced datagen still slows the engines, and
# timed games must have the cores. Each job is a process group whose
# leader's pid is in a DATA/*.pid file (datagen-bg.sh writes datagen.pid);
# the whole group is stopped (SIGSTOP), so engines a job drives stop too.
# Start and end go to DATA/ledger.txt.
#
#   tools/scripts/paused.sh COMMAND ARGS...
#   e.g. tools/scripts/paused.sh python3 ../shared/tools/match.py --engine A --engine B ...
#   env: DATA  the data folder (default ../data beside the checkout)
#
# Stop the command with SIGTERM (e.g. `pkill -TERM -f tools/match.py`): the
# trap resumes the jobs.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$ROOT/../data}
PIDS=$(cat "$DATA"/*.pid 2>/dev/null | tr '\n' ' ')
signal() {
    for pid in $PIDS; do
        kill "-$1" -- "-$pid" 2>/dev/null || kill "-$1" "$pid" 2>/dev/null
    done
}
resume() {
    signal CONT
    echo "$(date -u +%FT%T) end, resumed: ${PIDS:-none}" >> "$DATA/ledger.txt"
}
trap resume EXIT
trap 'exit 143' TERM INT
signal STOP
echo "$(date -u +%FT%T) paused ${PIDS:-none} for: $*" >> "$DATA/ledger.txt"
"$@"
