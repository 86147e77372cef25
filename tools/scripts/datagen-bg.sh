#!/bin/bash
# Starts self-play datagen in the background on both cores, with the tools'
# embedded net, writing into the data folder (default ../data beside the
# checkout, as ../shared is): net<TAG>-s<SEED>.vf, datagen-s<SEED>.log,
# datagen.pid (for paused.sh) and a line in ledger.txt.
#
#   tools/scripts/datagen-bg.sh SEED
#   env: TOOLS  the lasker-tools binary (default DATA/lasker-tools)
#        NET    the net that plays: a .nnue file, or `embedded` (default)
#        TAG    the net's number, for the file name (default: the digits
#               after "net" in NET's file name, or the net src/nnue/mod.rs
#               embeds)
#        DATA   the data folder (default ../data)
#
# Take a new seed every start (nets/data.tsv lists those used) and stop
# with `kill $(cat DATA/datagen.pid)`.
set -euo pipefail
SEED=${1:?usage: datagen-bg.sh SEED}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$(mkdir -p "${DATA:-$ROOT/../data}" && cd "${DATA:-$ROOT/../data}" && pwd)
TOOLS=${TOOLS:-$DATA/lasker-tools}
NET=${NET:-embedded}
if [ "$NET" = embedded ]; then
    TAG=${TAG:-$(grep -o '"net[0-9]*-' "$ROOT/src/nnue/mod.rs" | head -1 | tr -dc 0-9)}
else
    NET=$(realpath "$NET")
    TAG=${TAG:-$(basename "$NET" | grep -o '^net[0-9]*' | tr -dc 0-9)}
fi
SYZYGY=$ROOT/../shared/syzygy
OUT=$DATA/net$TAG-s$SEED.vf
[ -e "$OUT" ] && { echo "datagen-bg.sh: $OUT exists: take a new seed" >&2; exit 1; }
args=(datagen --out "$OUT" --threads 2 --seed "$SEED" --net "$NET")
[ -d "$SYZYGY" ] && args+=(--syzygy "$SYZYGY")
echo "$(date -u +%FT%T) datagen start: $TOOLS ${args[*]}" >> "$DATA/ledger.txt"
setsid nohup "$TOOLS" "${args[@]}" > "$DATA/datagen-s$SEED.log" 2>&1 < /dev/null &
echo $! > "$DATA/datagen.pid"
# setsid gives the job an autogroup of its own (Linux), and the scheduler
# shares the cores between autogroups before it reads any nice value: a
# plain `nice 19` job still took a core's worth from the judge's Stockfish.
# The autogroup's own nice makes it yield to untimed work; timed games
# still pause it (paused.sh).
# The job's autogroup is its own only once setsid has run in it: until
# then /proc/PID/autogroup is this script's (and its caller's), which a
# write would nice instead. So wait for it to differ.
pid=$!
mine=$(cut -d' ' -f1 /proc/self/autogroup 2>/dev/null || true)
for _ in $(seq 50); do
    group=$(cut -d' ' -f1 "/proc/$pid/autogroup" 2>/dev/null) || break
    if [ "$group" != "$mine" ]; then
        echo 19 > "/proc/$pid/autogroup"
        break
    fi
    sleep 0.1
done
echo "datagen seed $SEED: pid $pid, $OUT"
