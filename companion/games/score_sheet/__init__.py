"""Score sheet: the end-of-game scoresheet of any board game (categories, counts, tables and
formulas), one column per player. Rules: `rules/` (SS-n in rules.md); phone pages:
`web.py`; the library of sheets and its API: `library.py`."""
from __future__ import annotations

import random

from companion.platform.sdk import Text, EngineGame, RuleError, Viewer

from . import designer  # noqa: F401 - the designer's routes, on the game's blueprint
from . import rules
from . import share_link  # noqa: F401 - the sheet links' routes, on the game's blueprint
from .describe import describe
from .library import saved_sheet_data
from .rules import engine
from .rules.sheet import MAX_PLAYERS, MIN_PLAYERS, load_sheet
from .web import WEB


class ScoreSheet(EngineGame):
    id = "score_sheet"
    title = "Score sheet"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    entry_fields = rules.ENTRY_FIELDS
    host_kinds = ("end",)
    collections = ("sheets",)
    web = WEB
    engine = engine

    def normalize_options(self, options):
        return engine.normalize_options(options, saved_sheet_data)

    def play_title(self, options):
        """The game on the table, as history, exports and BG Stats name it: the sheet's name."""
        return options.get("sheet", {}).get("name") or self.title

    def document_refusal(self, collection, name, data):
        """Why a saved sheet (an import of a backup asks) could not have been saved as it is."""
        try:
            load_sheet(data)
        except RuleError as exc:
            return exc.reason
        return None

    def record(self, state, seat):
        """Each row's points on the player's record, charted per sheet (a sheet's rows are its own)."""
        shown = rules.view(state)
        labels = {row["id"]: row["label"] for row in shown["sheet"]["rows"]}
        return {Text("{shown}: points per row", shown=shown['sheet']['name']): {labels[row_id]: points for row_id, points
                                                           in shown["players"][seat]["sheet"].items()}}

    def categories(self, state):
        """Each row of the sheet and every player's points in it, for the result card (an empty row is 0)."""
        shown = rules.view(state)
        return [(row["label"], [player["sheet"][row["id"]] for player in shown["players"]])
                for row in shown["sheet"]["rows"]]

    def highest_wins(self, options):
        return options.get("sheet", {}).get("wins", "highest") == "highest"

    def view(self, state, viewer: Viewer):
        return rules.view(state)  # SS-12: nothing is secret, every viewer sees the whole sheet

    def hints(self, state, seat, draft):
        return rules.hints(state, seat, draft)

    def describe(self, entry_seat, entry, before, after, names):
        return describe(entry_seat, entry, before, after, names)

    def sample_draft(self, state, seat, rng: random.Random) -> dict:
        """A row of the sheet and what a player might fill in: mostly within the row's range, now and
        then a little outside it; rarely a wish to end the game."""
        if rng.random() < 0.03:
            return {"end": True}
        row = rng.choice(rules.view(state)["sheet"]["rows"])
        if row["kind"] == "formula":
            return {"row": row["id"], "inputs": {i["name"]: rng.randint(i["min"] - 1, i["max"]) for i in row["inputs"]}}
        low, high = {"points": (row.get("min"), row.get("max")), "check": (0, 1)}.get(row["kind"], (0, row.get("max")))
        return {"row": row["id"], "value": rng.randint(low, high + 1)}


GAME = ScoreSheet()
