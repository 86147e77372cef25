#!/usr/bin/env python3
"""Times `go` to `bestmove` on tablebase endings (issue 43), one engine, one
process, each position searched several times in a row (the first time the
tables are cold, then warm), with and without tables.

  tests/clock/phases.py LASKER [--tables DIR] [--go "wtime 150 btime 150 winc 10 binc 10"]
                        [--repeat 3] [--fen FEN ...] [--before CMD ...]

--before sends commands right before each `go`, with no `isready` between
(a GUI that sends `setoption name Hash value 1024` or `ucinewgame` and then
`go` at once): whatever they cost is on the clock the GUI keeps.

With RUST_LOG=debug set, the engine's phase timings (root ranking, first
iteration) go to stderr, which this passes through. No dependencies.
"""
import argparse
import subprocess
import sys
import time

POSITIONS = [
    "8/3k4/8/R7/3K2p1/8/7r/8 w - - 0 56",
    "2R5/8/7p/4NKp1/8/6kr/8/8 w - - 5 61",
    "4b3/8/8/p2k4/8/2BP4/r7/5K2 w - - 0 64",
]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("engine")
    p.add_argument("--tables", help="SyzygyPath (a cold copy to see cold reads)")
    p.add_argument("--go", default="wtime 150 btime 150 winc 10 binc 10")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--fen", action="append", help="positions (default: the issue's three)")
    p.add_argument("--before", action="append", default=[], help="commands sent right before each go")
    a = p.parse_args()
    e = subprocess.Popen([a.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        e.stdin.write(line + "\n")
        e.stdin.flush()

    def wait_for(prefix):
        lines = []
        while True:
            line = e.stdout.readline()
            if not line:
                sys.exit("engine closed its output")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    send("uci")
    wait_for("uciok")
    if a.tables:
        send(f"setoption name SyzygyPath value {a.tables}")
    send("isready")
    wait_for("readyok")
    for fen in a.fen or POSITIONS:
        for i in range(a.repeat):
            send(f"position fen {fen}")
            send("isready")
            wait_for("readyok")
            start = time.monotonic()
            for cmd in a.before:
                send(cmd)
            send(f"go {a.go}")
            lines = wait_for("bestmove")
            ms = (time.monotonic() - start) * 1000
            info = [l for l in lines if l.startswith("info depth")]
            last = info[-1] if info else "(no info line)"
            print(f"{ms:7.1f} ms  {fen}  #{i + 1}  {lines[-1]}  | {last[:90]}", flush=True)
    send("quit")
    e.wait()


if __name__ == "__main__":
    main()
