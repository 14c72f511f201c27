"""Dice and Slice: roll and write on a 12 x 9 pizza sheet. Rules: `rules/` (DS-n in
rules.md); phone pages: `web.py`; the edition editor: `editions.py`."""
from __future__ import annotations

import random

from companion.platform.sdk import EngineGame, Viewer

from . import rules
from .describe import describe, export_columns
from .rules import engine
from .rules.edition import DIE_NAMES
from .rules.geometry import DOT_H, DOT_W
from .web import WEB


class DiceAndSlice(EngineGame):
    id = "dice_and_slice"
    title = "Dice and Slice"
    min_players = 1
    max_players = 6
    entry_fields = engine.ENTRY_FIELDS
    collections = ("editions",)
    older_tables = {"editions": "ds_editions"}  # where releases before the document store kept them
    web = WEB
    engine = engine

    def view(self, state, viewer: Viewer):
        return rules.view(state, viewer.plays_for)  # every sheet is public

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def describe(self, entry_seat, entry, before, after, names):
        return describe(entry_seat, entry, before, after, names)

    def export_columns(self, states, seat):
        return export_columns(states, seat)

    def starting_seat(self, options, players):
        return engine.first_seat(options, players)  # DS-3: the seat the host chose, or the one drawn

    def document_refusal(self, collection, name, data):
        from .editions import edition_refusal  # the editor's own checks (a Flask blueprint's module)

        return edition_refusal(name, data)

    def record(self, state, seat):
        return rules.record(state, seat)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        """What the dice in the tower might show, and a dot tapped somewhere on the sheet (for the
        pattern, turned at random, or for a bonus dot)."""
        x, y = rng.randrange(DOT_W), rng.randrange(DOT_H)
        return {"faces": {d: rng.randint(1, 6) for d in DIE_NAMES}, "rot": rng.randrange(4),
                "tx": x, "ty": y, "bx": x, "by": y}


GAME = DiceAndSlice()
