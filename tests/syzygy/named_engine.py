#!/usr/bin/env python3
"""Runs a UCI engine under another `id name`, so that a match of an engine
against itself with other options tells the two apart in its PGN:

    match.py --engine "python3 tests/syzygy/named_engine.py ./lasker Lasker-TB" ...
"""

import os
import subprocess
import sys
import threading


def main():
    engine, name = sys.argv[1], sys.argv[2]
    child = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def relay_output():
        for line in child.stdout:
            if line.startswith("id name "):
                line = f"id name {name}\n"
            sys.stdout.write(line)
            sys.stdout.flush()
        # The engine has quit (or died): so does the wrapper, without
        # waiting for its own input to close.
        os._exit(child.wait())

    threading.Thread(target=relay_output).start()
    for line in sys.stdin:
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except BrokenPipeError:
            break
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
