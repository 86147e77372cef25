#!/usr/bin/env python3
"""Make the judge set: quiet positions from games Lasker did not play, each
scored by Stockfish 15.1, for `lasker-tools judge`.

Two engines of the gauntlet's pool (never Lasker) play a game from a random
book opening, each move to a node limit; from ply 18 on (a move after the 8-move book), up to --per-game
positions of the game are drawn at random. Stockfish then searches each drawn
position to --nodes nodes with UCI_ShowWDL on; a position is kept when it is
quiet (not in check, and Stockfish's best move neither captures nor
promotes) and its score is not a mate nor beyond 2,000 cp. A kept line is

    FEN;CP;W;D;L

CP Stockfish's score in centipawns for the side to move, W D L its win, draw
and loss chances per mille: the judge's target is (W + D/2) / 1000.

  tools/judge/make_set.py --out part-s1.txt --positions 5670 --seed 1
  (the committed set: parts s1, s2 and s3, the last two with --positions 7400;
  then each position kept once, by its first four FEN fields, and sorted:
  cat part-s*.txt | awk -F';' '{split($1, f, " "); k = f[1] f[2] f[3] f[4];
      if (!(k in seen)) { seen[k] = 1; print } }' | LC_ALL=C sort | gzip -9n > judge-set.txt.gz)

Needs python-chess and the pool (`bash ../shared/engines/build.sh`).
"""
import argparse
import os
import random
import sys

import chess
import chess.engine

# Game engines: name, command, UCI options, nodes a move. Node limits make
# the games reproducible in kind and free of the clock: a busy machine
# plays the same quality.
PLAYERS = [
    ("stockfish", "/usr/games/stockfish", {"Threads": 1, "Hash": 16}, 5_000),
    ("sfclassic", "/usr/games/stockfish", {"Threads": 1, "Hash": 16, "Use NNUE": False}, 10_000),
    ("fairy", "/usr/games/fairy-stockfish", {"Threads": 1, "Hash": 16}, 10_000),
    ("ethereal", "/usr/games/ethereal-chess", {"Threads": 1, "Hash": 16}, 10_000),
    ("xiphos", "~/opponents/xiphos", {"Threads": 1, "Hash": 16}, 10_000),
    ("weiss", "~/opponents/weiss", {"Threads": 1, "Hash": 16}, 10_000),
]

MAX_PLIES = 300
# A game is over for our purpose once a side leads by this much for
# several plies: the rest is a conversion, one position type many times.
DECIDED_CP = 1_000
DECIDED_PLIES = 6
# The book's openings are 8 moves deep: positions are drawn from a move
# after them.
FIRST_PLY = 18
# Beyond this Stockfish's chances are all but certain: such positions say
# little about an evaluation.
MAX_CP = 2_000


def start(command, options):
    exe = os.path.expanduser(command)
    engine = chess.engine.SimpleEngine.popen_uci(exe)
    engine.configure({k: v for k, v in options.items() if k in engine.options})
    return engine


def book(paths):
    fens = []
    for path in paths:
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 4:
                    # 8 moves played: Stockfish's WDL model reads the ply.
                    fens.append(" ".join(fields[:4]) + " 0 9")
    return fens


def play(white, black, fen):
    """The positions of one game (FENs with their ply), to its end or until
    it is decided."""
    board = chess.Board(fen)
    positions = []
    decided = 0
    players = {chess.WHITE: white, chess.BLACK: black}
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        engine, nodes = players[board.turn]
        result = engine.play(board, chess.engine.Limit(nodes=nodes), info=chess.engine.INFO_SCORE)
        if result.move is None:
            break
        if board.ply() >= FIRST_PLY:
            positions.append(board.fen())
        score = result.info.get("score")
        cp = score.relative.score(mate_score=100_000) if score else 0
        decided = decided + 1 if abs(cp) >= DECIDED_CP else 0
        if decided >= DECIDED_PLIES:
            break
        board.push(result.move)
    return positions


def judge_line(judge, fen, nodes):
    """The kept line for `fen`, or None where it is not quiet or is mate."""
    board = chess.Board(fen)
    if board.is_check():
        return None
    info = judge.analyse(board, chess.engine.Limit(nodes=nodes), game=object())
    pv, score, wdl = info.get("pv"), info.get("score"), info.get("wdl")
    if not pv or score is None or wdl is None or score.is_mate():
        return None
    if abs(score.relative.score()) > MAX_CP:
        return None
    best = pv[0]
    if board.is_capture(best) or best.promotion:
        return None
    w, d, l = wdl.relative
    return f"{fen};{score.relative.score()};{w};{d};{l}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="append kept lines here")
    p.add_argument("--positions", type=int, required=True, help="stop once the file holds this many lines")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-game", type=int, default=24, help="positions drawn from each game")
    p.add_argument("--nodes", type=int, default=100_000, help="Stockfish's nodes for each score")
    here = os.path.dirname(os.path.abspath(__file__))
    suites = os.path.join(here, "..", "..", "..", "shared", "suites")
    p.add_argument("--book", action="append", help="FEN/EPD openings (default: the shared 8-move book)")
    a = p.parse_args()
    rng = random.Random(a.seed)
    openings = book(a.book or [os.path.join(suites, "openings_8moves_v3.epd")])
    players = []
    for name, command, options, nodes in PLAYERS:
        try:
            players.append((name, start(command, options), nodes))
        except (FileNotFoundError, PermissionError, chess.engine.EngineError) as e:
            print(f"make_set.py: {name} skipped: {e}", file=sys.stderr)
    if len(players) < 2:
        sys.exit("make_set.py: fewer than two engines")
    judge = start("/usr/games/stockfish", {"Threads": 1, "Hash": 16, "UCI_ShowWDL": True})
    have = sum(1 for _ in open(a.out)) if os.path.exists(a.out) else 0
    games = 0
    with open(a.out, "a") as out:
        while have < a.positions:
            (wname, white, wnodes), (bname, black, bnodes) = rng.sample(players, 2)
            fens = play((white, wnodes), (black, bnodes), rng.choice(openings))
            games += 1
            kept = 0
            for fen in rng.sample(fens, min(a.per_game, len(fens))):
                line = judge_line(judge, fen, a.nodes)
                if line:
                    out.write(line + "\n")
                    kept += 1
            out.flush()
            have += kept
            print(f"game {games}: {wname}-{bname} {len(fens)} plies, {kept} kept, {have} in all",
                  file=sys.stderr)
    for _, engine, _ in players:
        engine.quit()
    judge.quit()


if __name__ == "__main__":
    main()
