#!/usr/bin/env bash
# The gauntlet, Lasker's yardstick for strength: one or two builds against
# the engines of opponents.txt (none of them learned from Lasker's games),
# each on the clock that puts it near Lasker 1.2.0's strength, through
# ../shared/tools/gauntlet.py (python-chess: pip install chess), with the
# background jobs paused (tools/scripts/paused.sh). Given two builds,
# every opening and opponent is played by both with both colours, and the
# last line is NEW's paired difference over OLD.
#
#   tests/gauntlet/run.sh NEW [OLD]
#   env: TC     the builds' clock (default 8+0.08, the verdict; 4+0.04 to
#               screen: the opponents' clocks scale with it)
#        PAIRS  openings per opponent (default 20: 40 games a build each)
#        SEED   the openings' shuffle (default 1)
#        ONLY   opponents to play, comma-separated (default all)
#        OUT    folder of the log and PGN (default ../data/gauntlet)
#
# Stop it with SIGTERM to this script: the games' engines end with it.
# Runs in several sittings add up with tests/gauntlet/tally.py.
# Install the pool first: bash ../shared/engines/build.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${SHARED:-$root/../shared}
[ $# -ge 1 ] && [ $# -le 2 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
builds=()
for build in "$@"; do builds+=(--engine "$(realpath "$build")"); done
tc=${TC:-8+0.08}
seed=${SEED:-1}
out=${OUT:-$root/../data/gauntlet}
mkdir -p "$out"
name="$out/$(date -u +%Y%m%dT%H%M%S)-$(basename "$1")${2:+-vs-$(basename "$2")}-$tc-s$seed"
only=()
[ -n "${ONLY:-}" ] && only=(--only "$ONLY")
echo "gauntlet: log $name.log, games $name.pgn" >&2
# The games run in a process group of their own: however they end (done,
# or this script stopped by a signal), the group is ended with them, so no
# engine outlives a stopped gauntlet.py to spin on the shared cores.
setsid "$root/tools/scripts/paused.sh" python3 "$shared/tools/gauntlet.py" "${builds[@]}" \
    --opponents "$here/opponents.txt" "${only[@]}" --tc "$tc" --pairs "${PAIRS:-20}" \
    --seed "$seed" --concurrency 2 --openings "$shared/suites/openings_8moves_v3.epd" \
    --pgn "$name.pgn" > >(tee "$name.log") 2>&1 &
games=$!
trap 'kill -TERM -- -$games 2>/dev/null' EXIT
trap 'exit 143' TERM INT
wait $games
