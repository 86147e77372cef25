#!/usr/bin/env python3
"""A match's result by game pairs (pentanomial), from match.py's PGN files.

    pairs.py [--sprt 0 5] match-a.pgn [match-b.pgn ...]     (.pgn or .pgn.xz)

match.py plays every opening twice, engine A with White first, then with
Black, in one worker: of the two games with the same starting FEN, the one
written first has A as White. The two games of a pair share the opening's
bias, so their results are correlated; counting pairs (A's pair score 0,
1/2, 1, 3/2 or 2) instead of single games takes the correlation out of the
variance: the error bars and the SPRT's log-likelihood ratio are those of
the pair scores, where match.py's treat every game as independent. An
opening played in another run (another seed) is a pair of its own; a pair
whose second game is missing (a stopped match) is left out.

Elo, error (95%) and LLR use match.py's formulas with the pair mean as the
score and the variance of pair means per game, as fishtest's pentanomial
model does to first order.
"""
import argparse
import lzma
import math
import sys

RESULT = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def games(path):
    """(FEN, White's score) of each finished game of a PGN file, in order."""
    opener = lzma.open if path.endswith(".xz") else open
    fen = result = None
    with opener(path, "rt") as pgn:
        for line in pgn:
            if line.startswith("[Event "):
                if fen is not None and result in RESULT:
                    yield fen, RESULT[result]
                fen = result = None
            elif line.startswith("[FEN "):
                fen = line[len('[FEN "'):].rstrip().rstrip('"]')
            elif line.startswith("[Result "):
                result = line[len('[Result "'):].rstrip().rstrip('"]')
    if fen is not None and result in RESULT:
        yield fen, RESULT[result]


def pair_scores(paths):
    """A's score in each complete pair: (A with White) + (A with Black)."""
    scores = []
    for path in paths:
        open_pairs = {}
        for fen, white in games(path):
            if fen in open_pairs:
                scores.append(open_pairs.pop(fen) + (1.0 - white))
            else:
                open_pairs[fen] = white
    return scores


def to_elo(x):
    x = min(max(x, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / x - 1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sprt", nargs=2, type=float, default=[0.0, 5.0], metavar=("ELO0", "ELO1"))
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("pgns", nargs="+")
    args = p.parse_args()
    pairs = pair_scores(args.pgns)
    n = len(pairs)
    if n < 2:
        sys.exit("fewer than two complete pairs in those files")
    means = [s / 2 for s in pairs]
    score = sum(means) / n
    var = sum((m - score) ** 2 for m in means) / n
    half = 1.96 * math.sqrt(var / n)
    elo, err = to_elo(score), (to_elo(score + half) - to_elo(score - half)) / 2
    counts = [pairs.count(k) for k in (0.0, 0.5, 1.0, 1.5, 2.0)]
    print(f"{n} pairs ({2 * n} games), pair scores 0/0.5/1/1.5/2: {' '.join(map(str, counts))}, "
          f"score {score:.3f}, elo {elo:+.1f} +/- {err:.1f}")
    s0 = 1 / (1 + 10 ** (-args.sprt[0] / 400))
    s1 = 1 / (1 + 10 ** (-args.sprt[1] / 400))
    llr = (s1 - s0) * (2 * score - s0 - s1) * n / (2 * var) if var else 0.0
    lower = math.log(args.beta / (1 - args.alpha))
    upper = math.log((1 - args.beta) / args.alpha)
    verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "no verdict"
    print(f"SPRT elo0={args.sprt[0]:g} elo1={args.sprt[1]:g} by pairs: llr {llr:+.2f} "
          f"[{lower:.2f},{upper:.2f}] {verdict}")


if __name__ == "__main__":
    main()
