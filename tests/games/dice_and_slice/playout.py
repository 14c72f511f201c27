"""Random legal play, for property tests and benchmarks: a whole game's log without a table."""
from __future__ import annotations

import random

from companion.games.dice_and_slice.rules import geometry as g
from companion.games.dice_and_slice.rules.engine import apply, finished, new_state, normalize_options
from companion.games.dice_and_slice.rules.geometry import legal_placements


def random_playout(rnd: random.Random, players: int, options: dict | None = None,
                   max_entries: int | None = None):
    """Play random legal entries until the game ends (or max_entries); return (state, [(seat, entry)])."""
    state = new_state(players, normalize_options(options or {}))
    log = []
    while not finished(state) and (max_entries is None or len(log) < max_entries):
        if state.phase == "roll":
            seat, e = state.active, {"kind": "roll", "faces": {"A": rnd.randint(1, 6), "B": rnd.randint(1, 6)}}
        elif state.phase == "choose":
            seat, e = state.active, {"kind": "choose", "die": rnd.choice("AB")}
        else:
            seat = rnd.choice([i for i, s in enumerate(state.seats) if s.status in ("to_place", "bonus")])
            s = state.seats[seat]
            if s.status == "to_place":
                e = {"kind": "place", "dots": rnd.choice(legal_placements(s.dots, state.face_for(seat)))["dots"]}
            elif rnd.random() < 0.2:
                e = {"kind": "skip_bonus"}
            else:
                e = {"kind": "bonus_dot", "dot": list(rnd.choice(g.dots_of(g.ALL_DOTS & ~s.dots)))}
        state = apply(state, seat, e)
        log.append((seat, e))
    return state, log
