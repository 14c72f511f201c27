"""Random legal play driven by the contract alone: a seat the game waits for, a draft it could have
tapped (`sample_draft`), one of the entries `hints` calls legal. Knows no game."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from companion.platform.core.contract import Game, Viewer


@dataclass
class Step:
    seat: int
    entry: dict
    before: Any
    after: Any
    alternatives: list[dict] = field(default_factory=list)  # the other legal entries of that draft


def viewers(players: int) -> list[Viewer]:
    """Every kind of viewer the platform knows, for every seat."""
    return ([Viewer.own(s) for s in range(players)] + [Viewer.shared(s) for s in range(players)]
            + [Viewer.shared(), Viewer.table(), Viewer.host()])


def player_counts(game: Game) -> list[int]:
    counts = {game.min_players, game.max_players, min(game.min_players + 1, game.max_players)}
    return sorted(n for n in counts if n <= 6)  # six seats show every rule; more only cost time


def legal_choice(game: Game, state, rng: random.Random, tries: int = 30) -> tuple[int, list[dict]]:
    """A seat the game waits for and the legal entries of a draft it tapped."""
    waiting = game.waiting_for(state)
    assert waiting, f"{game.id}: the game is not over but waits for nobody"
    for _ in range(tries):
        seat = rng.choice(waiting)
        legal = game.hints(state, seat, game.sample_draft(state, seat, rng)).get("legal", [])
        if legal:
            return seat, legal
    raise AssertionError(f"{game.id}: none of seats {waiting} has a legal entry in {tries} drafts")


def playout(game: Game, players: int, rng: random.Random, max_steps: int = 3000,
            options: dict | None = None, tries: int = 30) -> tuple[Any, list[Step]]:
    """Play until the game ends (or max_steps). `tries`: drafts tried before a stall is an error
    (1: the first seat drawn must have something legal)."""
    state = game.new_state(players, game.normalize_options(options or {}))
    steps: list[Step] = []
    while not game.finished(state) and len(steps) < max_steps:
        seat, legal = legal_choice(game, state, rng, tries)
        entry = rng.choice(legal)
        assert game.check(state, seat, entry) is None, "hints offered an entry the rules refuse"
        after = game.apply(state, seat, entry)
        steps.append(Step(seat, entry, state, after, [e for e in legal if e != entry]))
        state = after
    return state, steps
