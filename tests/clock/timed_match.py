#!/usr/bin/env python3
"""../shared/tools/match.py with every move's time written down: the clock
the mover had and the time its move took, as the match (the GUI) saw them.

  tests/clock/timed_match.py MOVES.tsv [match.py's arguments ...]

Appends one line per move to MOVES.tsv: `clock_ms spent_ms` (the mover's
clock before the move, and the time from `go` to `bestmove` as match.py
counts it). A loss on time is a move with spent > clock; how near the other
moves came (tests/clock/margins.py) is a finer measure of a build's clock
handling than the count of losses, which needs hundreds of games to see.
"""
import importlib.util
import os
import sys
import threading
import time

import chess.engine

here = os.path.dirname(os.path.abspath(__file__))
shared = os.environ.get("SHARED", os.path.join(here, "..", "..", "..", "shared"))
spec = importlib.util.spec_from_file_location("match", os.path.join(shared, "tools", "match.py"))
match = importlib.util.module_from_spec(spec)
spec.loader.exec_module(match)

out_path = sys.argv.pop(1)
out = open(out_path, "a", buffering=1)
lock = threading.Lock()
original_play = chess.engine.SimpleEngine.play


def timed_play(self, board, limit, *args, **kwargs):
    clock = limit.white_clock if board.turn == chess.WHITE else limit.black_clock
    start = time.monotonic()
    try:
        return original_play(self, board, limit, *args, **kwargs)
    finally:
        spent = time.monotonic() - start
        if clock is not None:
            with lock:
                out.write(f"{clock * 1000:.1f}\t{spent * 1000:.1f}\n")


chess.engine.SimpleEngine.play = timed_play
sys.argv[0] = "match.py"
match.main()
