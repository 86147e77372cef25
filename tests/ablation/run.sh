#!/usr/bin/env bash
# Ablation matches: the full search against the same build with one
# technique switched off (`Disable`, in the `ablation` build), one match per
# technique, then a Markdown table for docs/search.md. Positive Elo means
# the technique helps.
#
#   tests/ablation/run.sh                          # every technique
#   tests/ablation/run.sh conthist corrhist lmr    # some
#   GAMES=200 TC=8+0.08 tests/ablation/run.sh histprune
#
# Run from the repository root. Settings (environment): GAMES (200 a
# technique), TC (4+0.04), CONCURRENCY (2), SEED (1), SPRT ("0 10": stop a
# match early at a verdict; empty for none), OPENINGS
# (../shared/suites/openings_8moves_v3.epd), OUT (ablation/: a log and a PGN
# per technique), MATCH (../shared/tools/match.py). The binary is built
# with `cargo build --release --features ablation` in target/ablation (the
# normal build stays as it is) and copied to $OUT/lasker-ablation, so a
# rebuild during the matches changes nothing.
set -euo pipefail

games=${GAMES:-200}
tc=${TC:-4+0.04}
concurrency=${CONCURRENCY:-2}
seed=${SEED:-1}
sprt=${SPRT-0 10}
openings=${OPENINGS:-../shared/suites/openings_8moves_v3.epd}
out=${OUT:-ablation}
match=${MATCH:-../shared/tools/match.py}

cargo build --release --features ablation --target-dir target/ablation
mkdir -p "$out"
engine="$out/lasker-ablation"
cp target/ablation/release/lasker "$engine"
if [ "$#" -gt 0 ]; then
  techniques=("$@")
else
  # The names `Disable` takes: its error message lists them.
  known=$(printf 'setoption name Disable value ?\nquit\n' | "$engine" | sed -n 's/.*(known: \(.*\)).*/\1/p')
  [ -n "$known" ] || { echo "run.sh: no technique list from $engine (not an ablation build?)" >&2; exit 1; }
  IFS=', ' read -r -a techniques <<<"$known"
fi
sprt_args=()
[ -n "$sprt" ] && sprt_args=(--sprt $sprt)

for name in "${techniques[@]}"; do
  echo "== $name: $games games at $tc" >&2
  # Engine A has the technique, B hasn't: A's score is the technique's worth.
  python3 "$match" --engine "$engine" --engine "$engine" --opt2 "Disable=$name" \
    --tc "$tc" --games "$games" --openings "$openings" --seed "$seed" \
    --concurrency "$concurrency" "${sprt_args[@]}" --pgn "$out/$name.pgn" \
    | tee "$out/$name.log"
done

# match.py's summary: "A vs B: N games, W.. D.. L.., score S, elo E +/- R, LOS P"
echo
echo "| technique (\`Disable=\`) | games | W D L (with it) | Elo of the technique | LOS |"
echo "|---|---:|---|---:|---:|"
for name in "${techniques[@]}"; do
  sed -n "s/.* \([0-9]*\) games, W\([0-9]*\) D\([0-9]*\) L\([0-9]*\), score [0-9.]*, elo \([-+0-9.]*\) +\/- \([0-9.a-z]*\), LOS \([0-9.]*\)/| \`$name\` | \1 | W\2 D\3 L\4 | \5 ± \6 | \7 |/p" \
    "$out/$name.log" | tail -1
done
