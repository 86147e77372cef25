#!/bin/bash
# Fine-tunes a net on self-play files the way nets 24 and on were made, and
# prints the held-out loss of the start and of the result against the
# search's scores (--wdl 0) and against the games' results (--wdl 1), both
# at SCALE: the cheap screen before games decide.
#
#   tools/scripts/finetune.sh OUTDIR INIT.nnue FILE.vf [FILE.vf ...]
#   env: TOOLS       the lasker-tools binary (default DATA/lasker-tools)
#        DATA        the data folder (default ../data)
#        VALIDATION  positions held out from the last file's end (default 300000)
#        WDL SCALE   the results' share of the target and the sigmoid's scale
#                    (default 0.3 and 300: docs/evaluation.md, net 24)
#        EPOCHS LR   default 3 and 0.0003, falling to 0.00001
#
# The net is OUTDIR/net-EPOCHS.nnue; OUTDIR.log has the trainer's lines.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: finetune.sh OUTDIR INIT.nnue FILE.vf [FILE.vf ...]" >&2; exit 2; }
OUT=$1; INIT=$2; shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$ROOT/../data}
TOOLS=${TOOLS:-$DATA/lasker-tools}
VALIDATION=${VALIDATION:-300000}
WDL=${WDL:-0.3}; SCALE=${SCALE:-300}; EPOCHS=${EPOCHS:-3}; LR=${LR:-0.0003}
data=()
for f in "$@"; do data+=(--data "$f"); done
shape=(--hidden 512 --output-buckets 8)
held_out() { # NET WDL: the held-out loss before any training
    "$TOOLS" train "${data[@]}" --validation "$VALIDATION" --init "$1" "${shape[@]}" \
        --wdl "$2" --scale "$SCALE" --stop-after 0 --threads 2 --out "$OUT.count" 2>&1 |
        grep -m1 'validation loss' | awk '{print $NF}'
}
"$TOOLS" train "${data[@]}" --validation "$VALIDATION" --init "$INIT" "${shape[@]}" \
    --wdl "$WDL" --scale "$SCALE" --epochs "$EPOCHS" --lr "$LR" --final-lr 0.00001 \
    --threads 2 --out "$OUT" > "$OUT.log" 2>&1
for net in "$INIT" "$OUT/net-$EPOCHS.nnue"; do
    echo "$net: held out against scores $(held_out "$net" 0), against results $(held_out "$net" 1)"
done
rm -rf "$OUT.count"
