"""Score sheet rules. Each test names the rule (SS-n in rules.md) it checks."""
from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.score_sheet import rules
from companion.games.score_sheet.rules import BUILTIN, apply, hints, new_state, normalize_options, view
from companion.games.score_sheet.rules.engine import finished, ranks, totals, waiting_for, winners
from companion.games.score_sheet.rules.sheet import load_sheet, sheet_from_data
from companion.platform.core.contract import MalformedEntry, RuleError, Viewer
from companion.platform.core.registry import GAMES
from tests.contract.playout import playout

GAME = GAMES["score_sheet"]


def fill(row, value=None, **inputs):
    return {"kind": "fill", "row": row, **({"inputs": inputs} if inputs else {"value": value})}


END = {"kind": "end"}


def small_sheet(**changes):
    """Three rows, one of each common kind, for 1 to 4 players; `changes` replace top-level fields."""
    data = {"name": "Little game", "players": [1, 4], "wins": "highest", "tie_break": "gems", "rows": [
        {"id": "gold", "label": "Gold", "kind": "points", "min": -5, "max": 20},
        {"id": "gems", "label": "Gems", "kind": "count", "points_each": 2, "max": 10},
        {"id": "crown", "label": "Crown", "kind": "check", "points": 7},
    ]}
    return {**data, **changes}


def table(players=2, sheet=None):
    return new_state(players, {"sheet": sheet or small_sheet()})


def play(state, *fills):
    """(seat, entry) pairs in order."""
    for seat, entry in fills:
        state = apply(state, seat, entry)
    return state


# --- the sheet ----------------------------------------------------------------------------------


def test_registered_with_its_contract():  # SS-1
    assert (GAME.id, GAME.title, GAME.min_players, GAME.max_players) == ("score_sheet", "Score sheet", 1, 12)
    assert GAME.entry_kinds == ("fill", "end")
    assert GAME.host_kinds == ("end",)
    assert GAME.collections == ("sheets",)


def test_a_table_keeps_its_own_copy_of_a_built_in_sheet():  # SS-1
    options = normalize_options({"sheet": "7-wonders"})
    assert options["sheet_id"] == "7-wonders"
    assert options["sheet"]["name"] == "7 Wonders"
    assert normalize_options(copy.deepcopy(options)) == options  # a rematch's options stay the same


def test_a_table_takes_a_saved_sheet_through_the_finder_and_refuses_an_unknown_one():  # SS-1
    saved = {"mine1": small_sheet(name="Ours")}
    assert normalize_options({"sheet": "mine1"}, saved.get)["sheet"]["name"] == "Ours"
    with pytest.raises(RuleError, match="There is no sheet 'nope'"):
        normalize_options({"sheet": "nope"}, saved.get)
    with pytest.raises(RuleError, match="no option 'colour'"):
        normalize_options({"colour": "red"})


def test_the_players_must_fit_the_sheet():  # SS-1
    with pytest.raises(RuleError, match="7 Wonders is for 3 to 7 players; got 2"):
        new_state(2, {"sheet": "7-wonders"})
    assert len(new_state(7, {"sheet": "7-wonders"}).fills) == 7


@pytest.mark.parametrize("change, reason", [
    ({"name": ""}, "The sheet's name is missing"),
    ({"players": [0, 4]}, "The fewest players must be a whole number from 1 to 12"),
    ({"players": [3, 2]}, "The most players must be a whole number from 3 to 12"),
    ({"wins": "most"}, 'Who wins is "highest" or "lowest"'),
    ({"tie_break": "silver"}, "The tie-breaker must be one of the sheet's row ids, not 'silver'"),
    ({"rows": []}, "A sheet has 1 to 30 rows"),
    ({"colour": "red"}, "A sheet has no field 'colour'"),
    ({"rows": [{"id": "a", "label": "A", "kind": "dice"}]}, "A has no kind 'dice'"),
    ({"rows": [{"id": "a", "label": "A", "kind": "points", "min": 3, "max": 1}]}, "The max of A must be a whole number from 3"),
    ({"rows": [{"id": "a", "label": "A", "kind": "count", "points_each": 1, "max": 5, "table": [1]}]},
     "A \\(a count row\\) has no field 'table'"),
    ({"rows": [{"id": "a", "label": "A", "kind": "check", "points": 1}] * 2}, "Two rows have the id 'a'"),
    ({"rows": [{"id": "A b", "label": "A", "kind": "check", "points": 1}]}, "The id of A must be a short lowercase word"),
    ({"rows": [{"id": "a", "label": "A", "kind": "table", "table": [], "max": 3}]}, "A needs its table"),
], ids=lambda v: str(v)[:40])
def test_a_sheet_that_breaks_the_rules_is_refused_with_the_reason(change, reason):  # SS-2 SS-3
    with pytest.raises(RuleError, match=reason):
        sheet_from_data(small_sheet(**change))


# --- formulas (SS-6) ----------------------------------------------------------------------------


def formula_sheet(expression, inputs=(("t", 0, 9), ("c", 0, 9), ("g", 0, 9))):
    return small_sheet(tie_break=None, rows=[{"id": "science", "label": "Science", "kind": "formula",
                                              "expression": expression,
                                              "inputs": [{"name": n, "min": lo, "max": hi} for n, lo, hi in inputs]}])


def test_the_science_formula_gives_the_published_worked_values():  # SS-3 SS-6
    state = table(2, formula_sheet("t*t + c*c + g*g + 7*min(t, c, g)"))
    state = apply(state, 0, fill("science", t=2, c=2, g=1))   # 4 + 4 + 1 + one set of 7
    state = apply(state, 1, fill("science", t=3, c=0, g=0))
    assert totals(state) == [16, 9]


@pytest.mark.parametrize("expression, inputs, reason", [
    ("10 // x", (("x", 0, 3),), "divides by zero when x = 0"),
    ("t + y", (("t", 0, 3),), "uses 'y', which is not one of its inputs \\(t\\)"),
    ("__import__('os')", (("t", 0, 3),), "uses '__import__'|may only"),
    ("t.real", (("t", 0, 3),), "may only use numbers"),
    ("[t, t]", (("t", 0, 3),), "may only use numbers"),
    ("t ** 50", (("t", 0, 3),), "cannot be worked out when t = 0|cannot be worked out"),
    ("t * 1000", (("t", 0, 1000),), "gives 101000 when t = 101"),
    ("t + " * 60 + "t", (("t", 0, 3),), "characters long; at most 200"),
    ("t +", (("t", 0, 3),), "is not a complete expression"),
    ("1.5 * t", (("t", 0, 3),), "whole numbers"),
    ("a + b + c", (("a", 0, 99), ("b", 0, 99), ("c", 0, 9)), "together allow 100000 combinations"),
    ("", (("t", 0, 3),), "is empty"),
], ids=lambda v: str(v)[:30])
def test_a_formula_is_checked_when_the_sheet_is_saved(expression, inputs, reason):  # SS-6
    with pytest.raises(RuleError, match=reason) as caught:
        sheet_from_data(formula_sheet(expression, inputs))
    assert caught.value.reason.startswith("The formula of Science") or "inputs of Science" in caught.value.reason


def test_a_fraction_is_rounded_down_to_a_whole_point():  # SS-6
    state = table(1, formula_sheet("coins / 3", (("coins", 0, 30),)))
    assert totals(apply(state, 0, fill("science", coins=8))) == [2]


@settings(max_examples=60, deadline=None)
@given(t=st.integers(0, 9), c=st.integers(0, 9), g=st.integers(0, 9))
def test_a_formula_equals_the_direct_computation_over_its_whole_range(t, c, g):  # SS-6
    state = new_state(3, {"sheet": "7-wonders"})
    after = apply(state, 1, fill("science", t=t, c=c, g=g))
    assert view(after)["players"][1]["rows"]["science"] == t * t + c * c + g * g + 7 * min(t, c, g)


def test_every_input_combination_of_the_science_row_matches_the_direct_computation():  # SS-6
    row = load_sheet(BUILTIN["7-wonders"]).row("science")
    for t in range(10):
        for c in range(10):
            for g in range(10):
                assert row.points(inputs={"t": t, "c": c, "g": g}) == t * t + c * c + g * g + 7 * min(t, c, g)


# --- filling (SS-4, SS-5, SS-7) -------------------------------------------------------------------


def test_a_value_outside_its_range_is_refused_in_the_rows_words():  # SS-4
    state = new_state(3, {"sheet": "7-wonders"})
    with pytest.raises(RuleError) as caught:
        apply(state, 0, fill("military", 19))
    assert caught.value.reason == "Military is between -6 and 18."
    with pytest.raises(RuleError, match="Science's t is between 0 and 9"):
        apply(state, 0, fill("science", t=10, c=0, g=0))


@pytest.mark.parametrize("entry, malformed", [
    (fill("gold", "12"), True), (fill("gold", 1.5), True), (fill("gold", True), True),
    ({"kind": "fill", "row": "gold"}, True), (fill("silver", 3), True), (fill("gold", x=1), True),
    ({"kind": "fill", "row": "gold", "value": 1, "colour": "red"}, True), ({"kind": "roll"}, False),
    (fill("crown", 2), False),  # SS-5: a check is 0 or 1
])
def test_bad_entries_are_refused_and_change_nothing(entry, malformed):  # SS-4 SS-5
    state = table()
    with pytest.raises(RuleError) as caught:
        apply(state, 0, entry)
    assert isinstance(caught.value, MalformedEntry) == malformed
    assert totals(state) == [0, 0] and waiting_for(state) == [0, 1]


def test_each_player_fills_their_own_rows_in_any_order_and_may_fill_again():  # SS-7 SS-9
    state = play(table(), (1, fill("crown", 1)), (0, fill("gems", 3)), (0, fill("gold", 4)), (0, fill("gold", 9)))
    assert view(state)["players"][0]["rows"] == {"gold": 9, "gems": 6}  # the later gold stands
    assert totals(state) == [15, 7]
    assert view(state)["players"][1]["rows"] == {"crown": 7}


def test_the_app_waits_for_everyone_with_an_empty_row():  # SS-8
    state = play(table(), (0, fill("gold", 1)), (0, fill("gems", 0)), (0, fill("crown", 0)))
    assert waiting_for(state) == [1]
    assert not finished(state)


def test_the_game_ends_when_every_row_is_filled():  # SS-10
    state = play(table(), *[(s, fill(r, 1)) for s in (0, 1) for r in ("gold", "gems", "crown")])
    assert finished(state) and waiting_for(state) == []
    assert view(state)["empty_count_zero"] is False
    with pytest.raises(RuleError, match="The game is over"):
        apply(state, 0, fill("gold", 2))


def test_ending_early_counts_empty_rows_as_zero_and_says_so():  # SS-10
    with pytest.raises(RuleError, match="Fill at least one row"):
        apply(table(), 0, END)
    state = play(table(), (0, fill("gold", 5)), (1, END))
    assert finished(state) and winners(state) == [0] and totals(state) == [5, 0]
    assert view(state)["empty_count_zero"] is True
    assert view(state)["players"][1]["sheet"] == {"gold": 0, "gems": 0, "crown": 0}


def test_ranks_and_the_tie_breaker():  # SS-11
    # equal totals of 10; Ben has more gems (the tie-breaker), so Ben wins; Cy is level with Ann
    state = play(table(3), (0, fill("gold", 10)), (1, fill("gold", 4)), (1, fill("gems", 3)),
                 (2, fill("gold", 10)), (0, END))
    assert totals(state) == [10, 10, 10]
    assert ranks(state) == [2, 1, 2]
    assert winners(state) == [1]


def test_lowest_wins_ranks_the_other_way_and_a_full_tie_shares_the_win():  # SS-11
    state = play(table(3, small_sheet(wins="lowest")), (0, fill("gold", 3)), (1, fill("gold", 8)), (2, fill("gold", 3)), (1, END))
    assert ranks(state) == [1, 3, 1]
    assert winners(state) == [0, 2]


def test_every_viewer_sees_the_whole_sheet():  # SS-12
    state = play(table(), (0, fill("gold", 5)))
    seen = {json.dumps(GAME.view(state, v)) for v in (Viewer.own(0), Viewer.own(1), Viewer.table(), Viewer.host())}
    assert len(seen) == 1


def test_the_last_entry_in_words():  # SS-12
    state = new_state(3, {"sheet": "7-wonders"})
    after = apply(state, 0, fill("science", t=2, c=2, g=1))
    assert GAME.describe(0, fill("science", t=2, c=2, g=1), state, after, ["Ann", "Ben", "Cy"]) == "Ann: Science 2/2/1 \u2192 16"
    after2 = apply(after, 1, fill("military", -2))
    assert GAME.describe(1, fill("military", -2), after, after2, ["Ann", "Ben", "Cy"]) == "Ben: Military \u2192 -2"
    ended = apply(after2, 2, END)
    assert GAME.describe(2, END, after2, ended, ["Ann", "Ben", "Cy"]) == "Cy ended the game; empty rows count 0."


def test_undo_brings_back_the_earlier_value_of_a_row_filled_again():  # SS-15
    entries = [(0, fill("gold", 4)), (0, fill("gold", 9))]
    assert totals(play(table(), *entries)) == [9, 0]
    assert totals(play(table(), *entries[:-1])) == [4, 0]  # the platform replays the log without the last


def test_hints_preview_the_rows_points_and_the_total_after():  # SS-9
    state = play(table(), (0, fill("gold", 4)))
    shown = hints(state, 0, {"row": "gems", "value": 3})
    assert (shown["points"], shown["total_after"], shown["refusal"]) == (6, 10, None)
    assert shown["legal"] == [fill("gems", 3)]
    refused = hints(state, 0, {"row": "gems", "value": 11})
    assert refused["refusal"] == "Gems is between 0 and 10." and refused["legal"] == []
    assert {"kind": "end"} in hints(state, 1, {"end": True})["legal"]


# --- properties -----------------------------------------------------------------------------------

row_ids = st.sampled_from(["gold", "gems", "crown", "nope"])
values = st.one_of(st.integers(-8, 25), st.sampled_from(["3", None, True, 2.5]))


@settings(max_examples=80, deadline=None)
@given(entries=st.lists(st.tuples(st.integers(0, 2), row_ids, values), max_size=25))
def test_the_total_is_the_sum_of_the_rows_and_replay_rebuilds_the_state(entries):  # SS-9 SS-7
    state, taken = table(3), []
    for seat, row, value in entries:
        try:
            state = apply(state, seat, fill(row, value))
        except RuleError:
            continue
        taken.append((seat, fill(row, value)))
    shown = view(state)
    for player in shown["players"]:
        assert player["total"] == sum(player["rows"].values())
    assert play(table(3), *taken) == state


def _row_strategy():
    """A row of each kind with random parameters: mostly valid, sometimes not (a formula that divides
    by zero over its range, a table with nothing in it, a max below its min)."""
    low = st.integers(-50, 50)
    points = st.builds(lambda lo, span: {"kind": "points", "min": lo, "max": lo + span}, low, st.integers(-2, 60))
    count = st.builds(lambda each, most: {"kind": "count", "points_each": each, "max": most},
                      st.integers(-5, 15), st.integers(0, 40))
    table = st.builds(lambda t, most: {"kind": "table", "table": t, "max": most},
                      st.lists(st.integers(-5, 30), min_size=0, max_size=8), st.integers(1, 20))
    check = st.builds(lambda p: {"kind": "check", "points": p}, st.integers(-10, 20))
    formula = st.builds(lambda e, lo, hi: {"kind": "formula", "expression": e,
                                           "inputs": [{"name": "a", "min": lo, "max": lo + hi},
                                                      {"name": "b", "min": 0, "max": hi}]},
                        st.sampled_from(["a*a + b", "10 // a", "max(a, b) - min(a, b)", "a if a > b else -b",
                                         "(a + b) / 3", "a ** 2 % 7", "abs(a - 2*b)"]),
                        st.integers(-3, 3), st.integers(0, 8))
    return st.one_of(points, count, table, check, formula)


def _sheet_strategy():
    def sheet(rows, fewest, wins, tie):
        rows = [{"id": f"r{n}", "label": f"Row {n}", **row} for n, row in enumerate(rows)]
        return {"name": "Random", "players": [fewest, min(fewest + 2, 12)], "wins": wins,
                "tie_break": f"r{tie}" if rows and tie is not None else None, "rows": rows}
    return st.builds(sheet, st.lists(_row_strategy(), min_size=1, max_size=6), st.integers(1, 4),
                     st.sampled_from(["highest", "lowest"]), st.one_of(st.none(), st.integers(0, 7)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_sheet_strategy(), seed=st.integers(0, 10**6))
def test_no_saved_sheet_can_make_the_rules_raise(data, seed):  # SS-2 SS-6
    """A sheet is either refused with a reason when saved, or every game on it plays to the end."""
    try:
        sheet = sheet_from_data(data)
    except RuleError:
        return
    players = sheet.min_players
    state, _steps = playout(GAME, players, random.Random(seed), max_steps=400, options={"sheet": sheet.data()})
    assert GAME.finished(state)
    json.dumps(GAME.view(state, Viewer.table()))


@settings(max_examples=40, deadline=None)
@given(sheet_id=st.sampled_from(sorted(BUILTIN)), seed=st.integers(0, 10**6))
def test_random_playouts_on_every_built_in_sheet_reach_the_end(sheet_id, seed):  # SS-8 SS-10 SS-13
    players = BUILTIN[sheet_id]["players"][0]
    state, steps = playout(GAME, players, random.Random(seed), max_steps=2000, options={"sheet": sheet_id})
    assert GAME.finished(state)
    for step in steps[-5:]:
        assert GAME.check(step.before, step.seat, step.entry) is None


def test_every_rule_in_the_rules_text_is_cited_by_a_test():
    here = Path(__file__).resolve().parent
    text = (here.parent / "rules.md").read_text()
    numbered = set(re.findall(r"^\*\*(SS-\d+)\*\*", text, flags=re.MULTILINE))
    cited = set()
    for test_file in here.glob("test_*.py"):
        cited |= set(re.findall(r"SS-\d+", test_file.read_text()))
    assert numbered == {f"SS-{n}" for n in range(1, 17)}
    assert numbered <= cited


def test_a_sheet_cannot_ask_for_more_formula_checks_than_a_save_may_cost():  # SS-6
    row = {"kind": "formula", "expression": "a + b", "inputs": [{"name": "a", "min": 0, "max": 39},
                                                               {"name": "b", "min": 0, "max": 49}]}  # 2,000 each
    rows = [{"id": f"f{n}", "label": f"Formula {n}", **row} for n in range(3)]
    with pytest.raises(RuleError, match="together may have at most 5000 combinations of inputs to check; Formula 2"):
        sheet_from_data(small_sheet(tie_break=None, rows=rows))
    assert len(sheet_from_data(small_sheet(tie_break=None, rows=rows[:2])).rows) == 2
