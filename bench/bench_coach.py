"""Measure the DiceZ coach (prints medians; asserts nothing).

    .venv/bin/python bench/bench_coach.py [--runs 3] [--house]

Targets from issue 13: the whole table for the seed rules <= 15 s on one core; advice for one
position (every open box and the hold after roll 1, from a position not asked before) <= 5 ms.
Issue 34 item 8: the first solve as a host meets it, <= 15 s on one core: the build command the
server starts for a table's first coach (a new process: Python, numpy and the rules loaded, the
rules' box scores, the solve, the table saved), timed from start to exit, for the seed rules and
for the house rules that cost the most (extra DiceZ bonus + joker).
The process is pinned to one core (the build command inherits the pin) and numpy to one thread. A fixed numpy workload (sorting and
summing 20 million floats) is timed in the same run as a baseline, so a busy machine shows as a
slower baseline rather than as a slower coach.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.dicez import coach, rules, solver  # noqa: E402


def baseline() -> float:
    data = np.random.default_rng(1).random(20_000_000)
    started = time.perf_counter()
    np.sort(data).sum()
    return time.perf_counter() - started


def build_once(options: dict) -> tuple[float, solver.Table]:
    started = time.perf_counter()
    table = solver.build(options)
    return time.perf_counter() - started, table


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def first_solve(flags: list[str]) -> tuple[float, float]:
    """(seconds from start to exit, CPU seconds) of the build command, into a folder of its own
    (nothing kept). On a core shared with other work the first is longer; the second is what the
    solve costs the core, about what it takes on a core of its own."""
    with tempfile.TemporaryDirectory() as folder:
        cpu, started = _children_cpu(), time.perf_counter()
        subprocess.run([sys.executable, "-m", "companion.games.dicez.coach_tables", "build", "--dir", folder, *flags],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        return time.perf_counter() - started, _children_cpu() - cpu


def first_solves(runs: int) -> None:
    for label, flags in (("seed rules", []), ("extra DiceZ bonus + joker", ["--extra-dicez-bonus", "--joker"])):
        walls, cpus = [], []
        for _ in range(runs):
            base = baseline()
            wall, cpu = first_solve(flags)
            walls.append(wall)
            cpus.append(cpu)
            print(f"  first solve, {label}: {wall:.2f} s, CPU {cpu:.2f} s (baseline {base:.2f} s)")
        print(f"first solve, {label}: median {statistics.median(walls):.2f} s, CPU {statistics.median(cpus):.2f} s "
              "(target <= 15 s on one core)")


def random_sheet(rnd: random.Random) -> rules.Sheet:
    """A sheet met in play: a random number of boxes filled with scores the rules could give."""
    scores = [None] * len(rules.BOXES)
    for box in rnd.sample(range(len(rules.BOXES)), rnd.randint(0, 12)):
        dice = [rnd.randint(1, 6) for _ in range(5)]
        scores[box] = rules.score_box(dice, rules.BOXES[box])
    return rules.Sheet(scores=tuple(scores))


def advice_times(table: solver.Table, count: int = 300) -> list[float]:
    rnd, times = random.Random(7), []
    for _ in range(count):
        sheet, dice = random_sheet(rnd), [rnd.randint(1, 6) for _ in range(5)]
        table.turns.clear()  # a position not asked before: its turn is worked out afresh
        started = time.perf_counter()
        coach.advice(table, sheet, dice, roll=1)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--house", action="store_true", help="extra DiceZ bonus + joker instead of the seed rules")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    options = {"extra_dicez_bonus": True, "joker": True} if args.house else {}
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}, "
          f"one core; load average {os.getloadavg()[0]:.1f}; rules: {options or 'seed'}")
    builds, bases, table = [], [], None
    for run in range(args.runs):
        bases.append(baseline())
        seconds, table = build_once(options)
        builds.append(seconds)
        print(f"  run {run + 1}: table {seconds:.2f} s (expects {table.expected(0, 0, False):.4f}), "
              f"baseline {bases[-1]:.2f} s")
    build, base = statistics.median(builds), statistics.median(bases)
    print(f"whole table: median {build:.2f} s (target <= 15 s); baseline median {base:.2f} s; ratio {build / base:.1f}")
    first_solves(args.runs)
    times = advice_times(table)
    print(f"advice for one position: median {statistics.median(times) * 1000:.2f} ms, "
          f"90th percentile {sorted(times)[int(len(times) * 0.9)] * 1000:.2f} ms (target <= 5 ms)")


if __name__ == "__main__":
    main()
