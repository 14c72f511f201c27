"""The exact coach: its solved tables against published values and positions worked out by hand,
its answers against the rules' own scoring (DZ-2 turns of three throws, DZ-12 upper bonus, DZ-16
extra DiceZ bonus, DZ-17 joker)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from companion.games.dicez import coach, coach_tables, rules, solver

from .conftest import HOUSE

BOXES = rules.BOXES


def sheet(open_boxes=(), **filled) -> rules.Sheet:
    """A sheet with every box filled (0, or the given score) except `open_boxes`."""
    scores = tuple(None if box in open_boxes else filled.get(box, 0) for box in BOXES)
    return rules.Sheet(scores=scores)


def test_seed_rules_expect_245_87_from_an_empty_sheet(seed_table):
    assert coach.expected_total(seed_table, rules.Sheet()) == pytest.approx(245.87, abs=0.01)


def test_extra_dicez_bonus_and_joker_expect_254_59(house_table):
    assert coach.expected_total(house_table, rules.Sheet()) == pytest.approx(254.59, abs=0.01)


def test_the_build_command_shows_a_progress_bar_and_stores_the_table(coach_build):
    folder, printed = coach_build
    assert "100%" in printed and "seed rules" in printed and "245.87" in printed
    assert coach_tables.path_for(folder, {}).exists()
    assert not coach_tables.path_for(folder, {}).with_suffix(".progress").exists()


def test_five_sixes_on_an_empty_sheet_go_in_the_dicez_box(seed_table):
    found = coach.choices(seed_table, rules.Sheet(), [6, 6, 6, 6, 6])
    assert coach.best(found).category == "dicez"
    assert len(found) == len(BOXES)  # every open box is listed


def test_a_run_of_five_on_an_empty_sheet_is_a_large_straight(seed_table):
    assert coach.best(coach.choices(seed_table, rules.Sheet(), [2, 3, 4, 5, 6])).category == "large_straight"


def test_only_chance_left_expects_five_dice_kept_from_four_up_then_five_up(seed_table):
    # one die, three throws: the last is worth 3.5, so keep 4+ after the second (4.25), 5+ after
    # the first (14/3); the five dice of Chance are independent: 5 x 14/3
    only_chance = sheet(open_boxes=("chance",))
    assert coach.expected_total(seed_table, only_chance) == pytest.approx(5 * 14 / 3, abs=1e-9)
    hold = coach.holds(seed_table, only_chance, [6, 5, 4, 2, 1], roll=1)[0]
    assert hold.indexes == (0, 1)
    hold = coach.holds(seed_table, only_chance, [6, 5, 4, 2, 1], roll=2)[0]
    assert hold.indexes == (0, 1, 2)


def test_only_the_dicez_box_left_expects_50_times_the_chance_of_five_alike(seed_table):
    # the chance of five of a kind within three throws, keeping the biggest group: 2,783,176 / 6^10
    only_dicez = sheet(open_boxes=("dicez",))
    assert coach.expected_total(seed_table, only_dicez) == pytest.approx(50 * 2783176 / 6 ** 10, abs=1e-9)
    assert coach.holds(seed_table, only_dicez, [3, 5, 3, 1, 3], roll=1)[0].indexes == (0, 2, 4)


def test_the_upper_bonus_decides_when_it_is_in_reach(seed_table):
    # Sixes and Chance open, 45 in the upper boxes: three 6s reach 63 and the 35 bonus (DZ-12)
    s = sheet(open_boxes=("sixes", "chance"), fives=25, fours=20)
    found = {c.category: c for c in coach.choices(seed_table, s, [6, 6, 6, 1, 1])}
    assert coach.best(list(found.values())).category == "sixes"
    assert found["sixes"].expected_final - s.total == pytest.approx(18 + 35 + 5 * 14 / 3)


def test_joker_forces_five_alike_into_its_upper_box_and_adds_the_extra_bonus(house_table):
    s = sheet(open_boxes=("sixes", "chance", "full_house"), dicez=50)
    found = coach.choices(house_table, s, [6, 6, 6, 6, 6])
    assert [c.category for c in found] == ["sixes"]  # DZ-17: the matching upper box first
    after = found[0].expected_final - s.total
    assert after > 30 + 100  # 30 in Sixes, 100 extra (DZ-16), and what Chance and Full House bring


def test_advice_answers_boxes_best_and_hold(seed_table):
    answer = coach.advice(seed_table, rules.Sheet(), [1, 2, 3, 4, 6], roll=1)
    assert answer["expected_total"] == pytest.approx(245.87, abs=0.01)
    assert {b["category"] for b in answer["boxes"]} == set(BOXES)
    assert answer["best"] == max(answer["boxes"], key=lambda b: b["expected_final"])["category"]
    assert answer["hold"] == [0, 1, 2, 3]  # a small straight in hand: roll the 6 for the large one


def test_dice_the_rules_refuse_are_refused_with_their_reason(seed_table):
    with pytest.raises(rules.MalformedEntry, match="exactly 5 dice"):
        coach.advice(seed_table, rules.Sheet(), [1, 2, 3])
    with pytest.raises(rules.RuleError, match="1 to 6"):
        coach.advice(seed_table, rules.Sheet(), [1, 2, 3, 4, 7], roll=2)


# --- the tables against the rules ---------------------------------------------------------

masks = st.integers(0, solver.MASKS - 2)
outcomes = st.sampled_from(solver.dice().keeps[5])


@settings(max_examples=200, deadline=None)
@given(mask=masks, outcome=outcomes)
def test_the_solvers_box_scores_are_the_rules_own(house_table, mask, outcome):
    state = solver.solo_state(HOUSE, solver.sheet_of_mask(mask))
    expected = rules.preview(state, 0, list(outcome))
    score = house_table.score
    r = solver.dice().index[outcome]
    five = list(solver.dice().five_alike)
    row = score.alike[five.index(r), mask] if r in five else np.where(
        (mask >> np.arange(len(BOXES)) & 1) == 1, -1, score.plain[r])
    assert {BOXES[b]: int(v) for b, v in enumerate(row) if v >= 0} == expected


@settings(max_examples=60, deadline=None)
@given(mask=masks, outcome=outcomes, upper=st.integers(0, 63), dicez_50=st.booleans(), house=st.booleans())
def test_the_best_box_by_the_rules_is_worth_what_the_table_says(seed_table, house_table, mask, outcome, upper,
                                                                dicez_50, house):
    """The rules (preview, apply) plus the stored future give the turn value the solver computed."""
    table = house_table if house else seed_table
    scores = list(solver.sheet_of_mask(mask, dicez_50))
    if mask & 1:
        scores[0] = 0  # put the upper total where the sheet can hold it: in the filled upper boxes
    filled_upper = [b for b in range(6) if mask >> b & 1]
    room = upper
    for b in filled_upper:
        scores[b] = min(5 * (b + 1), room // (b + 1) * (b + 1))
        room -= scores[b]
    s = rules.Sheet(scores=tuple(scores))
    top = coach.best(coach.choices(table, s, outcome))
    turn = table.turn(*coach.position(s))
    assert top.expected_final - s.total == pytest.approx(turn.final[solver.dice().index[outcome]], abs=1e-9)
