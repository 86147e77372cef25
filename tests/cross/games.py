#!/usr/bin/env python3
"""Plays short games between two UCI engines with python-chess and fails on
what a GUI would forfeit: an illegal move, no move, or a flag fall.

    games.py --games 4 --tc 3+0.03 -- 'wine lasker.exe' ./lasker

Each engine command is split like a shell would split it, and each engine
is started once for all the games (`ucinewgame` between). Colours alternate;
a game ends by the rules, or drawn after 160 plies (enough moves to cross
the opening, the middle game and often the ending). The clock a side is
charged is the wall time from sending `go` to reading `bestmove`: what a
GUI charges, pipe and emulation included.
"""

import argparse
import shlex
import sys
import time

import chess
import chess.engine

MAX_PLIES = 160


def play(engines, commands, tc, white_first, game):
    """One game; `game` (its number) makes python-chess send `ucinewgame`
    when it changes, as a GUI does between games."""
    base, inc = (float(x) for x in tc.split("+"))
    board = chess.Board()
    clocks = [base, base]
    # engines[order[0]] plays White.
    order = (0, 1) if white_first else (1, 0)
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        side = 0 if board.turn == chess.WHITE else 1
        engine = engines[order[side]]
        limit = chess.engine.Limit(
            white_clock=clocks[0], black_clock=clocks[1], white_inc=inc, black_inc=inc
        )
        start = time.monotonic()
        result = engine.play(board, limit, game=game)
        clocks[side] -= time.monotonic() - start
        name = commands[order[side]]
        if clocks[side] < 0:
            sys.exit(f"{name} lost on time at ply {board.ply()} ({clocks[side]:.3f} s)")
        if result.move is None or result.move not in board.legal_moves:
            sys.exit(f"{name} played {result.move} in {board.fen()}")
        board.push(result.move)
        clocks[side] += inc
    outcome = board.outcome(claim_draw=True)
    return (outcome.result() if outcome else "1/2-1/2 (ply limit)"), board.ply(), clocks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--tc", default="3+0.03")
    parser.add_argument("engines", nargs=2)
    args = parser.parse_args()
    # Each engine started once for all the games, as a GUI keeps it.
    engines = [chess.engine.SimpleEngine.popen_uci(shlex.split(c)) for c in args.engines]
    try:
        for game in range(args.games):
            white_first = game % 2 == 0
            result, plies, clocks = play(engines, args.engines, args.tc, white_first, game)
            white, black = args.engines if white_first else args.engines[::-1]
            print(
                f"game {game + 1}: {white} - {black}: {result} in {plies} plies, "
                f"clocks left {clocks[0]:.2f} s / {clocks[1]:.2f} s"
            )
    finally:
        for e in engines:
            e.quit()


if __name__ == "__main__":
    main()
