#!/usr/bin/env python3
"""Which games of a tablebase match ended other than the tables say their
start position should: for each such game, the engine that spoilt it (the
side that scored less than the tables' verdict) and how.

    python3 tests/syzygy/spoilt.py tb.pgn ../shared/syzygy
"""

import collections
import sys

import chess
import chess.pgn
import chess.syzygy

SCORE = {"1-0": 1.0, "0-1": 0.0}


def main():
    pgn, folder = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "../shared/syzygy"
    spoilt = collections.Counter()
    games = 0
    with chess.syzygy.open_tablebase(folder) as tables, open(pgn) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games += 1
            board = chess.Board(game.headers["FEN"])
            wdl = tables.get_wdl(board)
            white_wdl = wdl if board.turn == chess.WHITE else -wdl
            expected = {2: 1.0, -2: 0.0}.get(white_wdl, 0.5)
            result = SCORE.get(game.headers["Result"], 0.5)
            if result == expected:
                continue
            culprit = game.headers["White"] if result < expected else game.headers["Black"]
            spoilt[culprit] += 1
            plies = len(list(game.mainline_moves()))
            print(f"{culprit} spoilt {game.headers['FEN']}: tables {expected}, "
                  f"game {game.headers['Result']} ({game.headers['Termination']}, {plies} plies)")
    print(f"{games} games; spoilt: {dict(spoilt) or 'none'}")


if __name__ == "__main__":
    main()
