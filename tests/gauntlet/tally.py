#!/usr/bin/env python3
"""The gauntlet's verdict over several runs: reads the logs that
tests/gauntlet/run.sh writes (one game a line) and prints what
../shared/tools/gauntlet.py prints at the end of one run (each build's score
against each opponent and the pool, and NEW's paired difference over OLD),
for all of them together.

A verdict of a thousand games a build takes more than one sitting: each
sitting runs with its own SEED, and this adds them up. Only whole pairs count
(one opening against one opponent, both colours), and with two builds only
the openings both builds finished: a run cut short loses its last games, never
its pairing. Each run's openings are keyed by the log they came from, so two
runs with the same SEED are two samples, not one.

  tests/gauntlet/tally.py ../data/gauntlet/*-8+0.08-s*.log

The statistics are gauntlet.py's own (imported from ../shared/tools).
The last lines count the games each build lost on time, by a crash or by an
illegal move: there must be none.
"""
import argparse
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED_TOOLS = os.path.join(HERE, "..", "..", "..", "shared", "tools")
sys.path.insert(0, os.environ.get("GAUNTLET_TOOLS", SHARED_TOOLS))
from gauntlet import Tally, paired_difference  # noqa: E402

GAME = re.compile(r"^(?P<label>.+?) vs (?P<opp>\S+) opening (?P<i>\d+): (?P<players>.+) "
                  r"(?P<result>1-0|0-1|1/2-1/2) \((?P<reason>.*)\)$")
BUILD = re.compile(r" \[(new|old)\]$")
FAULTS = ("lost on time", "failed", "illegal move")


def read(paths):
    """games[(build, opp, run, opening)] = [scores of the build, in log order],
    and the faults: (build, reason) of each game a build lost by a fault."""
    games = defaultdict(list)
    faults = []
    for run, path in enumerate(paths):
        with open(path, errors="replace") as f:
            for line in f:
                m = GAME.match(line.rstrip("\n"))
                if not m:
                    continue
                label, opp = m["label"], m["opp"]
                tag = BUILD.search(label)
                build = tag.group(1) if tag else "build"
                white_first = m["players"].startswith(label + " - ")
                if not white_first and not m["players"].endswith(" - " + label):
                    continue
                result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[m["result"]]
                score = result if white_first else 1 - result
                games[(build, opp, run, int(m["i"]))].append(score)
                reason = m["reason"]
                if score == 0 and label in reason and any(f in reason for f in FAULTS):
                    faults.append((build, reason))
    return games, faults


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("logs", nargs="+", help="logs of tests/gauntlet/run.sh")
    a = p.parse_args()
    games, faults = read(a.logs)
    pairs = {k: v[0] + v[1] for k, v in games.items() if len(v) >= 2}
    builds = sorted({k[0] for k in pairs}, key=lambda b: {"new": 0, "old": 1}.get(b, 2))
    opps = sorted({k[1] for k in pairs})
    if len(builds) == 2:
        # the pairs both builds finished
        slots = {k[1:] for k in pairs if k[0] == "new"} & {k[1:] for k in pairs if k[0] == "old"}
    else:
        slots = {k[1:] for k in pairs}
    print(f"{len(a.logs)} logs, {len(slots)} openings x opponents" + (" played by both builds" if len(builds) == 2 else ""))
    for build in builds:
        print(f"{build}:")
        pooled = Tally()
        for opp in opps:
            t = Tally()
            for slot in sorted(s for s in slots if s[0] == opp):
                score = games[(build,) + slot]
                t.add_pair(score[0], score[1])
                pooled.add_pair(score[0], score[1])
            print(f"  vs {opp:<12} {t.n():5d} games  {t.line()}")
        print(f"  vs the pool  {pooled.n():5d} games  {pooled.line()}")
    if len(builds) == 2:
        order = sorted(slots)
        new = [pairs[("new",) + s] for s in order]
        old = [pairs[("old",) + s] for s in order]
        gain, err = paired_difference(new, old)
        print(f"new over old, paired on {len(order)} openings x opponents: {gain:+.1f} +/- {err:.1f} Elo")
    for build in builds:
        lost = [r for b, r in faults if b == build]
        print(f"{build}: {len(lost)} games lost on time, by a crash or an illegal move" + (": " + "; ".join(lost[:5]) if lost else ""))


if __name__ == "__main__":
    main()
