"""Pizza Theory: toppings and secret cuts on a hexagonal pizza, 2-3 players. Rules: `rules/`
(PT-n in rules.md); the board drawing: `drawing.py`; phone pages: `web.py`."""
from __future__ import annotations

import random

from companion.platform.sdk import EngineGame, Viewer

from . import rules
from .describe import describe
from .rules import engine
from .web import WEB


class PizzaTheory(EngineGame):
    id = "pizza_theory"
    title = "Pizza Theory"
    min_players = 2
    max_players = 3
    entry_fields = engine.ENTRY_FIELDS
    host_kinds = ("cut",)  # the host may enter the revealed dice of a seat that has not chosen
    web = WEB
    engine = engine

    def view(self, state, viewer: Viewer):
        # PT-8: a pending cut is shown to its own seat's device only, never to a shared one
        return rules.view(state, viewer.private_seat)

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def secret(self, entry_seat, entry, before, now, viewer: Viewer):
        return engine.secret(entry_seat, entry, before, now, viewer.private_seat)

    def describe(self, entry_seat, entry, before, after, names):
        return describe(entry_seat, entry, before, after, names)

    def export_columns(self, states, seat):
        return rules.export_columns(states, seat)

    def undo_refusal(self, seat, entry, before, now):
        return engine.undo_refusal(seat, entry, before, now)

    def record(self, state, seat):
        return engine.record(state, seat)

    def starting_seat(self, options, players):
        return options.get("first_seat", 0)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        return rules.sample_draft(rng)


GAME = PizzaTheory()
