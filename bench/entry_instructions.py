"""Instructions one API entry costs in process, counted by valgrind's callgrind (needs `valgrind`).

    python bench/entry_instructions.py [--tree CHECKOUT]

Times on these shared virtual machines move by ±15 % between runs, more than most changes to the
entry path do; an instruction count does not. This runs the same DiceZ API entries as
bench/bench_entry_cold.py through the whole WSGI app (the seat's token, the rules, the SQLite
append and commit) under callgrind twice, SHORT and LONG entries after the same setup (every table
created first), and prints (LONG - SHORT) / (LONG - SHORT entries) for the main thread: the
checkpoints and the live bus run in threads of their own and are left out. `--tree` counts another
checkout (a `git worktree` of an earlier commit) with this same script, for an A/B. Prints a count;
asserts nothing about time.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SHORT, LONG, TABLES_FOR = 300, 700, 800  # entries timed in the two runs; entries whose tables are made first


def app_and_entries(tree: Path, count: int) -> tuple:
    """The app of checkout `tree` on a new SQLite file, and `count` of its DiceZ API entries as WSGI
    environs (the tables they need are made here); entry_bytecodes.py counts the same ones."""
    sys.path[0:0] = [str(tree / "bench"), str(tree)]
    import bench_entry_cold  # the tree's own copy: the same entries as its cold and warm timings
    from companion import create_app

    app = create_app({"DATABASE_URL": f"sqlite:///{Path(tempfile.mkdtemp()) / 'count.sqlite'}",
                      "SECRET_KEY": "bench"})
    source = bench_entry_cold.entries(app)
    return app, [next(source) for _ in range(count)]


def record_all(app, environs) -> None:
    """Each entry through the whole WSGI app; stop if one of them was not recorded."""
    statuses = []
    for environ in environs:
        b"".join(app.wsgi_app(environ, lambda status, headers: statuses.append(status)))
    if any(not s.startswith("201") for s in statuses):
        sys.exit(f"an entry was not recorded: {sorted(set(statuses))}")


def child(tree: Path, count: int) -> None:
    app, environs = app_and_entries(tree, TABLES_FOR)  # the same tables are made in both runs
    record_all(app, environs[:count])


def main_thread_instructions(tree: Path, count: int, out: Path) -> int:
    subprocess.run(["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={out}",
                    sys.executable, __file__, "--child", str(count), "--tree", str(tree)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = Path(f"{out}-01").read_text()  # thread 1: the main thread
    return int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        return child(args.tree.resolve(), args.child)
    work = Path(tempfile.mkdtemp())
    short, long = (main_thread_instructions(args.tree.resolve(), n, work / f"cg.{n}") for n in (SHORT, LONG))
    print(f"{args.tree}: {(long - short) / (LONG - SHORT):,.0f} instructions per API entry (main thread, "
          f"callgrind; {LONG} - {SHORT} entries)")


if __name__ == "__main__":
    main()
