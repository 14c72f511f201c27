"""DiceZ: five dice, thirteen boxes. Rules: `rules.py` (DZ-n in rules.md); phone pages: `web.py`."""
from __future__ import annotations

import random

from companion.platform.sdk import EngineGame, RuleError, Viewer

from . import coach_modes, rules
from .describe import describe
from .web import WEB


class DiceZ(EngineGame):
    id = "dicez"
    title = "DiceZ"
    min_players = rules.MIN_PLAYERS
    max_players = rules.MAX_PLAYERS
    entry_fields = rules.ENTRY_FIELDS
    web = WEB
    engine = rules

    def normalize_options(self, options):
        """The rules' options plus the table's coach mode (off / after the game / live), which
        changes no rule: the rules never see it."""
        rest = dict(options) if isinstance(options, dict) else options
        mode = coach_modes.normalize_mode(rest.pop("coach", None)) if isinstance(rest, dict) else "off"
        return {**rules.normalize_options(rest), "coach": mode}

    def new_state(self, players, options):
        return rules.new_state(players, {k: v for k, v in (options or {}).items() if k != "coach"})

    def view(self, state, viewer: Viewer):
        return rules.view(state)  # nothing in DiceZ is secret

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def describe(self, entry_seat, entry, before, after, names):
        return describe(entry_seat, entry, before, after, names)

    def record(self, state, seat):
        return rules.record(state, seat)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        return {"dice": [rng.randint(1, 6) for _ in range(rules.DICE_PER_ROLL)]}


GAME = DiceZ()

__all__ = ["GAME", "RuleError"]
