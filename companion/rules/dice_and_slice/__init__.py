"""Dice and Slice rules engine (roll-and-write pizza slicing). Pure Python.

Modules: geometry (dots, lines, regions, placements), edition (edition data and its
validation), engine (state, entries, scoring), view (JSON for the phones).
Rules are numbered DS-n in seeds/dice-and-slice.md.
"""
from __future__ import annotations

from .. import register
from ..base import Game, RuleError
from .edition import Edition, default_edition, load_edition
from .engine import (
    ENTRY_KINDS,
    State,
    apply,
    breakdown,
    finished,
    new_state,
    normalize_options,
    placements_for,
    totals,
    waiting_for,
    winners,
)
from .geometry import analyse, legal_placements
from .view import view

GAME = register(
    Game(
        id="dice_and_slice",
        title="Dice and Slice",
        min_players=1,
        max_players=6,
        new_state=new_state,
        apply=apply,
        view=view,
        finished=finished,
        winners=winners,
        totals=totals,
        normalize_options=normalize_options,
        entry_kinds=ENTRY_KINDS,
        waiting_for=waiting_for,
        extra={
            "legal_placements": legal_placements,
            "placements_for": placements_for,
            "default_edition": default_edition,
        },
    )
)

__all__ = [
    "GAME", "Edition", "RuleError", "State", "analyse", "apply", "breakdown", "default_edition",
    "finished", "legal_placements", "load_edition", "new_state", "normalize_options", "placements_for",
    "totals",
    "view", "waiting_for", "winners",
]
