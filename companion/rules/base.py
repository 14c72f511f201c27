"""The contract every rules engine fulfils.

An engine is pure: no Flask, no database. Its state is a value the platform never
mutates; `apply` returns a new state or raises `RuleError` with a reason a player
understands. The platform keeps the entry log and rebuilds state by replaying it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


class RuleError(ValueError):
    """An entry the rules do not allow. `reason` is shown to the player as is."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class MalformedEntry(RuleError):
    """An entry of the wrong shape (missing field, wrong type): the API answers 400, not 422."""


def _never_secret(entry_seat, entry, state_before, state_now, viewer) -> bool:
    return False


def _no_seats(state) -> list[int]:
    return []


def _any_undo(entry_seat, entry, state_before, state_now) -> str | None:
    return None


@dataclass(frozen=True)
class Game:
    """A game's declarative definition, looked up by `id` in the registry."""

    id: str
    title: str
    min_players: int
    max_players: int
    # (player_count, options) -> initial state; options already normalised
    new_state: Callable[[int, dict], Any]
    # (state, seat, entry) -> new state; raises RuleError; must not mutate state
    apply: Callable[[Any, int, dict], Any]
    # (state, viewer seat or None for the table view) -> JSON-able dict
    view: Callable[[Any, int | None], dict]
    finished: Callable[[Any], bool]
    winners: Callable[[Any], list[int]]
    totals: Callable[[Any], list[int]]
    # options dict from a client -> complete options with defaults; raises RuleError
    normalize_options: Callable[[dict], dict]
    entry_kinds: tuple[str, ...] = ()
    # seats the game is waiting for right now (for "your turn" hints)
    waiting_for: Callable[[Any], list[int]] = _no_seats
    # is this logged entry still hidden from `viewer`? (secret choices until reveal)
    secret: Callable[[int, dict, Any, Any, int | None], bool] = _never_secret
    # why this logged entry may no longer be undone (None: it may), beyond "later entries depend
    # on it", which the platform checks by replaying without it
    undo_refusal: Callable[[int, dict, Any, Any], str | None] = _any_undo
    extra: dict = field(default_factory=dict)
