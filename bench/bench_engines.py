"""The games' rules engines alone, without the web: medians in milliseconds (asserts nothing).

    python bench/bench_engines.py

Dice and Slice: one placement with its region recomputation (cold cache) <= 1 ms; legal placements
on a half-full sheet <= 5 ms; replaying a complete 6-player game <= 50 ms. Pizza Theory: resolving
one round <= 0.5 ms; outcomes of all 216 cuts <= 20 ms; replaying a 30-round game <= 20 ms; the
what-if of one round <= 20 ms. DiceZ: replaying a finished 10-player game (what a phone's request
costs when the replay cache does not hold its table). "Cold" figures clear the engines' own caches
first, as a fresh server process would.
"""
from __future__ import annotations

import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.dice_and_slice import rules as ds  # noqa: E402
from companion.games.dice_and_slice.rules import geometry  # noqa: E402
from companion.games.pizza_theory import rules as pt  # noqa: E402
from companion.games.pizza_theory.rules.board import load_board  # noqa: E402
from companion.games.pizza_theory.rules.engine import corner_of, what_if  # noqa: E402
from companion.games import every_game  # noqa: E402
from tests.contract.playout import playout  # noqa: E402

GAMES = every_game()


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def replay(game, players: int, log, options: dict | None = None):
    state = game.new_state(players, game.normalize_options({}) if options is None else options)
    for seat, entry in log:
        state = game.apply(state, seat, entry)
    return state


def row(name: str, ms: float) -> None:
    print(f"{name:62s} median {ms:8.3f} ms")


# ---- Dice and Slice ---------------------------------------------------------------------------
def random_sheet(rnd: random.Random, dots: int):
    return geometry.mask_of(rnd.sample([(x, y) for x in range(13) for y in range(10)], dots))


def one_placement(rnd: random.Random) -> float:
    """A placement on a half-full sheet and the region analysis its view shows, the cache cleared."""
    base = ds.new_state(1, ds.normalize_options({}))
    half = random_sheet(rnd, 60)
    st = base._replace(seats=(base.seats[0]._replace(dots=half),))
    st = ds.apply(ds.apply(st, 0, {"kind": "roll", "faces": {"A": 6, "B": 3}}), 0, {"kind": "choose", "die": "A"})
    placement = rnd.choice(ds.legal_placements(half, st.face_for(0)))
    geometry.analyse.cache_clear()
    t = time.perf_counter()
    after = ds.apply(st, 0, {"kind": "place", "dots": placement["dots"]})
    geometry.analyse(after.seats[0].dots)
    return (time.perf_counter() - t) * 1000


def dice_and_slice(rnd: random.Random) -> None:
    game = GAMES["dice_and_slice"]
    row("Dice and Slice: one placement + region analysis (cold)",
        statistics.median(one_placement(rnd) for _ in range(300)))
    sheets = [random_sheet(rnd, 65) for _ in range(50)]
    plus = frozenset({(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)})
    el = frozenset({(0, 0), (1, 0), (2, 0), (0, 1)})
    for name, face in (("plus sign", plus), ("L of four", el)):
        it = iter(sheets * 10)
        row(f"Dice and Slice: legal placements, {name}, half-full sheet",
            median_ms(lambda: ds.legal_placements(next(it), face), 400))
    logs = [[(s.seat, s.entry) for s in playout(game, 6, random.Random(seed))[1]] for seed in range(5)]
    cold, warm = [], []
    for log in logs:
        for _ in range(5):
            geometry.analyse.cache_clear()
            cold.append(median_ms(lambda: replay(game, 6, log), 1))
            warm.append(median_ms(lambda: replay(game, 6, log), 1))
    entries = statistics.median(len(log) for log in logs)
    row(f"Dice and Slice: replay a 6-player game ({entries:.0f} entries), cold", statistics.median(cold))
    row("Dice and Slice: the same, warm cache", statistics.median(warm))


# ---- Pizza Theory -----------------------------------------------------------------------------
def cut_keeping_it_long(s, players: int, rnd: random.Random) -> list:
    """Every seat's cut for the one of the 216 that keeps the leader furthest from winning."""
    table = pt.outcomes(s, "current")
    low = min(max(o.would_be) for o in table.values())
    ks = rnd.choice([k for k, o in table.items() if max(o.would_be) == low])
    return [(seat, {"kind": "cut", "line": pt.BOARD.corners[corner_of(s, seat)].numbering.index(
        ks[pt.BOARD.corners[corner_of(s, seat)].family]) + 1}) for seat in range(players)]


def pizza_entry(s, seat: int, rnd: random.Random) -> dict:
    if s.phase == "add":
        return {"kind": "place", "space": list(rnd.choice(pt.legal_spaces(s, seat)))}
    line = rnd.randint(1, 6)
    room = pt.neutral_spaces(s, line) if s.supply[2] else []
    return {"kind": "neutral", "line": line, "space": list(rnd.choice(room)) if room else None}


def long_game(seed: int, players: int = 3, rounds: int = 30):
    """A random game lasting `rounds` rounds: (log, the state before its last cut, that cut), or None
    if it ended early anyway."""
    rnd = random.Random(seed)
    s, log, plan = pt.new_state(players, {"first_seat": 0}), [], []
    while not pt.finished(s):
        seat = pt.waiting_for(s)[0]
        if s.phase in ("add", "neutral"):
            entry = pizza_entry(s, seat, rnd)
        else:
            plan = plan or cut_keeping_it_long(s, players, rnd)
            seat, entry = plan.pop(0)
            if not plan and s.round == rounds:
                return log, s, (seat, entry)
        s = pt.apply(s, seat, entry)
        log.append((seat, entry))
    return None


def pizza_theory() -> None:
    game, seed = None, 0
    while game is None:
        game, seed = long_game(seed), seed + 1
    log, before_last, (seat, last_cut) = game
    log = log + [(seat, last_cut)]
    final = replay(GAMES["pizza_theory"], 3, log, {"first_seat": 0})
    slices = pt.BOARD.cut_slices[pt.BOARD.cut_id(final.last.ks)]
    row("Pizza Theory: resolve one round (resolve_masks)", median_ms(lambda: pt.resolve_masks(slices, *before_last.masks), 2000))
    row("Pizza Theory: resolve one round through apply", median_ms(lambda: pt.apply(before_last, seat, last_cut), 2000))
    row("Pizza Theory: outcomes of all 216 cuts", median_ms(lambda: pt.outcomes(before_last, "current"), 200))
    row(f"Pizza Theory: replay a 30-round game ({len(log)} entries)", median_ms(lambda: replay(GAMES["pizza_theory"], 3, log, {"first_seat": 0}), 100))
    row("Pizza Theory: what-if of the last round", median_ms(lambda: what_if(final.last), 500))
    row("Pizza Theory: view of a seat", median_ms(lambda: pt.view(final, 0), 500))
    row("Pizza Theory: load the board, 216 cuts worked out", median_ms(load_board, 20))


# ---- DiceZ ------------------------------------------------------------------------------------
def dicez() -> None:
    game = GAMES["dicez"]
    _, steps = playout(game, 10, random.Random(7))
    log = [(s.seat, s.entry) for s in steps]
    row(f"DiceZ: replay a finished 10-player game ({len(log)} entries)", median_ms(lambda: replay(game, 10, log), 50))


def main() -> None:
    print(f"Python {platform.python_version()} on {platform.machine()} {platform.system()}")
    dice_and_slice(random.Random(2024))
    pizza_theory()
    dicez()


if __name__ == "__main__":
    main()
