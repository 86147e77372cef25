#!/usr/bin/env python3
"""Texel-tuning positions from Lasker's games.

    python3 tests/tune/make_dataset.py [PGN ...] [--out DIR]

Reads the games (default: /work/matches/*.pgn) and writes DIR/train.txt and
DIR/valid.txt (default DIR: /work/tune-data), one position a line:
`FEN;result`, the result 1.0/0.5/0.0 from White's point of view. The split is
by game (a fixed-seed 90/10 shuffle of the games), so a game's positions are
all on one side. Skipped: games without a result or decided on time; the
start position and the first plies after it (book-like); positions in check;
the last plies of games ending in mate (a mating net the static evaluation
can't see). Each position (board, side to move, castling, en passant) is
kept once: the first time it appears in train, or in valid if it never
appears in train.
"""

import argparse
import glob
import random

import chess
import chess.pgn

SKIP_FIRST_PLIES = 4
SKIP_LAST_PLIES_BEFORE_MATE = 4
VALID_SHARE = 0.1
SEED = 20240611
RESULTS = {"1-0": "1.0", "0-1": "0.0", "1/2-1/2": "0.5"}


def game_positions(game):
    """(fen, key) for each kept position of the game."""
    board = game.board()
    moves = list(game.mainline_moves())
    mated = game.headers.get("Termination") == "checkmate"
    end = len(moves) - SKIP_LAST_PLIES_BEFORE_MATE if mated else len(moves)
    out = []
    for ply, move in enumerate(moves):
        # The position before `move` has seen `ply` plies since the start.
        if SKIP_FIRST_PLIES <= ply < end and not board.is_check():
            out.append((board.fen(), board.epd()))
        board.push(move)
    return out


def read_games(paths):
    games = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                result = RESULTS.get(game.headers.get("Result", "*"))
                if result is None or "on time" in game.headers.get("Termination", ""):
                    continue
                if game.errors:
                    continue
                games.append((result, game_positions(game)))
    return games


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="*")
    ap.add_argument("--out", default="/work/tune-data")
    args = ap.parse_args()
    paths = args.pgn or sorted(glob.glob("/work/matches/*.pgn"))
    games = read_games(paths)
    order = list(range(len(games)))
    random.Random(SEED).shuffle(order)
    n_valid = round(len(games) * VALID_SHARE)
    valid_games = set(order[:n_valid])
    seen = set()
    lines = {"train": [], "valid": []}
    # Train first, so a position shared with a validation game stays in train.
    for split in ("train", "valid"):
        for i, (result, positions) in enumerate(games):
            if (i in valid_games) != (split == "valid"):
                continue
            for fen, key in positions:
                if key not in seen:
                    seen.add(key)
                    lines[split].append(f"{fen};{result}\n")
    for split, rows in lines.items():
        with open(f"{args.out}/{split}.txt", "w") as f:
            f.writelines(rows)
    print(
        f"{len(paths)} files, {len(games)} games ({len(games) - n_valid} train, "
        f"{n_valid} valid), positions: {len(lines['train'])} train, "
        f"{len(lines['valid'])} valid"
    )


if __name__ == "__main__":
    main()
