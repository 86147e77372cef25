#!/usr/bin/env python3
"""Endgame start positions for the tablebase match (docs/tablebases.md):
random legal positions of the materials of ../shared/syzygy,
written as EPD with the tables' verdict.

For each material, eight positions: half with the material as named (the
first side White), half colour-flipped (the first side Black), with the
side to move chosen at random. A position is kept only if it is quiet (the
side to move is not in check and has no capture), not over, and the tables
know it; the verdict (from White's point of view, 50-move rule applied) is
kept in the comment so the file can be read without the tables.

    python3 tests/syzygy/make_openings.py ../shared/syzygy > positions/syzygy_endgames.epd
"""

import random
import sys

import chess
import chess.syzygy

# Where tables change a game's result: every 5-piece material of the test
# set, and the 4-piece ones that are not a plain win or a plain draw.
MATERIALS = [
    "KQvKR", "KRvKB", "KRvKN", "KBNvK", "KRvKP", "KQvKP", "KPvKP", "KBvKP",
    "KNvKP", "KPPvK",
    "KRPvKR", "KBPvKB", "KRBvKR", "KQPvKQ", "KQRvKR", "KRRvKR", "KRNvKR",
    "KQBvKB", "KRBvKB", "KBBvKB", "KBNvKB", "KQQvKQ", "KQRvKQ", "KQBvKQ",
    "KQNvKQ",
]
PER_MATERIAL = 8
VERDICT = {2: "win", 1: "cursed win", 0: "draw", -1: "blessed loss", -2: "loss"}


def random_position(material, rng):
    white, black = material.split("v")
    board = chess.Board(None)
    for colour, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in pieces:
            piece = chess.Piece.from_symbol(letter if colour == chess.WHITE else letter.lower())
            while True:
                square = rng.randrange(64)
                rank = chess.square_rank(square)
                if board.piece_at(square) is None and not (letter == "P" and rank in (0, 7)):
                    board.set_piece_at(square, piece)
                    break
    board.turn = rng.choice((chess.WHITE, chess.BLACK))
    return board


def quiet(board):
    return (
        board.is_valid()
        and not board.is_check()
        and not board.is_game_over()
        and not any(board.is_capture(m) for m in board.legal_moves)
    )


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "../shared/syzygy"
    rng = random.Random(2024)
    with chess.syzygy.open_tablebase(folder) as tables:
        print("# Tablebase match start positions: tests/syzygy/make_openings.py")
        for material in MATERIALS:
            for i in range(PER_MATERIAL):
                while True:
                    board = random_position(material, rng)
                    if i % 2 == 1:
                        board = board.mirror()
                    if not quiet(board):
                        continue
                    wdl = tables.get_wdl(board)
                    if wdl is None:
                        continue
                    white_wdl = wdl if board.turn == chess.WHITE else -wdl
                    break
                print(f'{board.epd()} c0 "{material} {VERDICT[white_wdl]} for White";')


if __name__ == "__main__":
    main()
