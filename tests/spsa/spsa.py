#!/usr/bin/env python3
"""SPSA tuning of Lasker's search parameters, the way OpenBench runs it.

    tests/spsa/spsa.py --engine lasker-tune --state spsa/state.json \\
        --iterations 10000 --tc 2+0.02 --openings ../shared/suites/openings_8moves_v3.epd

Each iteration perturbs every parameter by +c or -c (random signs), plays a
game pair (one opening, each side once) between the two perturbed settings,
and steps every parameter by a * (wins - losses) / c in the direction of its
sign. c and a shrink as the run goes (OpenBench's schedule: alpha 0.602,
gamma 0.101, A a tenth of the planned iterations; c_end and r_end per
parameter, as `lasker spsa` prints them).

The engine is a `--features tune` build (`cargo build --release --features
tune`): its parameters are UCI options. Both games of a pair run at once
(two cores), each engine on one thread. `--concurrency N` plays N pairs at
once (2N cores), as OpenBench's workers do: each pair is perturbed from
the values when it starts and steps them when it ends, so with N > 1 a
pair's step lands on values up to N - 1 steps newer (the order of results
then depends on the games' lengths, and a run is no longer repeatable
pair for pair).

The state file holds everything the run needs to go on: the parameters'
values and schedule, the iterations done and the random generator. It is
rewritten after every pair, so a run stopped at any moment (a session's
end, a kill) loses at most the pairs in play; Ctrl-C or SIGTERM lets those
finish first. The same command resumes it.
Beside it, `<state>.csv` gets a line per iteration: the parameters' path.
`--report` prints where the values stand against their start, and
`--apply src/params.rs` writes them, rounded, as the new defaults.

Needs python-chess (pip install chess) to play; the algorithm itself (the
functions above `play_pair`) does not, and tests/spsa/test_spsa.py checks
it without an engine.
"""

import argparse
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1


def parse_openbench(lines):
    """Parameters from OpenBench's SPSA input: `name, int, value, min, max, c_end, r_end`."""
    params = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] not in ("int", "float"):
            raise ValueError(f"not an SPSA line: {line!r}")
        value, lo, hi, c_end, r_end = map(float, fields[2:])
        if not lo <= value <= hi or c_end <= 0 or r_end <= 0:
            raise ValueError(f"bad SPSA line: {line!r}")
        params.append({"name": fields[0], "kind": fields[1], "start": value, "value": value,
                       "min": lo, "max": hi, "c_end": c_end, "r_end": r_end})
    return params


def new_state(params, iterations, seed):
    """A run of `iterations` pairs over `params`: OpenBench's constants per parameter."""
    big_a = A_RATIO * iterations
    for p in params:
        p["c"] = p["c_end"] * iterations ** GAMMA
        a_end = p["r_end"] * p["c_end"] ** 2
        p["a"] = a_end * (big_a + iterations) ** ALPHA
    return {"iterations": iterations, "A": big_a, "done": 0, "wins": 0, "losses": 0, "draws": 0,
            "seed": seed, "rng": None, "params": params}


def perturbation(state, rng):
    """The iteration's c and a for each parameter, its random sign, and the two settings."""
    k = state["done"] + 1
    steps = []
    for p in state["params"]:
        c = p["c"] / k ** GAMMA
        a = p["a"] / (state["A"] + k) ** ALPHA
        sign = rng.choice((-1, 1))
        plus = min(max(p["value"] + c * sign, p["min"]), p["max"])
        minus = min(max(p["value"] - c * sign, p["min"]), p["max"])
        steps.append({"c": c, "a": a, "sign": sign, "plus": plus, "minus": minus})
    return steps


def engine_value(p, v):
    """What the engine is sent: integers rounded."""
    return int(round(v)) if p["kind"] == "int" else v


def apply_result(state, steps, wins, losses, draws):
    """Steps every parameter by a * (wins - losses) / c along its sign (wins for `plus`)."""
    for p, s in zip(state["params"], steps):
        delta = s["a"] * (wins - losses) / s["c"] * s["sign"]
        p["value"] = min(max(p["value"] + delta, p["min"]), p["max"])
    state["done"] += 1
    state["wins"] += wins
    state["losses"] += losses
    state["draws"] += draws


def save(state, path, rng):
    version, internal, gauss = rng.getstate()
    state["rng"] = [version, list(internal), gauss]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
    os.replace(tmp, path)


def load(path):
    with open(path) as f:
        state = json.load(f)
    rng = random.Random(state["seed"])
    if state.get("rng"):
        version, internal, gauss = state["rng"]
        rng.setstate((version, tuple(internal), gauss))
    return state, rng


def report(state):
    print(f"{state['done']} of {state['iterations']} pairs; plus side W{state['wins']} "
          f"D{state['draws']} L{state['losses']}")
    moved = sorted(state["params"], key=lambda p: -abs(p["value"] - p["start"]) / p["c_end"])
    for p in moved:
        change = (p["value"] - p["start"]) / p["c_end"]
        edge = " (at its bound)" if round(p["value"]) in (p["min"], p["max"]) else ""
        print(f"{p['name']:32} {p['start']:8.0f} -> {p['value']:9.2f}  ({change:+.1f} c_end){edge}")


def apply_to_source(state, text):
    """`src/params.rs` with each tuned parameter's default set to its value, rounded.

    Returns the new text and the changes as (name, old, new); a parameter of
    the state that the file does not define is an error, so that a renamed
    one is never silently left behind."""
    changes = []
    for p in state["params"]:
        pattern = re.compile(r"^\s*" + re.escape(p["name"]) + r" = (-?\d+), -?\d+\.\.=-?\d+, step \d+;$",
                             re.MULTILINE)
        match = pattern.search(text)
        if match is None:
            raise ValueError(f"{p['name']} is not defined in the parameters' source")
        # The default becomes what the engine was sent for this value.
        old, new = int(match.group(1)), engine_value(p, p["value"])
        if old != new:
            changes.append((p["name"], old, new))
        text = text[:match.start(1)] + str(new) + text[match.end(1):]
    return text, changes


# --- games -----------------------------------------------------------------------------------

def play_game(chess, engines, fen, plus_is_white, limit, clock, inc, max_plies, game_id):
    """One game between engines[0] (plus) and engines[1] (minus); returns plus's score and why."""
    board = chess.Board(fen)
    side = {chess.WHITE: 0 if plus_is_white else 1, chess.BLACK: 1 if plus_is_white else 0}
    clocks = {chess.WHITE: clock, chess.BLACK: clock}
    scores = []

    def for_plus(white):
        return white if plus_is_white else 1 - white

    def loss_of(mover):
        return for_plus(0.0 if mover == chess.WHITE else 1.0)
    while True:
        outcome = board.outcome(claim_draw=False)
        # Draws as GUIs adjudicate them (and ../shared/tools/match.py).
        if outcome is None and board.is_fifty_moves():
            outcome = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
        elif outcome is None and board.is_repetition(3):
            outcome = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
        if outcome is not None:
            white = 0.5 if outcome.winner is None else float(outcome.winner == chess.WHITE)
            return for_plus(white), outcome.termination.name.lower()
        if board.ply() >= max_plies:
            return 0.5, "max plies"
        mover = board.turn
        if limit is None:
            go = chess.engine.Limit(white_clock=max(clocks[chess.WHITE], 0.001),
                                    black_clock=max(clocks[chess.BLACK], 0.001),
                                    white_inc=inc, black_inc=inc)
        else:
            go = limit
        start = time.monotonic()
        played = engines[side[mover]].play(board, go, game=game_id, info=chess.engine.INFO_SCORE)
        if limit is None:
            clocks[mover] -= time.monotonic() - start
            if clocks[mover] < -0.05:
                return loss_of(mover), "time"
            clocks[mover] += inc
        if played.move is None or played.move not in board.legal_moves:
            return loss_of(mover), "illegal move"
        score = played.info.get("score")
        scores.append(score.pov(mover).score(mate_score=100000) if score else None)
        board.push(played.move)
        # A clear win both sides see for four moves each ends the game.
        last = scores[-8:]
        if len(last) == 8 and None not in last and all(s >= 1000 for s in last[1::2]) \
                and all(s <= -1000 for s in last[0::2]):
            return loss_of(board.turn), "adjudicated win"


def play_pair(chess, slots, steps, params, fen, args, pair_id):
    """Both games of a pair at once, one per slot; returns (wins, losses, draws, reasons) for plus."""
    plus = {p["name"]: engine_value(p, s["plus"]) for p, s in zip(params, steps)}
    minus = {p["name"]: engine_value(p, s["minus"]) for p, s in zip(params, steps)}
    results = [None, None]

    def run(i):
        engines = slots[i]
        engines[0].configure(plus)
        engines[1].configure(minus)
        results[i] = play_game(chess, engines, fen, i == 0, args.limit, args.base, args.inc,
                               args.max_plies, f"{pair_id}-{i}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if None in results:
        raise RuntimeError("a game of the pair failed")
    wins = sum(1 for s, _ in results if s == 1.0)
    losses = sum(1 for s, _ in results if s == 0.0)
    return wins, losses, 2 - wins - losses, [r for _, r in results]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", help="a --features tune build of lasker")
    ap.add_argument("--state", required=True, help="the run's state file (created, then resumed)")
    ap.add_argument("--params", help="OpenBench SPSA lines (default: what `ENGINE spsa` prints)")
    ap.add_argument("--only", help="comma-separated names: tune only these parameters")
    ap.add_argument("--skip", help="comma-separated name prefixes to leave out (e.g. time_ at --nodes)")
    ap.add_argument("--iterations", type=int, default=10000, help="planned pairs (sets the schedule)")
    ap.add_argument("--pairs", type=int, help="stop after this many pairs in this invocation")
    ap.add_argument("--tc", help="clock BASE+INC in seconds, e.g. 2+0.02")
    ap.add_argument("--nodes", type=int, help="fixed nodes a move instead of a clock")
    ap.add_argument("--openings", required=False, help="FEN/EPD file of openings")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hash", type=int, default=8, help="MB of hash per engine")
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=1, help="pairs at once (two cores each)")
    ap.add_argument("--report", action="store_true", help="print the state and exit")
    ap.add_argument("--apply", metavar="PARAMS_RS",
                    help="write the state's values, rounded, as the defaults in this file (src/params.rs) and exit")
    args = ap.parse_args()

    if args.report:
        state, _ = load(args.state)
        report(state)
        return
    if args.apply:
        state, _ = load(args.state)
        with open(args.apply) as f:
            text, changes = apply_to_source(state, f.read())
        with open(args.apply, "w") as f:
            f.write(text)
        for name, old, new in changes:
            print(f"{name}: {old} -> {new}")
        print(f"{len(changes)} of {len(state['params'])} defaults changed in {args.apply}")
        return
    if not args.engine or not args.openings or (args.tc is None) == (args.nodes is None):
        ap.error("give --engine, --openings and one of --tc or --nodes")

    if os.path.exists(args.state):
        state, rng = load(args.state)
        print(f"resuming {args.state}: {state['done']} of {state['iterations']} pairs done", file=sys.stderr)
    else:
        if args.params:
            with open(args.params) as f:
                lines = f.readlines()
        else:
            out = subprocess.run([args.engine, "spsa"], capture_output=True, text=True, check=True)
            lines = out.stdout.splitlines()
        params = parse_openbench(lines)
        if args.only:
            keep = set(args.only.split(","))
            params = [p for p in params if p["name"] in keep]
        if args.skip:
            prefixes = tuple(args.skip.split(","))
            params = [p for p in params if not p["name"].startswith(prefixes)]
        state = new_state(params, args.iterations, args.seed)
        rng = random.Random(args.seed)
        save(state, args.state, rng)

    import chess
    import chess.engine
    if args.tc:
        base, inc = args.tc.split("+")
        args.base, args.inc, args.limit = float(base), float(inc), None
    else:
        args.base, args.inc = 0.0, 0.0
        args.limit = chess.engine.Limit(nodes=args.nodes, time=30)
    with open(args.openings) as f:
        openings = [" ".join(l.split()[:4]) + " 0 1" for l in f if l.strip() and not l.startswith("#")]

    def start():
        e = chess.engine.SimpleEngine.popen_uci([args.engine])
        e.configure({"Hash": args.hash, "Threads": 1})
        return e

    workers = max(1, args.concurrency)
    slots = [[[start(), start()], [start(), start()]] for _ in range(workers)]
    path_file = args.state + ".csv"
    new_path = not os.path.exists(path_file)
    lock = threading.Lock()
    counts = {"started": 0, "in_flight": 0}
    failures = []

    # Ctrl-C or SIGTERM: no new pair starts, the pairs in play finish and are
    # saved, and the run ends as if its planned pairs were done (a second
    # signal ends it at once, losing the pairs in play).
    stopping = threading.Event()

    def stop(signum, frame):
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        print("stopping: the pairs in play finish first", file=sys.stderr)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def worker(pair_slots, path):
        while True:
            with lock:
                if failures or stopping.is_set() \
                        or state["done"] + counts["in_flight"] >= state["iterations"] \
                        or (args.pairs is not None and counts["started"] >= args.pairs):
                    return
                steps = perturbation(state, rng)
                fen = openings[rng.randrange(len(openings))]
                pair_id = state["done"] + counts["in_flight"]
                counts["started"] += 1
                counts["in_flight"] += 1
            try:
                wins, losses, draws, reasons = play_pair(chess, pair_slots, steps, state["params"], fen,
                                                         args, pair_id)
            except Exception as e:  # an engine died: stop the run, keep what is saved
                with lock:
                    failures.append(e)
                    counts["in_flight"] -= 1
                return
            with lock:
                counts["in_flight"] -= 1
                apply_result(state, steps, wins, losses, draws)
                save(state, args.state, rng)
                path.write(f"{state['done']},{wins},{losses},"
                           + ",".join(f"{p['value']:.3f}" for p in state["params"]) + "\n")
                path.flush()
                if "time" in reasons:
                    print(f"pair {state['done']}: a loss on time", file=sys.stderr)
                if state["done"] % 50 == 0:
                    print(f"pair {state['done']}/{state['iterations']}: W{state['wins']} "
                          f"D{state['draws']} L{state['losses']}", file=sys.stderr)

    try:
        with open(path_file, "a") as path:
            if new_path:
                path.write("pair,wins,losses," + ",".join(p["name"] for p in state["params"]) + "\n")
            threads = [threading.Thread(target=worker, args=(w, path)) for w in slots]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        for pairs in slots:
            for pair in pairs:
                for e in pair:
                    e.quit()
    if failures:
        raise failures[0]
    report(state)


if __name__ == "__main__":
    main()
