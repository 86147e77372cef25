#!/usr/bin/env python3
"""Presents an xboard (CECP) engine as a UCI engine, so that match.py (which
speaks UCI only) can play Debian's fairymax and phalanx.

    xboard_as_uci.py /usr/games/phalanx -b- -l-
    xboard_as_uci.py --edit /usr/games/fairymax

Understands what match.py sends: uci, isready, ucinewgame, position
(startpos or fen, with moves), go with a clock or movetime, quit. The xboard
engine gets the same clock through `level`/`time`/`otim` (python-chess does
the translation). A resignation is answered with `bestmove 0000`, which the
match counts as a loss, as a resignation is.

python-chess needs the engine's `setboard`. Fairy-Max doesn't have it, so
`--edit` drives the engine directly and sets each position up with the
protocol's older `edit` mode (the root position, then the game's moves).
Edit mode infers castling rights from the king and rook squares and knows
no en-passant square; opening positions rarely need either.
"""
import subprocess
import sys

import chess
import chess.engine


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def parse_position(tokens):
    if tokens[:1] == ["startpos"]:
        board, rest = chess.Board(), tokens[1:]
    else:
        end = tokens.index("moves") if "moves" in tokens else len(tokens)
        board, rest = chess.Board(" ".join(tokens[1:end])), tokens[end:]
    for uci in rest[1:] if rest[:1] == ["moves"] else []:
        board.push_uci(uci)
    return board


def parse_limit(tokens):
    values = dict(zip(tokens[::2], tokens[1::2]))
    seconds = lambda key: float(values[key]) / 1000 if key in values else None
    if "movetime" in values:
        return chess.engine.Limit(time=seconds("movetime"))
    return chess.engine.Limit(
        white_clock=seconds("wtime"),
        black_clock=seconds("btime"),
        white_inc=seconds("winc") or 0,
        black_inc=seconds("binc") or 0,
        remaining_moves=int(values["movestogo"]) if "movestogo" in values else None,
    )


class EditModeEngine:
    """An xboard engine without `setboard`, spoken to line by line."""

    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.id = {"name": command[0]}
        self.write("xboard", "protover 2")
        while True:
            line = self.proc.stdout.readline()
            if not line or "done=1" in line:
                break
            if 'myname="' in line:
                self.id["name"] = line.split('myname="')[1].split('"')[0]
        self.write("post off", "easy")

    def write(self, *lines):
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def play(self, board, limit, game=None):
        root = board.root()
        self.write("new", "force")
        if root.turn == chess.BLACK:
            self.write("a2a3")  # the protocol's way to set up Black to move
        self.write("edit", "#")
        for color in (chess.WHITE, chess.BLACK):
            if color == chess.BLACK:
                self.write("c")
            for square, piece in root.piece_map().items():
                if piece.color == color:
                    self.write(piece.symbol().upper() + chess.square_name(square))
        self.write(".")
        for move in board.move_stack:
            self.write(move.uci())
        if limit.time is not None:
            self.write(f"st {max(limit.time, 0.01):.2f}")
        else:
            ours, theirs = (limit.white_clock, limit.black_clock) if board.turn else \
                (limit.black_clock, limit.white_clock)
            inc = limit.white_inc if board.turn else limit.black_inc
            base = max(ours, 1)
            self.write(f"level 0 {int(base // 60)}:{int(base % 60):02d} {inc:g}",
                       f"time {int(ours * 100)}", f"otim {int(theirs * 100)}")
        self.write("go")
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return chess.engine.PlayResult(None, None)
            words = line.split()
            if words[:1] == ["move"] and len(words) > 1:
                self.write("force")
                return chess.engine.PlayResult(chess.Move.from_uci(words[1]), None)
            if words[:1] in (["resign"], ["1-0"], ["0-1"], ["1/2-1/2"]):
                return chess.engine.PlayResult(None, None)

    def quit(self):
        self.write("quit")
        self.proc.wait(timeout=5)


def main():
    if sys.argv[1] == "--edit":
        engine = EditModeEngine(sys.argv[2:])
    else:
        engine = chess.engine.SimpleEngine.popen_xboard(sys.argv[1:])
    board, game = chess.Board(), 0
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        command = tokens[0]
        if command == "uci":
            send("id name " + engine.id.get("name", sys.argv[1]))
            send("uciok")
        elif command == "isready":
            send("readyok")
        elif command == "ucinewgame":
            game += 1
        elif command == "position":
            board = parse_position(tokens[1:])
        elif command == "go":
            result = engine.play(board, parse_limit(tokens[1:]), game=game)
            send("bestmove " + (result.move.uci() if result.move else "0000"))
        elif command == "quit":
            break
    engine.quit()


if __name__ == "__main__":
    main()
