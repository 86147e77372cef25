#!/usr/bin/env bash
# The calibration of UCI_Elo (docs/strength.md): Lasker at UCI_Elo E
# against Stockfish at UCI_Elo E, one match per level, then a table of the
# results to paste into docs/strength.md and README.md. A level where Lasker
# scores outside 50% ± 10% wants its row of `LEVELS` (src/strength.rs)
# moved: fewer nodes or more weakness where Lasker scores too much.
#
#   tests/strength/calibrate.sh                  # 1400 1700 2000 2300, each 100 from 2400 to the top
#   tests/strength/calibrate.sh 1400 2000        # some levels only
#   GAMES=20 TC=5+0.05 tests/strength/calibrate.sh 1400   # a quick look
#   tests/strength/calibrate.sh full@2600 full@2850   # where the range ends
#   tests/strength/calibrate.sh 1100@1350 850@1100     # the beginners' chain
#
# A level `full@E` plays Lasker at full strength (UCI_LimitStrength off)
# against Stockfish at E: how far up Stockfish's range Lasker's top row can
# go. A level `E@U` (both numbers) plays Lasker at UCI_Elo E against Lasker
# at U: the chain that calibrates the beginners' rows below Stockfish's
# range, each against the row above it (Lasker at E should score what an
# Elo difference of E - U gives). A plain level must lie in Lasker's own
# UCI_Elo range (it refuses a value outside it and would play at its old
# one).
#
# Run from the repository root after `make`. Settings (environment):
# LASKER (./lasker), STOCKFISH (/usr/games/stockfish, Debian's 15.1: its
# UCI_Elo runs 1350..2850; Lasker's to its MAX_ELO), GAMES (100 a level), TC (10+0.1),
# CONCURRENCY (2), OPENINGS (../shared/suites/openings_8moves_v3.epd),
# SEED (7, the passes' seed: which openings, in which order),
# OUT (calibration/: a PGN and a log per level), MATCH
# (../shared/tools/match.py). Both engines: one thread, 16 MB hash (their
# defaults).
set -euo pipefail

lasker=${LASKER:-./lasker}
stockfish=${STOCKFISH:-/usr/games/stockfish}
games=${GAMES:-100}
tc=${TC:-10+0.1}
concurrency=${CONCURRENCY:-2}
seed=${SEED:-7}
openings=${OPENINGS:-../shared/suites/openings_8moves_v3.epd}
out=${OUT:-calibration}
match=${MATCH:-../shared/tools/match.py}

for tool in "$lasker" "$stockfish"; do
  [ -x "$tool" ] || { echo "calibrate.sh: no engine at $tool" >&2; exit 1; }
done
echo "uci" | "$stockfish" | grep -q "option name UCI_Elo" \
  || { echo "calibrate.sh: $stockfish has no UCI_Elo" >&2; exit 1; }
# Lasker's UCI_Elo range, from its own `uci` answer.
read -r lasker_min lasker_max < <(echo "uci" | "$lasker" 2>/dev/null \
  | sed -n 's/^option name UCI_Elo type spin default [0-9]* min \([0-9]*\) max \([0-9]*\).*/\1 \2/p')
[ -n "${lasker_max:-}" ] || { echo "calibrate.sh: $lasker has no UCI_Elo" >&2; exit 1; }
# By default every row of the table's lower part, then each hundred up to
# Lasker's top (its UCI_Elo maximum, full strength), so the list follows
# `MAX_ELO` wherever it moves.
if [ "$#" -gt 0 ]; then
  levels=("$@")
else
  levels=(1400 1700 2000 2300)
  for ((elo = 2400; elo <= lasker_max; elo += 100)); do levels+=("$elo"); done
fi
# The level's Elo (E in E, full@E and E@U) and the opponent's (U, or
# Stockfish's E).
level_elo() { local e=${1#full@}; echo "${e%@*}"; }
opponent_elo() { local e=${1#full@}; echo "${e#*@}"; }
for level in "${levels[@]}"; do
  elo=$(level_elo "$level")
  opponent=$(opponent_elo "$level")
  for n in "$elo" "$opponent"; do
    case "$n" in
      "" | *[!0-9]*) echo "calibrate.sh: $level is neither E, full@E nor E@U" >&2; exit 1 ;;
    esac
  done
  if [ "${level#full@}" = "$level" ]; then
    for n in "$elo" "$opponent"; do
      if [ "$n" -lt "$lasker_min" ] || [ "$n" -gt "$lasker_max" ]; then
        echo "calibrate.sh: $lasker's UCI_Elo runs $lasker_min..$lasker_max, not $n (full@$n plays it at full strength)" >&2
        exit 1
      fi
    done
  fi
done
mkdir -p "$out"

for level in "${levels[@]}"; do
  elo=$(level_elo "$level")
  opponent=$(opponent_elo "$level")
  if [ "${level#full@}" != "$level" ]; then
    lasker_opts=()
    echo "== Lasker at full strength against Stockfish at UCI_Elo $elo: $games games at $tc" >&2
  else
    lasker_opts=(--opt1 UCI_LimitStrength=true --opt1 "UCI_Elo=$elo")
  fi
  if [ "${level#*@}" != "$level" ] && [ "${level#full@}" = "$level" ]; then
    opponent_engine=$lasker
    echo "== UCI_Elo $elo against Lasker at $opponent: $games games at $tc" >&2
  else
    opponent_engine=$stockfish
    [ "${level#full@}" != "$level" ] || echo "== UCI_Elo $elo: $games games at $tc" >&2
  fi
  python3 "$match" --engine "$lasker" --engine "$opponent_engine" \
    "${lasker_opts[@]}" \
    --opt2 UCI_LimitStrength=true --opt2 "UCI_Elo=$opponent" \
    --tc "$tc" --games "$games" --openings "$openings" \
    --concurrency "$concurrency" --seed "$seed" --pgn "$out/elo-$level.pgn" \
    | tee "$out/elo-$level.log"
done

# match.py's summary: "A vs B: N games, W.. D.. L.., score S, elo E +/- R, LOS P"
echo
echo "| UCI_Elo | games | W D L (Lasker) | score | Elo (Lasker − Stockfish) | LOS |"
echo "|---:|---:|---|---:|---:|---:|"
for level in "${levels[@]}"; do
  sed -n "s/.* \([0-9]*\) games, W\([0-9]*\) D\([0-9]*\) L\([0-9]*\), score \([0-9.]*\), elo \([-+0-9.]*\) +\/- \([0-9.a-z]*\), LOS \([0-9.]*\)/| $level | \1 | W\2 D\3 L\4 | \5 | \6 ± \7 | \8 |/p" \
    "$out/elo-$level.log"
done
