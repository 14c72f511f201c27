"""DiceZ: five dice, thirteen boxes. Rules: `rules.py` (DZ-n in seeds/dicez.md); phone pages: `web.py`."""
from __future__ import annotations

import random

from companion.platform.contract import Game, RuleError, Viewer

from . import rules
from .web import WEB


class DiceZ(Game):
    id = "dicez"
    title = "DiceZ"
    min_players = rules.MIN_PLAYERS
    max_players = rules.MAX_PLAYERS
    entry_kinds = ("score", "roll")
    web = WEB

    def normalize_options(self, options):
        return rules.normalize_options(options)

    def new_state(self, players, options):
        return rules.new_state(players, options)

    def apply(self, state, seat, entry):
        return rules.apply(state, seat, entry)

    def view(self, state, viewer: Viewer):
        return rules.view(state)  # nothing in DiceZ is secret

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def waiting_for(self, state):
        return rules.waiting_for(state)

    def finished(self, state):
        return rules.finished(state)

    def winners(self, state):
        return rules.winners(state)

    def totals(self, state):
        return rules.totals(state)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        return {"dice": [rng.randint(1, 6) for _ in range(rules.DICE_PER_ROLL)]}


GAME = DiceZ()

__all__ = ["GAME", "RuleError"]
