"""Measure the Pizza Theory engine (prints medians; asserts nothing).

    /work/venv/bin/python bench/bench_pizza_theory.py

Targets from the issue: resolving one round <= 0.5 ms; outcomes for all 216 cuts <= 20 ms;
replaying a 30-round game <= 20 ms; the what-if of one round (issue 13) <= 20 ms.
"""
from __future__ import annotations

import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.pizza_theory.rules import (BOARD, apply, finished, legal_spaces, neutral_spaces,  # noqa: E402
                                          new_state, outcomes, resolve_masks, view, waiting_for)
from companion.games.pizza_theory.rules.board import load_board  # noqa: E402
from companion.games.pizza_theory.rules.engine import corner_of, what_if  # noqa: E402


def long_game(seed: int, players: int = 3, rounds: int = 30):
    """A random game in which the cutters together pick, among all 216 cuts, one that keeps the leader
    furthest from 16, so that the game lasts `rounds` rounds. Returns (log, state before the last cut
    of the last round, that last cut), or None if the game ended early anyway."""
    rnd = random.Random(seed)
    s = new_state(players, {"first_seat": 0})
    log = []
    plan: list = []
    while not finished(s):
        seat = waiting_for(s)[0]
        if s.phase == "add":
            e = {"kind": "place", "space": list(rnd.choice(legal_spaces(s, seat)))}
        elif s.phase == "neutral":
            line = rnd.randint(1, 6)
            room = neutral_spaces(s, line) if s.supply[2] else []
            e = {"kind": "neutral", "line": line, "space": list(rnd.choice(room)) if room else None}
        else:
            if not plan:
                table = outcomes(s, "current")
                low = min(max(o.would_be) for o in table.values())
                ks = rnd.choice([k for k, o in table.items() if max(o.would_be) == low])
                for st_seat in range(players):
                    c = BOARD.corners[corner_of(s, st_seat)]
                    plan.append((st_seat, {"kind": "cut", "line": c.numbering.index(ks[c.family]) + 1}))
            seat, e = plan.pop(0)
            if not plan and s.round == rounds:
                return log, s, (seat, e)
        s = apply(s, seat, e)
        log.append((seat, e))
    return None


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    game = None
    seed = 0
    while game is None:
        game = long_game(seed)
        seed += 1
    log, before_last, (seat, last_cut) = game
    log = log + [(seat, last_cut)]

    def replay():
        s = new_state(3, {"first_seat": 0})
        for st_seat, e in log:
            s = apply(s, st_seat, e)
        return s

    final = replay()
    cut_id = BOARD.cut_id(final.last.ks)
    slices = BOARD.cut_slices[cut_id]
    masks = before_last.masks
    print(f"Python {platform.python_version()} on {platform.machine()}; game: seed {seed - 1}, "
          f"{len(log)} entries, {final.round - 1 if not final.phase == 'over' else final.round} rounds resolved, "
          f"on board {[m.bit_count() for m in masks]}")
    rows = [
        ("resolve one round (resolve_masks with change list)", median_ms(lambda: resolve_masks(slices, *masks), 2000)),
        ("resolve one round via apply(last cut)", median_ms(lambda: apply(before_last, seat, last_cut), 2000)),
        ("outcomes() for all 216 cuts", median_ms(lambda: outcomes(before_last, "current"), 200)),
        (f"replay {final.round - 1}-round game ({len(log)} entries)", median_ms(replay, 100)),
        ("what_if(last round): 6 lines for each of 3 seats", median_ms(lambda: what_if(final.last), 500)),
        ("view(state, seat) with last resolution", median_ms(lambda: view(final, 0), 500)),
        ("load + validate board, precompute 216 cuts", median_ms(load_board, 20)),
    ]
    for name, ms in rows:
        print(f"{name:55s} median {ms:8.3f} ms")


if __name__ == "__main__":
    main()
