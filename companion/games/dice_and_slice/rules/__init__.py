"""Dice and Slice rules engine (roll-and-write pizza slicing). Pure Python.

Modules: geometry (dots, lines, regions, placements), edition (edition data and its
validation), engine (state, entries, scoring), view (JSON for the phones), hints (what a
sheet previews while the player taps).
Rules are numbered DS-n in rules.md.
"""
from __future__ import annotations

from companion.platform.core.contract import RuleError

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
    record,
    totals,
    waiting_for,
    winners,
)
from .geometry import analyse, legal_placements
from .hints import hints
from .view import view

__all__ = [
    "Edition", "RuleError", "State", "analyse", "apply", "breakdown", "default_edition",
    "finished", "hints", "legal_placements", "load_edition", "new_state", "normalize_options", "placements_for", "record",
    "totals",
    "view", "waiting_for", "winners",
]
