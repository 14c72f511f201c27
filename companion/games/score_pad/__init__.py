"""Score pad: a round-by-round score pad for any game on the table. Rules: `rules.py` (SP-n in
rules.md); phone pages: `web.py`. The worked example of docs/adding-a-game.md."""
from __future__ import annotations

import random

from companion.platform.sdk import EngineGame, Viewer

from . import rules
from .describe import describe
from .web import WEB


class ScorePad(EngineGame):
    id = "score_pad"
    title = "Score pad"
    min_players = rules.MIN_PLAYERS
    max_players = rules.MAX_PLAYERS
    entry_fields = rules.ENTRY_FIELDS
    web = WEB
    engine = rules

    def undo_refusal(self, seat, entry, before, now):
        return rules.undo_refusal(seat, now)

    def highest_wins(self, options):
        return options.get("wins", "highest") == "highest"

    def play_title(self, options):
        return options.get("name") or self.title  # SP-2: the game the host named, if any

    def view(self, state, viewer: Viewer):
        return rules.view(state)  # SP-14: nothing is secret, every viewer sees the whole pad

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def describe(self, entry_seat, entry, before, after, names):
        return describe(entry_seat, entry, before, after, names)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        # what a round of most card or dice games might bring, now and then a loss
        return {"points": rng.randint(-20, 60)}


GAME = ScorePad()
