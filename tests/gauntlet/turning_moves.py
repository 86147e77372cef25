#!/usr/bin/env python3
"""Where Lasker's lost games turned, by Stockfish's judgement.

For each game of PGN that Lasker lost, Stockfish at --depth scores every position from Lasker's
side until the first Lasker move that loses 100 cp or more while the game is still within 150 cp
(the turning move). Then each turning move is checked again: Stockfish at --confirm-depth scores
the best move and the move played (is it really a loss of 100 or more?), and --engine (a Lasker
binary) searches the position for --time seconds (does Lasker still play it with that much
time?). A loss Lasker avoids with more time is one of depth; one it still plays is one of
knowledge (the net, or what the search prunes).

  tests/gauntlet/turning_moves.py games.pgn --engine ./lasker [--depth 10] [--confirm-depth 18]
      [--time 2] [--stockfish /usr/games/stockfish]

Needs python-chess and Stockfish; about 10 minutes for 170 lost games on one core.
"""
import argparse

import chess
import chess.engine
import chess.pgn

PIECE_VALUES = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def non_pawn_material(board):
    """Both sides' knights, bishops, rooks and queens in pawns: 62 at the start."""
    return sum(PIECE_VALUES.get(p.piece_type, 0) for p in board.piece_map().values())


def score(engine, board, limit, side):
    """The engine's score of board from side's point of view, mates as ±3000."""
    return engine.analyse(board, limit)["score"].pov(side).score(mate_score=3000)


def lasker_side(game):
    return chess.WHITE if game.headers["White"].startswith("Lasker") else chess.BLACK


def lasker_lost(game):
    return game.headers["Result"] == ("0-1" if lasker_side(game) == chess.WHITE else "1-0")


def turning_move(game, stockfish, depth):
    """(board before the move, the move) of the first Lasker move that lost 100 cp or more while
    the game was within 150, or None where the game drifted away without one."""
    board = game.board()
    lasker = lasker_side(game)
    limit = chess.engine.Limit(depth=depth)
    before = score(stockfish, board, limit, lasker)
    for move in game.mainline_moves():
        mover = board.turn
        board.push(move)
        if board.is_game_over():
            return None
        after = score(stockfish, board, limit, lasker)
        if mover == lasker and before >= -150 and before - after >= 100:
            board.pop()
            return board, move
        before = after
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("pgn")
    parser.add_argument("--engine", required=True, help="the Lasker binary to recheck with")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--confirm-depth", type=int, default=18)
    parser.add_argument("--time", type=float, default=2.0)
    args = parser.parse_args()

    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    stockfish.configure({"Hash": 64})
    lasker = chess.engine.SimpleEngine.popen_uci(args.engine)
    lasker.configure({"Hash": 64})

    losses = turned = confirmed = still_played = 0
    by_phase = {"middlegame": 0, "late middlegame": 0, "endgame": 0}
    with open(args.pgn) as pgn:
        while (game := chess.pgn.read_game(pgn)) is not None:
            if not lasker_lost(game):
                continue
            losses += 1
            found = turning_move(game, stockfish, args.depth)
            if found is None:
                continue
            turned += 1
            board, played = found
            side = board.turn
            limit = chess.engine.Limit(depth=args.confirm_depth)
            best = score(stockfish, board, limit, side)
            board.push(played)
            after = score(stockfish, board, limit, side)
            board.pop()
            again = lasker.play(board, chess.engine.Limit(time=args.time)).move
            material = non_pawn_material(board)
            real = best - after >= 100
            print(f"move {board.fullmove_number} material {material} played {played.uci()} "
                  f"again {again.uci()} loss {best - after} {board.fen()}", flush=True)
            if real:
                confirmed += 1
                still_played += again == played
                phase = ("middlegame" if material >= 48 else
                         "late middlegame" if material >= 24 else "endgame")
                by_phase[phase] += 1
    stockfish.quit()
    lasker.quit()
    print(f"lost games {losses}; a turning move at depth {args.depth}: {turned}; "
          f"a loss of 100 or more at depth {args.confirm_depth}: {confirmed} "
          f"({', '.join(f'{k} {v}' for k, v in by_phase.items())}); "
          f"Lasker at {args.time} s still plays {still_played} of them")


if __name__ == "__main__":
    main()
