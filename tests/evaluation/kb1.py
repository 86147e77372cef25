#!/usr/bin/env python3
"""Lasker-Reichhelm (8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w, only 1.Kb1 wins): when
does a net find 1.Kb1 for good?

For each net, RUNS fresh engine processes search the position to DEPTH; from
each run's `info` lines it takes the first depth from which the principal
move is Kb1 (a1b1) at every later depth with a score above 100 cp, and that
depth's time and nodes. Prints one line per run and the best run per net
(issue 44: under 25 ms, best of 3, on the project's machine).

usage: tests/evaluation/kb1.py ENGINE [NET ...] [--depth 30] [--runs 3]
       (no NET: the embedded one)
"""
import argparse
import subprocess

FEN = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"


def run(engine, net, depth):
    commands = ["uci"]
    if net:
        commands.append(f"setoption name EvalFile value {net}")
    commands += ["isready", f"position fen {FEN}", f"go depth {depth}"]
    proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for c in commands:
        proc.stdin.write(c + "\n")
    proc.stdin.flush()
    rows = []  # (depth, move, score_cp or None, time ms, nodes)
    for line in proc.stdout:
        words = line.split()
        if line.startswith("info string error"):
            raise SystemExit(f"{net}: {line.strip()}")
        if words and words[0] == "bestmove":
            break
        if words[:1] != ["info"] or "pv" not in words or "depth" not in words:
            continue
        if "upperbound" in words or "lowerbound" in words:
            continue
        get = lambda key: words[words.index(key) + 1] if key in words else None
        score = None
        if get("score") == "cp":
            score = int(words[words.index("score") + 2])
        elif get("score") == "mate":
            score = 100000 if int(words[words.index("score") + 2]) > 0 else -100000
        rows.append((int(get("depth")), get("pv"), score, int(get("time")), int(get("nodes"))))
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    # The last row of each depth is its result.
    final = {}
    for row in rows:
        final[row[0]] = row
    depths = sorted(final)
    found = None
    for d in depths:
        _, move, score, _, _ = final[d]
        good = move == "a1b1" and score is not None and score > 100
        if good and found is None:
            found = final[d]
        elif not good:
            found = None
    return found, final[depths[-1]] if depths else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("engine")
    parser.add_argument("nets", nargs="*")
    parser.add_argument("--depth", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for net in args.nets or [None]:
        best = None
        for i in range(args.runs):
            found, last = run(args.engine, net, args.depth)
            if found:
                d, _, score, ms, nodes = found
                print(f"{net or 'embedded'} run {i + 1}: Kb1 for good from depth {d} "
                      f"({score} cp), {ms} ms, {nodes} nodes; depth {last[0]}: {last[1]} {last[2]} cp")
                best = ms if best is None else min(best, ms)
            else:
                print(f"{net or 'embedded'} run {i + 1}: not Kb1 for good by depth "
                      f"{last[0] if last else '-'} (last: {last})")
        print(f"{net or 'embedded'}: best {best} ms" if best is not None
              else f"{net or 'embedded'}: not found")


if __name__ == "__main__":
    main()
