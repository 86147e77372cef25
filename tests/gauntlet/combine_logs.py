#!/usr/bin/env python3
"""Combine the logs of match.py runs between the same two engines into one
result, as if they were one match: W/D/L, Elo, LOS and terminations by
match.py's own formulas, and the SPRT's log-likelihood ratio game by game
(the first game at which it crossed a bound, had the match been stopped
there).

    combine_logs.py [--sprt 0 10] match-seed1.log match-seed2.log

Give runs on different openings (match.py --seed): the same seed replays the
same openings. Needs ../shared/tools/match.py (SHARED overrides where).
"""
import argparse
import math
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("SHARED", os.path.join(here, "..", "..", "..", "shared"))
sys.path.insert(0, os.path.join(shared, "tools"))
from match import Stats  # noqa: E402

GAME = re.compile(r"game\s+\d+ .*\((.*)\)\s+W(\d+) D(\d+) L(\d+)")


def read_log(path):
    """The first engine's results (1, 0.5, 0) and the terminations, game by
    game, from one match.py log.

    Each line carries the run's running totals, so the change from the line
    before is that game's result. With --concurrency, two games that end
    together can both print the totals after both (match.py reads the totals
    outside its lock): the first line then advances by two games and the
    second by none. Results are therefore read from the change in totals and
    terminations from each line; the two lists agree in length, and within
    such a pair the order of the two results is unknown (it matters only to
    the game at which an SPRT bound was first crossed)."""
    results, reasons = [], []
    before = (0, 0, 0)
    with open(path) as log:
        for line in log:
            m = GAME.match(line)
            if not m:
                continue
            totals = tuple(int(x) for x in m.group(2, 3, 4))
            won, drawn, lost = (t - b for t, b in zip(totals, before))
            if min(won, drawn, lost) < 0:
                sys.exit(f"{path}: totals go backwards near: {line.strip()}")
            before = totals
            results += [1] * won + [0.5] * drawn + [0] * lost
            reasons.append(m.group(1))
    if len(results) != len(reasons):
        sys.exit(f"{path}: {len(reasons)} game lines but {len(results)} games in the totals")
    return results, reasons


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sprt", nargs=2, type=float, default=[0.0, 10.0], metavar=("ELO0", "ELO1"))
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("logs", nargs="+")
    args = p.parse_args()
    lower = math.log(args.beta / (1 - args.alpha))
    upper = math.log((1 - args.beta) / args.alpha)
    stats = Stats()
    crossed = None
    for path in args.logs:
        results, reasons = read_log(path)
        for score, reason in zip(results, reasons):
            stats.add(score, reason)
            llr = stats.llr(*args.sprt)
            if crossed is None and (llr >= upper or llr <= lower):
                crossed = (stats.n(), llr, "H1" if llr >= upper else "H0")
    if stats.n() == 0:
        sys.exit("no games in those logs")
    elo, err = stats.elo()
    print(f"{stats.n()} games, W{stats.w} D{stats.d} L{stats.l}, score {stats.score():.3f}, "
          f"elo {elo:+.1f} +/- {err:.1f}, LOS {stats.los():.3f}")
    print("terminations: " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.reasons.items(), key=lambda kv: -kv[1])))
    llr = stats.llr(*args.sprt)
    print(f"SPRT elo0={args.sprt[0]:g} elo1={args.sprt[1]:g}: llr {llr:+.2f} [{lower:.2f},{upper:.2f}]", end="")
    if crossed:
        print(f"; {crossed[2]} accepted at game {crossed[0]} (llr {crossed[1]:+.2f})")
    else:
        print("; no verdict")


if __name__ == "__main__":
    main()
