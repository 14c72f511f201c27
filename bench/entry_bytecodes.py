"""Python bytecodes one API entry runs, by function: where the interpreter's share of an entry goes.

    python bench/entry_bytecodes.py [--entries 200] [--top 40] [--tree CHECKOUT]

`bench/entry_instructions.py` counts an entry's machine instructions, but under callgrind Python's
own functions are not told apart (they all run inside the interpreter's loop). This runs the same
DiceZ API entries as bench/bench_entry_cold.py through the whole WSGI app in process and counts,
with `sys.settrace` and opcode events, the bytecodes each Python function executes for them. The
tracer slows everything down a hundredfold, so it says nothing about time, only about how much
Python an entry runs and where. `--tree` counts another checkout (a `git worktree` of an earlier
commit), for an A/B. Prints counts per entry; asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from entry_instructions import app_and_entries, record_all  # this script's neighbour, not the tree's

WARM = 1000  # entries run before counting (the tables they need are made first in any case)


def where(code, tree: Path) -> str:
    """A function's name and the file it is in, as short as it can be said."""
    path = code.co_filename
    for prefix in (f"{tree}/", "site-packages/"):
        path = path.split(prefix)[-1]
    return f"{path}:{code.co_name}"


def counted(app, environs, tree: Path) -> Counter:
    counts: Counter = Counter()

    def called(frame, event, arg):
        frame.f_trace_opcodes = True
        name = where(frame.f_code, tree)

        def step(frame, event, arg):
            if event == "opcode":
                counts[name] += 1
            return step
        return step

    sys.settrace(called)
    try:
        record_all(app, environs)
    finally:
        sys.settrace(None)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=200, help="entries counted")
    parser.add_argument("--top", type=int, default=40, help="functions listed")
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    tree = args.tree.resolve()
    app, environs = app_and_entries(tree, WARM + args.entries)
    record_all(app, environs[:WARM])
    counts = counted(app, environs[WARM:], tree)
    print(f"{tree}: {sum(counts.values()) / args.entries:,.0f} bytecodes per API entry ({args.entries} entries), by function:")
    for name, n in counts.most_common(args.top):
        print(f"{n / args.entries:8.1f}  {name}")


if __name__ == "__main__":
    main()
