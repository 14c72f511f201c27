"""Measure the Dice and Slice engine (prints medians; asserts nothing).

    /work/venv/bin/python bench/bench_dice_and_slice.py

Targets from the issue: one placement incl. region recomputation <= 1 ms; legal_placements
on a half-full sheet <= 5 ms; replaying a complete 6-player game <= 50 ms.
"Cold" figures clear the per-mask analysis cache first, as a fresh server process would.
"""
from __future__ import annotations

import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.dice_and_slice.rules import apply, legal_placements, new_state, normalize_options  # noqa: E402
from companion.games.dice_and_slice.rules import geometry as g  # noqa: E402
from companion.games.dice_and_slice import GAME  # noqa: E402
from tests.contract.playout import playout  # noqa: E402


def random_game(rnd: random.Random, players: int):
    state, steps = playout(GAME, players, rnd)  # random legal entries, as the contract suite plays
    return state, [(step.seat, step.entry) for step in steps]


def replay(players, log):
    state = new_state(players, normalize_options({}))
    for seat, e in log:
        state = apply(state, seat, e)
    return state


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    rnd = random.Random(2024)
    print(f"python {platform.python_version()} on {platform.machine()} {platform.processor() or ''} {platform.system()}")

    # 1. one placement (with region recomputation, cold cache) on a mid-game sheet
    samples = []
    for _ in range(300):
        base = new_state(1, normalize_options({}))
        half = g.mask_of(rnd.sample([(x, y) for x in range(13) for y in range(10)], 60))
        st = base._replace(seats=(base.seats[0]._replace(dots=half),))
        st = apply(apply(st, 0, {"kind": "roll", "faces": {"A": 6, "B": 3}}), 0, {"kind": "choose", "die": "A"})
        p = rnd.choice(legal_placements(half, st.face_for(0)))
        g.analyse.cache_clear()
        t = time.perf_counter()
        after = apply(st, 0, {"kind": "place", "dots": p["dots"]})
        g.analyse(after.seats[0].dots)  # the full region recomputation the view shows
        samples.append((time.perf_counter() - t) * 1000)
    print(f"apply one placement + full region analysis (cold cache): median {statistics.median(samples):.3f} ms")

    # 2. legal_placements on half-full sheets, for the biggest face of each die
    sheets = [g.mask_of(rnd.sample([(x, y) for x in range(13) for y in range(10)], 65)) for _ in range(50)]
    face = frozenset({(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)})
    face_b = frozenset({(0, 0), (1, 0), (2, 0), (0, 1)})
    it = iter(sheets * 10)
    print(f"legal_placements, plus sign, half-full sheet: median {median_ms(lambda: legal_placements(next(it), face), 400):.3f} ms")
    it = iter(sheets * 10)
    print(f"legal_placements, L of four, half-full sheet: median {median_ms(lambda: legal_placements(next(it), face_b), 400):.3f} ms")

    # 3. replay complete 6-player games
    games = [random_game(random.Random(seed), 6) for seed in range(5)]
    lens = [len(log) for _, log in games]
    print(f"complete 6-player games: {statistics.median(lens)} entries (median of {len(lens)})")
    cold, warm = [], []
    for state, log in games:
        for _ in range(5):
            g.analyse.cache_clear()
            t = time.perf_counter()
            again = replay(6, log)
            cold.append((time.perf_counter() - t) * 1000)
            assert again == state
            t = time.perf_counter()
            replay(6, log)
            warm.append((time.perf_counter() - t) * 1000)
    print(f"replay a complete 6-player game: median cold {statistics.median(cold):.1f} ms, warm cache {statistics.median(warm):.1f} ms")


if __name__ == "__main__":
    main()
