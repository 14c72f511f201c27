"""DiceZ rules engine. Each test names the rule (DZ-n in rules.md) it checks."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.platform.core.registry import GAMES, RuleError
from companion.games.dicez.rules import (
    BOX_LABELS,
    BOX_MAX,
    BOXES,
    LOWER,
    UPPER,
    apply,
    finished,
    new_state,
    normalize_options,
    preview,
    score_box,
    totals,
    view,
    waiting_for,
    winners,
)

ALL_OFF = {"five_of_a_kind_full_house": False, "extra_dicez_bonus": False, "joker": False, "roll_by_roll": False,
           "turn_order": False}


def score(dice, box="chance"):
    return {"kind": "score", "dice": list(dice), "category": box}


def roll(dice, held=()):
    return {"kind": "roll", "dice": list(dice), "held": list(held)}


def digits(text):
    return [int(c) for c in text]


def play(state, seat, *entries):
    for entry in entries:
        state = apply(state, seat, entry)
    return state


def sheet_of(state, seat):
    return view(state)["players"][seat]["sheet"]


# Dice that fill every box of a sheet, chosen per box; the sheet then totals 63 + 35 + 25 + 30 + 40 + 50 + 3oak + 4oak + chance.
FULL_SHEET = {
    "ones": "11123",
    "twos": "22213",
    "threes": "33312",
    "fours": "44412",
    "fives": "55512",
    "sixes": "66612",
    "three_of_a_kind": "66612",
    "four_of_a_kind": "66661",
    "full_house": "22333",
    "small_straight": "12344",
    "large_straight": "23456",
    "dicez": "44444",
    "chance": "66665",
}
FULL_SHEET_TOTAL = 63 + 35 + 21 + 25 + 25 + 30 + 40 + 50 + 29


def fill(state, seat, dice_by_box):
    for box, dice in dice_by_box.items():
        state = apply(state, seat, score(digits(dice), box))
    return state


# --- the sheet -------------------------------------------------------------------


def test_boxes_come_in_sheet_order_with_human_labels():  # DZ-1
    assert BOXES == (
        "ones", "twos", "threes", "fours", "fives", "sixes",
        "three_of_a_kind", "four_of_a_kind", "full_house",
        "small_straight", "large_straight", "dicez", "chance",
    )
    assert UPPER == BOXES[:6]
    assert [BOX_LABELS[b] for b in BOXES] == [
        "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "3 of a Kind", "4 of a Kind",
        "Full House", "Small Straight", "Large Straight", "DiceZ", "Chance",
    ]


def test_game_is_registered_with_its_contract():  # DZ-1
    game = GAMES["dicez"]
    assert (game.title, game.min_players, game.max_players) == ("DiceZ", 1, 10)
    assert game.entry_kinds == ("score", "roll")
    state = game.new_state(3, game.normalize_options({}))
    assert game.apply(state, 0, score([6, 6, 6, 6, 6], "sixes")) != state
    assert game.waiting_for(state) == [0]  # a new table plays in seat order (DZ-20)


@pytest.mark.parametrize("count", [1, 10])
def test_one_to_ten_players(count):  # DZ-1
    state = new_state(count, {})
    assert [p["seat"] for p in view(state)["players"]] == list(range(count))


@pytest.mark.parametrize("count", [0, 11, -1, True, "2", 2.0])
def test_player_count_outside_one_to_ten_is_refused(count):  # DZ-1
    with pytest.raises(RuleError, match="1 to 10 players"):
        new_state(count, {})


# --- box values: the seed's own examples ------------------------------------------


@pytest.mark.parametrize(
    "dice, box, points",
    [
        ("13416", "ones", 2),
        ("25322", "twos", 6),
        ("25326", "threes", 3),
        ("44654", "fours", 12),
        ("44654", "fives", 5),
        ("64654", "sixes", 12),
        ("55534", "three_of_a_kind", 22),
        ("44434", "four_of_a_kind", 19),
        ("55566", "full_house", 25),
        ("32345", "small_straight", 30),
        ("65432", "large_straight", 40),
        ("11111", "dicez", 50),
        ("64325", "chance", 20),
    ],
)
def test_seed_examples(dice, box, points):  # DZ-4 DZ-5 DZ-6 DZ-7 DZ-8 DZ-9 DZ-10 DZ-11
    assert score_box(digits(dice), box) == points
    state = apply(new_state(1, {}), 0, score(digits(dice), box))
    assert sheet_of(state, 0)[box] == points


@pytest.mark.parametrize("dice, box", [("23456", "ones"), ("11111", "sixes")])
def test_upper_box_without_its_face_scores_zero(dice, box):  # DZ-4
    assert score_box(digits(dice), box) == 0


def test_kind_boxes_add_all_five_dice_not_only_the_matching_ones():  # DZ-5 DZ-6
    assert score_box([6, 6, 6, 1, 2], "three_of_a_kind") == 21  # not 18
    assert score_box([2, 2, 2, 2, 6], "four_of_a_kind") == 14  # not 8
    assert score_box([5, 5, 5, 5, 5], "three_of_a_kind") == 25
    assert score_box([5, 5, 5, 5, 5], "four_of_a_kind") == 25


def test_kind_boxes_need_enough_matching_dice():  # DZ-5 DZ-6
    assert score_box([5, 5, 3, 4, 4], "three_of_a_kind") == 0
    assert score_box([4, 4, 4, 3, 5], "four_of_a_kind") == 0


@pytest.mark.parametrize("dice, points", [("55566", 25), ("66555", 25), ("12121", 25), ("55555", 0), ("55556", 0), ("55667", None)])
def test_full_house_needs_three_and_two_of_different_faces(dice, points):  # DZ-7
    if points is None:
        with pytest.raises(RuleError):
            score_box(digits(dice), "full_house")
    else:
        assert score_box(digits(dice), "full_house") == points


@pytest.mark.parametrize(
    "dice, points",
    [("12344", 30), ("12345", 30), ("34566", 30), ("13456", 30), ("44321", 30), ("12356", 0), ("11223", 0), ("12456", 0)],
)
def test_small_straight_is_four_in_a_row_anywhere(dice, points):  # DZ-8
    assert score_box(digits(dice), "small_straight") == points


@pytest.mark.parametrize("dice, points", [("12345", 40), ("23456", 40), ("12346", 0), ("13456", 0), ("12344", 0)])
def test_large_straight_is_five_in_a_row(dice, points):  # DZ-9
    assert score_box(digits(dice), "large_straight") == points


def test_dicez_box_needs_all_five_alike():  # DZ-10
    assert score_box([6, 6, 6, 6, 6], "dicez") == 50
    assert score_box([6, 6, 6, 6, 5], "dicez") == 0


def test_chance_takes_anything():  # DZ-11
    assert score_box([1, 1, 1, 1, 1], "chance") == 5
    assert score_box([6, 6, 6, 6, 6], "chance") == 30


# --- filling boxes ------------------------------------------------------------------


def test_dice_that_do_not_qualify_fill_the_box_with_zero():  # DZ-3
    state = apply(new_state(1, {}), 0, score([1, 2, 3, 5, 6], "large_straight"))
    assert sheet_of(state, 0)["large_straight"] == 0
    assert view(state)["players"][0]["filled"] == 1


def test_a_filled_box_cannot_be_filled_again():  # DZ-3
    state = apply(new_state(1, {}), 0, score([5, 5, 1, 2, 3], "fives"))
    with pytest.raises(RuleError, match=r"^Fives is already filled\.$"):
        apply(state, 0, score([5, 5, 5, 5, 5], "fives"))
    assert sheet_of(state, 0)["fives"] == 10


def test_preview_lists_only_open_boxes_with_their_scores():  # DZ-3
    state = apply(new_state(1, {}), 0, score([5, 5, 1, 2, 3], "fives"))
    shown = preview(state, 0, [3, 3, 3, 2, 2])
    assert list(shown) == [b for b in BOXES if b != "fives"]
    assert shown["threes"] == 9 and shown["full_house"] == 25 and shown["small_straight"] == 0


def test_upper_bonus_at_exactly_63():  # DZ-12
    upper = {box: FULL_SHEET[box] for box in UPPER}  # three of each face: 3+6+9+12+15+18 = 63
    state = fill(new_state(1, {}), 0, upper)
    player = view(state)["players"][0]
    assert player["upper_total"] == 63
    assert player["sheet"]["upper_bonus"] == 35
    assert player["total"] == 98


def test_no_upper_bonus_at_62():  # DZ-12
    upper = {box: FULL_SHEET[box] for box in UPPER} | {"ones": "11234"}  # 2 instead of 3
    state = fill(new_state(1, {}), 0, upper)
    player = view(state)["players"][0]
    assert player["upper_total"] == 62
    assert player["sheet"]["upper_bonus"] == 0
    assert player["total"] == 62


# --- the end of the game ------------------------------------------------------------


def test_full_sheet_totals_every_part():  # DZ-13
    state = fill(new_state(1, {}), 0, FULL_SHEET)
    player = view(state)["players"][0]
    assert player["filled"] == 13
    assert player["upper_total"] == 63 and player["lower_total"] == 21 + 25 + 25 + 30 + 40 + 50 + 29
    assert player["total"] == FULL_SHEET_TOTAL == totals(state)[0]
    assert finished(state) and view(state)["finished"] and winners(state) == [0]


def test_game_ends_when_every_seat_is_full_and_best_total_wins():  # DZ-13 DZ-14
    state = new_state(2, {})
    state = fill(state, 1, FULL_SHEET)
    assert not finished(state) and winners(state) == []
    assert waiting_for(state) == [0]
    weaker = FULL_SHEET | {"chance": "11111"}  # 5 instead of 29
    state = fill(state, 0, weaker)
    assert finished(state)
    assert totals(state) == [FULL_SHEET_TOTAL - 24, FULL_SHEET_TOTAL]
    assert winners(state) == [1]
    assert waiting_for(state) == []
    with pytest.raises(RuleError, match=r"^The game is over\.$"):
        apply(state, 0, score([1, 2, 3, 4, 5], "chance"))


def test_equal_best_totals_share_the_win():  # DZ-13
    state = new_state(3, {})
    state = fill(state, 0, FULL_SHEET)
    state = fill(state, 1, FULL_SHEET | {"chance": "11111"})
    state = fill(state, 2, FULL_SHEET | {"chance": "56666"})  # same sum, other dice
    assert winners(state) == [0, 2]


def test_no_turn_order_but_no_fourteenth_box():  # DZ-14
    state = new_state(2, {})
    state = fill(state, 1, FULL_SHEET)  # seat 1 plays all 13 turns before seat 0 starts
    assert view(state)["players"][1]["filled"] == 13
    with pytest.raises(RuleError, match="sheet is full"):
        apply(state, 1, score([1, 2, 3, 4, 5], "chance"))


def test_waiting_for_the_seats_behind_in_the_round():  # DZ-14
    state = new_state(3, {})
    assert waiting_for(state) == [0, 1, 2]
    state = apply(state, 1, score([1, 1, 1, 1, 1], "ones"))
    assert waiting_for(state) == [0, 2]
    state = play(state, 0, score([1, 1, 1, 1, 1], "ones"), score([2, 2, 2, 2, 2], "twos"))
    assert waiting_for(state) == [2]


# --- options --------------------------------------------------------------------------


def test_house_rules_default_to_off_and_turn_order_to_on():  # DZ-15 DZ-16 DZ-17 DZ-18 DZ-20
    assert normalize_options({}) == ALL_OFF | {"turn_order": True}
    assert normalize_options({"joker": True}) == ALL_OFF | {"joker": True, "turn_order": True}
    assert normalize_options({"turn_order": False}) == ALL_OFF
    assert view(new_state(1, {"roll_by_roll": True}))["options"] == ALL_OFF | {"roll_by_roll": True}


def test_unknown_option_is_refused_by_name():  # DZ-19
    with pytest.raises(RuleError, match="yahtzee_bonus"):
        normalize_options({"yahtzee_bonus": True})


@pytest.mark.parametrize("value", [1, 0, "true", None])
def test_option_must_be_true_or_false(value):  # DZ-19
    with pytest.raises(RuleError, match="joker"):
        normalize_options({"joker": value})


def test_five_of_a_kind_counts_as_full_house_with_the_option():  # DZ-15
    options = {"five_of_a_kind_full_house": True}
    assert score_box([3, 3, 3, 3, 3], "full_house", options) == 25
    state = apply(new_state(1, options), 0, score([3, 3, 3, 3, 3], "full_house"))
    assert sheet_of(state, 0)["full_house"] == 25
    assert score_box([3, 3, 3, 3, 4], "full_house", options) == 0


def test_extra_dicez_bonus_for_each_further_dicez():  # DZ-16
    state = new_state(1, {"extra_dicez_bonus": True})
    state = play(state, 0, score([2, 2, 2, 2, 2], "dicez"), score([3, 3, 3, 3, 3], "chance"), score([6] * 5, "sixes"))
    player = view(state)["players"][0]
    assert player["sheet"]["extra_bonus"] == 200
    assert player["total"] == 50 + 15 + 30 + 200


def test_no_extra_bonus_when_dicez_box_holds_zero():  # DZ-16
    state = new_state(1, {"extra_dicez_bonus": True})
    state = play(state, 0, score([1, 2, 3, 4, 5], "dicez"), score([3, 3, 3, 3, 3], "chance"))
    assert sheet_of(state, 0)["extra_bonus"] == 0


def test_no_extra_bonus_without_the_option():  # DZ-16
    state = play(new_state(1, {}), 0, score([2] * 5, "dicez"), score([3] * 5, "chance"))
    assert sheet_of(state, 0)["extra_bonus"] == 0
    assert view(state)["players"][0]["total"] == 65


JOKER = {"joker": True}


def test_joker_forces_the_matching_upper_box_first():  # DZ-17
    state = apply(new_state(1, JOKER), 0, score([2] * 5, "dicez"))
    assert preview(state, 0, [4] * 5) == {"fours": 20}
    with pytest.raises(RuleError, match=r"five 4s must go in Fours"):
        apply(state, 0, score([4] * 5, "full_house"))
    state = apply(state, 0, score([4] * 5, "fours"))
    assert sheet_of(state, 0)["fours"] == 20


def test_joker_then_any_open_lower_box_at_joker_values():  # DZ-17
    state = play(new_state(1, JOKER), 0, score([2] * 5, "dicez"), score([1, 4, 4, 4, 4], "fours"))
    shown = preview(state, 0, [4] * 5)
    assert shown == {
        "three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25,
        "small_straight": 30, "large_straight": 40, "chance": 20,
    }
    with pytest.raises(RuleError, match="open lower box"):
        apply(state, 0, score([4] * 5, "ones"))
    state = apply(state, 0, score([4] * 5, "large_straight"))
    assert sheet_of(state, 0)["large_straight"] == 40


def test_joker_finally_zero_in_an_open_upper_box():  # DZ-17
    lower = {box: FULL_SHEET[box] for box in LOWER}
    state = fill(new_state(1, JOKER), 0, lower | {"fours": "44412"})
    assert preview(state, 0, [4] * 5) == {box: 0 for box in UPPER if box != "fours"}
    state = apply(state, 0, score([4] * 5, "twos"))
    assert sheet_of(state, 0)["twos"] == 0


def test_joker_puts_no_limit_while_the_dicez_box_is_open():  # DZ-17
    state = new_state(1, JOKER)
    assert len(preview(state, 0, [4] * 5)) == 13
    assert sheet_of(apply(state, 0, score([4] * 5, "chance")), 0)["chance"] == 20


def test_joker_applies_after_a_zero_in_dicez_too():  # DZ-17
    state = play(new_state(1, JOKER), 0, score([1, 2, 3, 4, 6], "dicez"), score([5] * 5, "fives"))
    assert preview(state, 0, [5] * 5)["small_straight"] == 30


def test_without_joker_five_of_a_kind_is_no_straight_or_full_house():  # DZ-7 DZ-17
    state = play(new_state(1, {}), 0, score([2] * 5, "dicez"), score([4] * 5, "fours"))
    shown = preview(state, 0, [4] * 5)
    assert (shown["full_house"], shown["small_straight"], shown["large_straight"]) == (0, 0, 0)
    assert shown["ones"] == 0 and len(shown) == 11


def test_score_box_uses_the_joker_when_given_a_sheet():  # DZ-17
    sheet = {box: None for box in BOXES} | {"dicez": 50, "sixes": 30}
    assert score_box([6] * 5, "full_house", JOKER, sheet) == 25
    assert score_box([6] * 5, "full_house", JOKER) == 0
    assert score_box([6] * 5, "full_house", {}, sheet) == 0


# --- roll by roll -----------------------------------------------------------------------

RBR = {"roll_by_roll": True}


def test_roll_by_roll_scores_the_last_roll():  # DZ-2 DZ-18
    state = new_state(1, RBR)
    state = play(state, 0, roll([1, 2, 6, 6, 3]), roll([6, 5, 6, 6, 1], held=[2, 3]), roll([6, 6, 6, 6, 2], held=[0, 2, 3]))
    assert view(state)["players"][0]["rolls"] == [[1, 2, 6, 6, 3], [6, 5, 6, 6, 1], [6, 6, 6, 6, 2]]
    state = apply(state, 0, {"kind": "score", "category": "sixes"})
    player = view(state)["players"][0]
    assert player["sheet"]["sixes"] == 24
    assert player["rolls"] == []


def test_roll_by_roll_score_may_repeat_the_last_roll():  # DZ-18
    state = play(new_state(1, RBR), 0, roll([1, 2, 3, 4, 5]), score([1, 2, 3, 4, 5], "large_straight"))
    assert sheet_of(state, 0)["large_straight"] == 40


def test_a_fourth_roll_is_refused():  # DZ-2 DZ-18
    state = play(new_state(1, RBR), 0, roll([1, 1, 1, 1, 1]), roll([2, 2, 2, 2, 2]), roll([3, 3, 3, 3, 3]))
    with pytest.raises(RuleError, match="rolled 3 times"):
        apply(state, 0, roll([4, 4, 4, 4, 4]))


def test_a_held_die_must_keep_its_value():  # DZ-18
    state = apply(new_state(1, RBR), 0, roll([6, 2, 3, 4, 5]))
    with pytest.raises(RuleError, match="Die 1 was held at 6 but now shows 1"):
        apply(state, 0, roll([1, 2, 3, 4, 5], held=[0]))


def test_the_first_roll_holds_nothing():  # DZ-18
    with pytest.raises(RuleError, match="first roll"):
        apply(new_state(1, RBR), 0, roll([1, 2, 3, 4, 5], held=[0]))


def test_scoring_before_rolling_is_refused():  # DZ-18
    with pytest.raises(RuleError, match="roll before scoring"):
        apply(new_state(1, RBR), 0, score([1, 2, 3, 4, 5], "chance"))


def test_scored_dice_must_match_the_last_roll():  # DZ-18
    state = apply(new_state(1, RBR), 0, roll([1, 2, 3, 4, 5]))
    with pytest.raises(RuleError, match="last roll: 1 2 3 4 5"):
        apply(state, 0, score([6, 6, 6, 6, 6], "dicez"))


def test_a_new_turn_starts_after_scoring():  # DZ-18
    state = play(new_state(1, RBR), 0, roll([1] * 5), roll([1] * 5, held=[0, 1, 2, 3, 4]), {"kind": "score", "category": "ones"})
    state = play(state, 0, roll([2] * 5), roll([2] * 5), roll([2] * 5))  # three fresh rolls allowed
    assert len(view(state)["players"][0]["rolls"]) == 3


def test_roll_entries_are_refused_without_roll_by_roll():  # DZ-18
    with pytest.raises(RuleError, match="roll-by-roll is off"):
        apply(new_state(1, {}), 0, roll([1, 2, 3, 4, 5]))


# --- refusing bad input -------------------------------------------------------------------


@pytest.mark.parametrize(
    "seat, entry, reason",
    [
        (0, score([1, 2, 3, 4]), r"exactly 5 dice; got 4"),
        (0, score([1, 2, 3, 4, 5, 6]), r"exactly 5 dice; got 6"),
        (0, score([1, 2, 3, 4, 7]), r"^A die shows 1 to 6; got 7\.$"),
        (0, score([0, 2, 3, 4, 5]), r"got 0"),
        (0, score([True, 2, 3, 4, 5]), r"whole number"),
        (0, score(["3", 2, 3, 4, 5]), r"whole number"),
        (0, score([3.0, 2, 3, 4, 5]), r"whole number"),
        (0, {"kind": "score", "dice": "12345", "category": "chance"}, r"list of 5"),
        (0, {"kind": "score", "category": "chance"}, r"list of 5"),
        (0, {"kind": "score", "dice": None, "category": "chance"}, r"list of 5"),
        (0, score([1, 2, 3, 4, 5], "yahtzee"), r"no box 'yahtzee'"),
        (0, score([1, 2, 3, 4, 5], None), r"no box None"),
        (0, score([1, 2, 3, 4, 5], ["chance"]), r"no box"),
        (0, {"kind": "score", "dice": [1, 2, 3, 4, 5]}, r"no box"),
        (0, {"kind": "bid", "dice": [1, 2, 3, 4, 5]}, r"got 'bid'"),
        (0, {"dice": [1, 2, 3, 4, 5], "category": "chance"}, r"got None"),
        (0, [1, 2, 3, 4, 5], r"named fields"),
        (0, None, r"named fields"),
        (0, score([1, 2, 3, 4, 5], "chance") | {"points": 15}, r"no field 'points'"),
        (0, roll([1, 2, 3, 4, 5]), r"roll-by-roll is off"),
        (-1, score([1, 2, 3, 4, 5], "chance"), r"no seat -1"),
        (2, score([1, 2, 3, 4, 5], "chance"), r"no seat 2"),
        (True, score([1, 2, 3, 4, 5], "chance"), r"no seat True"),
        ("0", score([1, 2, 3, 4, 5], "chance"), r"no seat '0'"),
    ],
)
def test_bad_entries_are_refused_and_change_nothing(seat, entry, reason):  # DZ-19
    state = apply(new_state(2, {}), 0, score([2, 2, 3, 3, 3], "full_house"))
    before = copy.deepcopy(state)
    with pytest.raises(RuleError, match=reason):
        apply(state, seat, entry)
    assert state == before
    assert view(state) == view(before)


def test_the_platform_key_field_is_ignored():  # DZ-19
    state = apply(new_state(1, {}), 0, score([1, 2, 3, 4, 5], "chance") | {"key": "abc-123"})
    assert sheet_of(state, 0)["chance"] == 15


def test_refused_roll_fields_name_the_problem():  # DZ-19
    state = apply(new_state(1, RBR), 0, roll([1, 2, 3, 4, 5]))
    for held, reason in [([5], "position 0 to 4"), ([True], "position 0 to 4"), ([0, 0], "only once"), ("0", "by position")]:
        with pytest.raises(RuleError, match=reason):
            apply(state, 0, roll([1, 2, 3, 4, 5], held=held) | {"held": held})
    with pytest.raises(RuleError, match="no field 'category'"):
        apply(state, 0, roll([1, 2, 3, 4, 5]) | {"category": "chance"})


def test_helpers_validate_their_input():  # DZ-19
    with pytest.raises(RuleError, match="got 9"):
        score_box([9, 1, 1, 1, 1], "ones")
    with pytest.raises(RuleError, match="no box 'sevens'"):
        score_box([1, 1, 1, 1, 1], "sevens")
    with pytest.raises(RuleError, match="no seat 1"):
        preview(new_state(1, {}), 1, [1, 1, 1, 1, 1])


def test_view_is_json_and_shows_every_box():  # DZ-1 DZ-12
    state = play(new_state(2, RBR), 1, roll([3, 3, 3, 2, 2]))
    table = json.loads(json.dumps(view(state, 0)))
    assert table["finished"] is False
    assert table["options"] == ALL_OFF | RBR
    player = table["players"][1]
    assert set(player["sheet"]) == set(BOXES) | {"upper_bonus", "extra_bonus"}
    assert all(player["sheet"][box] is None for box in BOXES)
    assert (player["upper_total"], player["lower_total"], player["total"], player["filled"]) == (0, 0, 0, 0)
    assert player["rolls"] == [[3, 3, 3, 2, 2]]
    assert view(state, None) == view(state, 1)


# --- turn order (DZ-20) and free play (DZ-14) ------------------------------------------------

TURNS = {"turn_order": True}


def test_a_new_table_takes_turns_in_seat_order():  # DZ-20
    state = new_state(3, normalize_options({}))
    order = []
    for _ in range(6):  # two rounds
        (seat,) = waiting_for(state)
        assert view(state)["turn"] == seat
        order.append(seat)
        state = apply(state, seat, score([1, 2, 3, 4, 6], BOXES[len(order) - 1]))
    assert order == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize("entry", [score([6, 6, 6, 6, 6], "sixes"), score([1, 1, 1, 1, 1], "ones")])
def test_an_entry_out_of_turn_is_refused_naming_whose_turn_it_is(entry):  # DZ-20 DZ-19
    state = apply(new_state(3, TURNS), 0, score([1, 1, 1, 1, 1], "ones"))
    for seat in (0, 2):  # Ann has just played, Cy comes after Ben
        with pytest.raises(RuleError, match=r"^It is seat 2's turn: .*wait for seat 2\.$"):
            apply(state, seat, entry)
    assert waiting_for(state) == [1] and sheet_of(state, 2)["sixes"] is None


def test_out_of_turn_a_wrongly_shaped_entry_is_told_about_its_shape():  # DZ-19 DZ-20
    state = new_state(2, TURNS)
    with pytest.raises(RuleError, match="exactly 5 dice") as refused:
        apply(state, 1, score([1, 2, 3], "chance"))
    assert type(refused.value).__name__ == "MalformedEntry"


def test_with_roll_by_roll_only_the_player_in_turn_rolls_and_keeps_the_turn_between_rolls():  # DZ-18 DZ-20
    state = new_state(2, TURNS | RBR)
    with pytest.raises(RuleError, match="seat 1's turn"):
        apply(state, 1, roll([1, 2, 3, 4, 5]))
    state = play(state, 0, roll([1, 2, 3, 4, 5]), roll([1, 2, 3, 4, 6], held=[0, 1, 2, 3]))
    assert waiting_for(state) == [0]
    state = apply(state, 0, {"kind": "score", "category": "chance"})
    assert waiting_for(state) == [1]
    with pytest.raises(RuleError, match="seat 2's turn"):
        apply(state, 0, roll([1, 2, 3, 4, 5]))


def test_a_game_in_turn_order_ends_with_no_one_to_wait_for():  # DZ-13 DZ-20
    state = new_state(2, TURNS)
    for box, dice in FULL_SHEET.items():
        state = apply(apply(state, 0, score(digits(dice), box)), 1, score([1, 1, 1, 1, 1], box))
    assert finished(state) and winners(state) == [0]
    assert waiting_for(state) == [] and view(state)["turn"] is None


def test_free_play_lets_anyone_enter_at_any_time():  # DZ-14
    state = new_state(2, normalize_options({"turn_order": False}))
    assert view(state)["turn"] is None and waiting_for(state) == [0, 1]
    state = play(state, 1, score([1, 1, 1, 1, 1], "ones"), score([2, 2, 2, 2, 2], "twos"))
    assert waiting_for(state) == [0]


def test_a_table_stored_before_turn_order_existed_replays_as_free_play():  # DZ-14 DZ-20
    stored = {name: False for name in ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker", "roll_by_roll")}
    state = play(new_state(2, stored), 1, score([1, 1, 1, 1, 1], "ones"), score([2, 2, 2, 2, 2], "twos"))
    assert view(state)["options"]["turn_order"] is False and view(state)["turn"] is None
    assert sheet_of(state, 1)["twos"] == 10


def test_every_rule_in_the_rules_text_is_cited_by_a_test():
    rules = Path(__file__).resolve().parents[1] / "rules.md"
    numbered = set(re.findall(r"^\*\*(DZ-\d+)\*\*", rules.read_text(), flags=re.MULTILINE))
    cited = set(re.findall(r"DZ-\d+", Path(__file__).read_text()))
    assert numbered and numbered <= cited


# --- properties --------------------------------------------------------------------------

dice_strategy = st.lists(st.integers(1, 6), min_size=5, max_size=5)
options_strategy = st.fixed_dictionaries({name: st.booleans() for name in ALL_OFF})
sheet_strategy = st.fixed_dictionaries({box: st.none() | st.integers(0, BOX_MAX[box]) for box in BOXES})
entry_strategy = st.one_of(
    st.builds(score, dice_strategy, st.sampled_from(BOXES)),
    st.builds(lambda dice, box: {"kind": "score", "category": box}, dice_strategy, st.sampled_from(BOXES)),
    st.builds(roll, dice_strategy, st.lists(st.integers(0, 4), max_size=5, unique=True)),
    st.builds(score, st.lists(st.integers(0, 7), max_size=6), st.text(max_size=8)),
)
game_strategy = st.tuples(
    st.integers(1, 3),
    options_strategy,
    st.lists(st.tuples(st.integers(-1, 3), entry_strategy), max_size=80),
)


def run(player_count, options, moves):
    """Apply every move, skipping refused ones; checks that nothing is ever mutated."""
    state = new_state(player_count, options)
    for seat, entry in moves:
        state_before, entry_before = copy.deepcopy(state), copy.deepcopy(entry)
        try:
            new = apply(state, seat, entry)
        except RuleError as refusal:
            assert refusal.reason
            new = state
        assert state == state_before and entry == entry_before
        state = new
    return state


@given(dice_strategy, st.sampled_from(BOXES), options_strategy, st.none() | sheet_strategy)
def test_any_dice_in_any_box_score_between_zero_and_the_box_maximum(dice, box, options, sheet):  # DZ-4 DZ-11
    assert 0 <= score_box(dice, box, options, sheet) <= BOX_MAX[box]


@settings(max_examples=60, deadline=None)
@given(game_strategy)
def test_replaying_the_same_entries_gives_the_same_state(game):  # DZ-19
    assert run(*game) == run(*game)


@settings(max_examples=60, deadline=None)
@given(game_strategy)
def test_total_is_the_boxes_plus_the_bonuses(game):  # DZ-12 DZ-13
    state = run(*game)
    for player in view(state)["players"]:
        sheet = player["sheet"]
        upper = sum(sheet[box] or 0 for box in UPPER)
        lower = sum(sheet[box] or 0 for box in LOWER)
        assert sheet["upper_bonus"] == (35 if upper >= 63 else 0)
        assert player["total"] == upper + lower + sheet["upper_bonus"] + sheet["extra_bonus"]
        assert player["filled"] == sum(sheet[box] is not None for box in BOXES)
        assert sheet["extra_bonus"] % 100 == 0
    assert totals(state) == [p["total"] for p in view(state)["players"]]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), options_strategy, st.lists(dice_strategy, min_size=52, max_size=52))
def test_choosing_a_previewed_box_each_turn_always_finishes_the_game(player_count, options, throws):  # DZ-13 DZ-17
    state = new_state(player_count, options)
    throws = iter(throws * player_count)
    while not finished(state):
        seat = waiting_for(state)[0]
        dice = next(throws)
        choices = preview(state, seat, dice)
        assert choices, "every open sheet must offer at least one legal box"
        box = max(choices, key=choices.get)
        if options["roll_by_roll"]:
            state = apply(state, seat, roll(dice))
        state = apply(state, seat, score(dice, box))
        assert sheet_of(state, seat)[box] == choices[box]
    assert winners(state) and set(winners(state)) <= set(range(player_count))
    assert max(totals(state)) == totals(state)[winners(state)[0]]


turn_moves = st.lists(st.tuples(st.integers(0, 2), st.builds(score, dice_strategy, st.sampled_from(BOXES))),
                      max_size=60)


@settings(max_examples=60, deadline=None)
@given(turn_moves)
def test_in_turn_order_every_taken_entry_is_the_turn_seat_and_rounds_stay_level(moves):  # DZ-20
    state = new_state(3, TURNS)
    for seat, entry in moves:
        playing = waiting_for(state)
        try:
            state = apply(state, seat, entry)
        except RuleError:
            continue
        assert playing == [seat]
        filled = [p["filled"] for p in view(state)["players"]]
        assert filled == sorted(filled, reverse=True) and filled[0] - filled[-1] <= 1
