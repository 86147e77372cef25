#!/usr/bin/env bash
# The gauntlet: Lasker against engines nobody here wrote, at 10+0.1, with
# ../shared/tools/match.py (needs python-chess: pip install chess) and the
# Debian engines (apt-get install stockfish toga2 glaurung phalanx fairymax).
#
#   tests/gauntlet/run.sh ./lasker 100 toga2 glaurung stockfish phalanx fairymax
#
# Every engine gets one thread, 64 MB of hash and no book of its own: the
# openings come from openings_8moves_v3.epd, each played with both colours.
# Logs and PGNs go to the current directory; one summary line per opponent
# is appended to gauntlet_summary.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED:-$here/../../../shared}
lasker=$(realpath "$1")
games=$2
shift 2
adapter="$here/xboard_as_uci.py"
for opponent in "$@"; do
    case $opponent in
    toga2) command=/usr/games/toga2 opts=(--opt2 Hash=64 --opt2 OwnBook=false) ;;
    glaurung) command=/usr/games/glaurung opts=(--opt2 Hash=64 --opt2 Threads=1 --opt2 OwnBook=false) ;;
    stockfish) command=/usr/games/stockfish opts=(--opt2 Hash=64 --opt2 Threads=1 --opt2 "Skill Level=${SKILL:-5}") ;;
    # xboard engines, through the adapter: book and learning off, 64 MB.
    phalanx) command="$adapter /usr/games/phalanx -b- -l- -t 65536" opts=() ;;
    fairymax) command="$adapter --edit /usr/games/fairymax" opts=() ;;
    *) echo "unknown opponent $opponent" >&2; exit 2 ;;
    esac
    python3 "$shared/tools/match.py" --engine "$lasker" --engine "$command" --opt1 Hash=64 "${opts[@]}" \
        --tc 10+0.1 --concurrency 2 --games "$games" \
        --openings "$shared/suites/openings_8moves_v3.epd" --pgn "gauntlet_$opponent.pgn" \
        >"gauntlet_$opponent.log" 2>&1
    echo "$opponent: $(grep -E 'games, W' "gauntlet_$opponent.log" | tail -1) | $(grep terminations "gauntlet_$opponent.log")" \
        >>gauntlet_summary.txt
done
