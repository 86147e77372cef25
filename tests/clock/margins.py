#!/usr/bin/env python3
"""Sums up the move times that tests/clock/timed_match.py wrote down.

  tests/clock/margins.py MOVES.tsv [...]

For the moves made with a short clock (under 300 ms) it prints how many
there were, how many with under 60 ms (where the clock settled before issue
43's fix), how many overran the clock (a loss on time), and how many came
within 10 and 25 ms of it, with the largest share of the clock one move took.
"""
import sys

for path in sys.argv[1:]:
    rows = []
    with open(path) as f:
        for line in f:
            clock, spent = map(float, line.split())
            rows.append((clock, spent))
    short = [(c, s) for c, s in rows if c < 300]
    under60 = sum(1 for c, s in short if c < 60)
    over = sum(1 for c, s in short if s > c)
    near10 = sum(1 for c, s in short if c - s < 10)
    near25 = sum(1 for c, s in short if c - s < 25)
    worst = max((s / c for c, s in short), default=0.0)
    longest = max((s for c, s in short), default=0.0)
    print(f"{path}: {len(rows)} moves, {len(short)} with under 300 ms on the clock: "
          f"{under60} under 60 ms, {over} overran, {near10} within 10 ms, {near25} within 25 ms; "
          f"largest share {worst:.2f}, longest {longest:.0f} ms")
