"""DiceZ: five dice, thirteen boxes. Rules: `rules.py` (DZ-n in seeds/dicez.md); phone pages: `web.py`."""
from __future__ import annotations

import random

from companion.platform.contract import EngineGame, RuleError, Viewer

from . import rules
from .web import WEB


class DiceZ(EngineGame):
    id = "dicez"
    title = "DiceZ"
    min_players = rules.MIN_PLAYERS
    max_players = rules.MAX_PLAYERS
    entry_fields = rules.ENTRY_FIELDS
    web = WEB
    engine = rules

    def view(self, state, viewer: Viewer):
        return rules.view(state)  # nothing in DiceZ is secret

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def record(self, state, seat):
        return rules.record(state, seat)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        return {"dice": [rng.randint(1, 6) for _ in range(rules.DICE_PER_ROLL)]}


GAME = DiceZ()

__all__ = ["GAME", "RuleError"]
