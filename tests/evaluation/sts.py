#!/usr/bin/env python3
"""The Strategic Test Suite (STS1-STS15, 1,500 positions) at a fixed node
count: a yardstick of a net that is not Lasker's own games.

Self-play measures a net against its parent, which shares its judgement;
STS's points were set by analysis with other engines, so its score is an
outside view at the cost of a few seconds. Each position is searched from a
fresh table (`ucinewgame`) on one thread to NODES nodes, which makes the
score exact: the same build, net and node count give the same points on
every run and machine. A move earns the points its position's `c8`/`c9`
list gives it (10 for the best, fewer for alternatives, 0 if unlisted).

usage: tests/evaluation/sts.py ENGINE [NET ...] [--nodes 20000] [--suite FILE]
       (no NET: the embedded one)
Prints, per net, the points of each theme and the total out of 15,000.
"""
import argparse
import os
import subprocess
import sys

SUITE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "suites", "sts.epd")


def parse(path):
    """(fen, theme, {uci move: points}) for each suite line."""
    positions = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            fields = line.split()
            fen = " ".join(fields[:4]) + " 0 1"
            ops = {}
            for op in line.split(";"):
                words = op.strip().split(None, 1)
                if len(words) == 2:
                    ops[words[0]] = words[1].strip().strip('"')
            moves, points = ops["c9"].split(), [int(p) for p in ops["c8"].split()]
            theme = ops["id"].split(")")[0] + ")"
            positions.append((fen, theme, dict(zip(moves, points))))
    return positions


def run(engine, net, nodes, positions):
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(command):
        proc.stdin.write(command + "\n")
        proc.stdin.flush()

    def wait_for(word):
        for line in proc.stdout:
            if line.startswith("info string error"):
                raise SystemExit(f"{net}: {line.strip()}")
            if line.split()[:1] == [word]:
                return line.split()
        raise SystemExit(f"{engine} ended before '{word}'")

    send("uci")
    wait_for("uciok")
    if net:
        send(f"setoption name EvalFile value {net}")
    by_theme = {}
    for fen, theme, points in positions:
        send("ucinewgame")
        send("isready")
        wait_for("readyok")
        send(f"position fen {fen}")
        send(f"go nodes {nodes}")
        move = wait_for("bestmove")[1]
        by_theme[theme] = by_theme.get(theme, 0) + points.get(move, 0)
    send("quit")
    proc.wait()
    return by_theme


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engine")
    parser.add_argument("nets", nargs="*")
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--suite", default=SUITE)
    args = parser.parse_args()
    if not os.path.exists(args.suite):
        sys.exit(f"no suite at {args.suite} (../shared/suites/sts.epd, or give --suite)")
    positions = parse(args.suite)
    for net in args.nets or [None]:
        by_theme = run(args.engine, net, args.nodes, positions)
        total = sum(by_theme.values())
        themes = " ".join(str(p) for p in by_theme.values())
        # Each position's best move is worth 10.
        print(f"{net or 'embedded'}: {total} of {10 * len(positions)} at {args.nodes} nodes; "
              f"by theme {themes}",
              flush=True)


if __name__ == "__main__":
    main()
