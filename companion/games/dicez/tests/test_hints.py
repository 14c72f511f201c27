"""DiceZ previews come from the rules (hints), and a die tap answers only what the dice change."""
from __future__ import annotations

from companion.games.dicez import GAME
from companion.games.dicez.rules import BOXES
from tests.helpers import join_seat, new_table, post_entry

HTMX = {"HX-Request": "true"}


def test_hints_score_every_open_box_for_the_tapped_dice():  # DZ-9, DZ-10, DZ-11
    state = GAME.new_state(2, GAME.normalize_options({}))
    hints = GAME.hints(state, 0, {"dice": [2, 3, 4, 5, 6]})
    assert hints["boxes"]["large_straight"] == 40 and hints["boxes"]["chance"] == 20
    assert hints["boxes"]["dicez"] == 0  # a box the dice do not fit still takes a zero
    assert {e["category"] for e in hints["legal"]} == set(BOXES)
    assert all(GAME.check(state, 0, e) is None for e in hints["legal"])


def test_hints_leave_filled_boxes_out_and_say_why_dice_are_wrong():  # DZ-3, DZ-19
    state = GAME.apply(GAME.new_state(1, GAME.normalize_options({})), 0,
                       {"kind": "score", "category": "sixes", "dice": [6, 6, 6, 1, 2]})
    assert "sixes" not in GAME.hints(state, 0, {"dice": [6, 6, 6, 6, 6]})["boxes"]
    bad = GAME.hints(state, 0, {"dice": [1, 2, 3, 4, 9]})
    assert bad["legal"] == [] and bad["refusal"] == GAME.check(
        state, 0, {"kind": "score", "category": "chance", "dice": [1, 2, 3, 4, 9]})


def test_joker_hints_offer_only_the_boxes_the_joker_rule_allows():  # DZ-17
    options = GAME.normalize_options({"joker": True})
    state = GAME.apply(GAME.new_state(1, options), 0, {"kind": "score", "category": "dicez", "dice": [4] * 5})
    assert list(GAME.hints(state, 0, {"dice": [4] * 5})["boxes"]) == ["fours"]


def test_a_die_tap_answers_the_box_list_and_head_not_the_dice(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    form = {**{f"d{i}": v for i, v in enumerate([1, 1, 1, 5, 5])}, "csrf_token": csrf}
    html = client.post(f"/t/{table['code']}/s/0/preview", data=form, headers=HTMX).get_data(as_text=True)
    assert 'id="boxes"' in html and 'id="sheet-head"' in html
    assert 'aria-label="Score 25 in Full House"' in html
    assert 'data-testid="die-0"' not in html and 'id="sheet"' not in html  # the dice stay as they are
    plain = client.post(f"/t/{table['code']}/s/0/preview", data=form).get_data(as_text=True)
    assert 'aria-label="Die 4: 5"' in plain and 'id="sheet"' in plain  # no JavaScript: the whole page


def test_a_table_view_is_drawn_from_the_view_alone(client):
    table = new_table(client)
    assert post_entry(client, table, 0, kind="score", category="chance", dice=[6, 6, 5, 5, 4]).status_code == 201
    html = client.get(f"/t/{table['code']}/board").get_data(as_text=True)
    assert 'data-testid="view-total-0">26<' in html
