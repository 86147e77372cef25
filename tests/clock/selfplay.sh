#!/usr/bin/env bash
# Losses on time under load (issue 43): self-play at 1+0.01, two games at
# once on the 2 cores, with one busy process beside them (a machine doing
# something else, as a user's machine does), no grace past the clock.
#
#   tests/clock/selfplay.sh LASKER GAMES SEED [tables|none] [LOG]
#
# With `tables`, the engines get SyzygyPath set to a fresh copy of
# ../shared/syzygy written with direct I/O, so the copy starts outside the
# page cache (cold, as tables on a user's disk are); it is removed at the
# end. Prints match.py's result, its terminations and the losses on time,
# and how near the other moves came to the clock (timed_match.py: every
# move's clock and time go to LOG's name with .moves.tsv).
# Needs python-chess (pip install chess).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED:-$here/../../../shared}
lasker=$(realpath "$1")
games=$2
seed=$3
tables=${4:-tables}
log=${5:-clock-$tables-s$seed.log}

opts=()
cold=""
if [[ $tables == tables ]]; then
    cold=$(mktemp -d /var/tmp/lasker-tb-cold.XXXXXX)
    for f in "$shared"/syzygy/*.rtb[wz]; do
        dd if="$f" of="$cold/$(basename "$f")" bs=1M iflag=direct oflag=direct status=none
    done
    opts=(--opt1 "SyzygyPath=$cold" --opt2 "SyzygyPath=$cold")
fi
yes >/dev/null &
busy=$!
trap 'kill $busy 2>/dev/null; [[ -n $cold ]] && rm -rf "$cold"' EXIT

python3 "$here/timed_match.py" "${log%.log}.moves.tsv" --engine "$lasker" --engine "$lasker" "${opts[@]}" \
    --tc 1+0.01 --margin 0 --concurrency 2 --games "$games" --seed "$seed" \
    --openings "$shared/suites/openings_8moves_v3.epd" >"$log" 2>&1
grep -E 'games, W' "$log" | tail -1
grep terminations "$log" | tail -1
echo "losses on time: $(grep -c 'lost on time' "$log" || true)"
python3 "$here/margins.py" "${log%.log}.moves.tsv"
