"""The built-in sheets (SS-13): each one's arithmetic checked on a worked example, a whole column
filled the way a player at that game's table would, and the total added up by hand."""
from __future__ import annotations

import pytest

from companion.games.score_sheet.rules import BUILTIN, apply, new_state, view
from companion.games.score_sheet.rules.engine import finished

# sheet id -> (the fills of one player's column, that column's points row by row, the total by hand)
WORKED = {
    "7-wonders": ({"military": 5, "treasury": {"coins": 10}, "wonder": 10, "civilian": 12, "commercial": 4,
                   "guilds": 6, "science": {"t": 2, "c": 2, "g": 1}},
                  {"treasury": 3, "science": 16}, 56),           # 10 coins // 3; 4 + 4 + 1 + 7
    "wingspan": ({"birds": 40, "bonus": 7, "goals": 12, "eggs": 11, "food": 4, "tucked": 6}, {"eggs": 11}, 80),
    "cascadia": ({"bear": 11, "elk": 9, "salmon": 12, "hawk": 8, "fox": 7, "habitats": 25, "majority": 3,
                  "nature": 2}, {"nature": 2}, 77),
    "terraforming-mars": ({"tr": 38, "awards": 7, "milestones": 2, "greenery": 9, "cities": 6, "cards": 14},
                          {"milestones": 10}, 84),
    "everdell": ({"cards": 30, "tokens": 8, "prosperity": 12, "journey": 4, "events": 6}, {"tokens": 8}, 60),
    "agricola": ({"fields": 4, "pastures": 2, "grain": 5, "vegetables": 1, "sheep": 0, "boar": 3, "cattle": 6,
                  "unused": 2, "stables": 1, "clay": 0, "stone": 4, "family": 4, "begging": 0, "cards": 3,
                  "bonus": 2},
                 {"fields": 3, "pastures": 2, "grain": 2, "vegetables": 1, "sheep": -1, "boar": 2, "cattle": 4,
                  "unused": -2, "stone": 8, "family": 12}, 37),
    "qwixx": ({"red": 5, "yellow": 3, "green": 7, "blue": 0, "penalties": 1},
              {"red": 15, "yellow": 6, "green": 28, "blue": 0, "penalties": -5}, 44),
    "azul": ({"rounds": 60, "rows": 2, "columns": 1, "colours": 1}, {"rows": 4, "columns": 7, "colours": 10}, 81),
    "ticket-to-ride": ({"len1": 2, "len2": 3, "len3": 4, "len4": 2, "len5": 1, "len6": 1, "tickets_done": 30,
                        "tickets_failed": -8, "longest": 1},
                       {"len3": 16, "len4": 14, "len5": 10, "len6": 15, "longest": 10}, 95),
    "splendor": ({"cards": 14, "nobles": 1}, {"nobles": 3}, 17),
    "carcassonne": ({"during": 80, "roads": 3, "cities": 5, "monasteries": 6, "fields": 2}, {"fields": 6}, 100),
    "kingdomino": ({"properties": 42, "middle": 1, "harmony": 0}, {"middle": 10, "harmony": 0}, 52),
    "sample": ({"bonus": 10, "coins": 7, "sets": 3, "pairs": {"a": 4, "b": 2}, "first": 1},
               {"sets": 6, "pairs": 6, "first": 5}, 34),
}


def _entry(row, value):
    if isinstance(value, dict):
        return {"kind": "fill", "row": row, "inputs": value}
    return {"kind": "fill", "row": row, "value": value}


def test_the_library_has_a_dozen_games_each_naming_its_source():  # SS-13
    games = [key for key in BUILTIN if key != "sample"]
    assert len(games) >= 12
    for key in BUILTIN:
        assert len(BUILTIN[key]["source"]) > 20, key
    assert set(WORKED) == set(BUILTIN)


@pytest.mark.parametrize("sheet_id", sorted(WORKED))
def test_a_worked_example_of_each_built_in_sheet(sheet_id):  # SS-13 SS-3 SS-9
    fills, points, total = WORKED[sheet_id]
    state = new_state(BUILTIN[sheet_id]["players"][0], {"sheet": sheet_id})
    assert set(fills) == {row["id"] for row in BUILTIN[sheet_id]["rows"]}, "the example fills every row"
    for row, value in fills.items():
        state = apply(state, 0, _entry(row, value))
    me = view(state)["players"][0]
    assert {row: me["rows"][row] for row in points} == points
    assert me["total"] == total
    assert not finished(state) or len(view(state)["players"]) == 1


def test_qwixx_crosses_follow_the_published_row_to_the_twelfth_cross():  # SS-13
    state = new_state(2, {"sheet": "qwixx"})
    for crosses, expected in enumerate([0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]):
        after = apply(state, 0, _entry("red", crosses))
        assert view(after)["players"][0]["rows"]["red"] == expected


# --- the published rules' own facts and examples (facts only, checked against the sheets) -----------


def _points(sheet_id: str, row: str, value) -> int:
    state = new_state(BUILTIN[sheet_id]["players"][0], {"sheet": sheet_id})
    return view(apply(state, 0, _entry(row, value)))["players"][0]["rows"][row]


def _total(sheet_id: str, fills: dict) -> int:
    state = new_state(BUILTIN[sheet_id]["players"][0], {"sheet": sheet_id})
    for row, value in fills.items():
        state = apply(state, 0, _entry(row, value))
    return view(state)["players"][0]["total"]


# Agricola's scoring chart: the count at which each category first scores -1, 1, 2, 3 and 4 points
AGRICOLA_STEPS = {"fields": (0, 2, 3, 4, 5), "pastures": (0, 1, 2, 3, 4), "grain": (0, 1, 4, 6, 8),
                  "vegetables": (0, 1, 2, 3, 4), "sheep": (0, 1, 4, 6, 8), "boar": (0, 1, 3, 5, 7),
                  "cattle": (0, 1, 2, 4, 6)}


@pytest.mark.parametrize("row", sorted(AGRICOLA_STEPS))
def test_agricolas_chart_scores_each_count_as_published(row):  # SS-13
    steps = AGRICOLA_STEPS[row]
    for count in range(0, 15):
        expected = [-1, 1, 2, 3, 4][sum(count >= step for step in steps) - 1]
        assert _points("agricola", row, count) == expected, (row, count)


def test_seven_wonders_science_and_treasury_follow_the_rulebooks_example():  # SS-13
    # 3, 2 and 1 of the three symbols: 9 + 4 + 1 and one set of three, 7; one more of the second: two sets
    assert _points("7-wonders", "science", {"t": 3, "c": 2, "g": 1}) == 21
    assert _points("7-wonders", "science", {"t": 3, "c": 2, "g": 2}) == 31
    assert _points("7-wonders", "treasury", {"coins": 14}) == 4  # a point per whole 3 coins
    military = BUILTIN["7-wonders"]["rows"][0]
    assert (military["min"], military["max"]) == (-6, 18)  # 6 defeats at -1; victories 1+3+5 per neighbour


def test_terraforming_mars_adds_up_the_rulebooks_scoring_example():  # SS-13
    # TR 38, one award won (5), one milestone (5), 3 greenery tiles, a city next to 5 greenery, cards 8
    assert _total("terraforming-mars", {"tr": 38, "awards": 5, "milestones": 1, "greenery": 3, "cities": 5,
                                        "cards": 8}) == 64


def test_ticket_to_ride_scores_routes_by_their_length():  # SS-13
    for length, points in zip(range(1, 7), (1, 2, 4, 7, 10, 15)):
        assert _points("ticket-to-ride", f"len{length}", 1) == points
    assert _points("ticket-to-ride", "longest", 1) == 10


def test_the_end_bonuses_of_azul_splendor_carcassonne_kingdomino_and_the_rest():  # SS-13
    assert [_points("azul", row, 1) for row in ("rows", "columns", "colours")] == [2, 7, 10]
    assert _points("splendor", "nobles", 1) == 3
    assert _points("carcassonne", "fields", 1) == 3
    assert [_points("kingdomino", row, 1) for row in ("middle", "harmony")] == [10, 5]
    assert _points("qwixx", "penalties", 4) == -20
    assert [_points("agricola", row, 1) for row in ("unused", "stables", "clay", "stone", "family", "begging")] == [
        -1, 1, 1, 2, 3, -3]
    assert _points("terraforming-mars", "milestones", 3) == 15
    assert [_points("wingspan", row, 1) for row in ("eggs", "food", "tucked")] == [1, 1, 1]
    assert _points("cascadia", "nature", 1) == 1
    ties = {key: BUILTIN[key]["tie_break"] for key in ("7-wonders", "cascadia", "azul")}
    assert ties == {"7-wonders": "treasury", "cascadia": "nature", "azul": "rows"}
