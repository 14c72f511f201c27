"""The DiceZ phone sheet through its HTML pages: entering dice with five slots and six faces (plain
POSTs, no JavaScript, and htmx), refused taps that keep the dice, turn order on every phone and the
start form's turn order switch. Rules: DZ-n in rules.md."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.platform.core.play import load_replay, record
from companion.platform.core.contract import RuleError
from tests.helpers import csrf_from, join_seat, log, new_table, post_entry, start_table_page

HTMX = {"HX-Request": "true"}


def slots(html: str) -> list[str]:
    """What the five die slots show ("" for one not entered)."""
    found = dict(re.findall(r'aria-label="Die (\d): ([^"]+)"', html))
    return ["" if found[str(i)] == "not entered" else found[str(i)] for i in range(1, 6)]


def next_slot(html: str) -> int | None:
    """The slot marked as the one the next face fills."""
    marked = re.findall(r'class="slot next[^"]*" data-slot="(\d)"', html)
    return int(marked[0]) if marked else None


def hint(html: str) -> str:
    match = re.search(r'data-testid="hint">(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", match.group(1)).strip() if match else ""


def dice_form(csrf, dice, **extra) -> dict:
    return {"csrf_token": csrf, **{f"d{i}": v for i, v in enumerate(dice)}, **extra}


@pytest.fixture
def table(client):
    table = new_table(client)
    table["csrf"] = join_seat(client, table["code"], 0)
    return table


def tap(client, table, dice, **extra) -> str:
    """A tap on the dice without JavaScript: the form goes to the preview, which draws the page."""
    resp = client.post(f"/t/{table['code']}/s/0/preview", data=dice_form(table["csrf"], dice, **extra))
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def test_without_javascript_each_face_fills_the_next_empty_slot(client, table):  # DZ-19
    html = client.get(f"/t/{table['code']}/s/0").get_data(as_text=True)
    assert slots(html) == [""] * 5 and next_slot(html) == 0
    dice = []
    for face in (3, 3, 5, 5, 6):
        html = tap(client, table, dice, face=str(face))
        dice = [int(v) for v in slots(html) if v]
    assert dice == [3, 3, 5, 5, 6] and next_slot(html) is None
    assert 'aria-label="Score 22 in Chance"' in html and 'aria-label="Score 10 in Fives"' in html
    assert hint(html) == "Your turn. Tap a box to score these dice."


def test_without_javascript_a_tapped_slot_takes_the_next_face_and_clear_empties_all(client, table):  # DZ-19
    html = tap(client, table, [3, 3, 5, 5, 6], slot="1")
    assert next_slot(html) == 1 and hint(html) == "Your turn. Tap the face for die 2."
    html = tap(client, table, [3, 3, 5, 5, 6], cursor="1", face="5")
    assert slots(html) == ["3", "5", "5", "5", "6"] and next_slot(html) is None
    assert 'aria-label="Score 15 in Fives"' in html
    html = tap(client, table, [3, 5, 5, 5, 6], clear="1")
    assert slots(html) == [""] * 5 and hint(html) == "Your turn. Enter your five dice."


def test_a_die_that_is_not_one_to_six_is_named_and_left_empty(client, table):  # DZ-19
    html = tap(client, table, ["3", "9", "", "", ""])
    assert slots(html) == ["3", "", "", "", ""]
    assert 'data-testid="error">Die 2 must be a number from 1 to 6.' in html


@pytest.mark.parametrize("htmx", [True, False])
def test_a_box_tapped_before_the_fifth_die_keeps_the_four_and_says_which_is_missing(client, table, htmx):  # DZ-19
    form = dice_form(table["csrf"], [2, 2, 4, 4], category="chance")
    resp = client.post(f"/t/{table['code']}/s/0/entries", data=form, headers=HTMX if htmx else {})
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert slots(html) == ["2", "2", "4", "4", ""] and next_slot(html) == 4
    assert hint(html) == "Your turn. Enter die 5 first."
    assert 'class="error"' not in html  # a hint while entering, not an error
    assert log(client, table["code"]) == []


def test_after_scoring_without_javascript_the_sheet_is_ready_for_the_next_turn(client, table):  # DZ-3
    form = dice_form(table["csrf"], [6, 6, 6, 2, 2], category="full_house")
    resp = client.post(f"/t/{table['code']}/s/0/entries", data=form)
    assert resp.status_code == 303
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert slots(html) == [""] * 5 and next_slot(html) == 0
    assert 'data-testid="box-full_house">25<' in html


def test_each_phone_is_told_whose_turn_it_is(client):  # DZ-20
    table = new_table(client, ["Ann", "Ben", "Cy"])
    post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    join_seat(client, table["code"], 1)
    ben = client.get(f"/t/{table['code']}/s/1").get_data(as_text=True)
    assert hint(ben) == "Your turn. Enter your five dice."
    join_seat(client, table["code"], 2)
    cy = client.get(f"/t/{table['code']}/s/2").get_data(as_text=True)
    assert hint(cy) == "Ben's turn — wait for Ben."
    scoreboard = cy[cy.index('id="scoreboard"'):]
    assert scoreboard.count("to play") == 1 and re.search(r"Ben<small> · to play", scoreboard)


def test_a_box_tapped_out_of_turn_is_refused_keeps_the_dice_and_logs_nothing(client):  # DZ-20
    table = new_table(client)
    csrf = join_seat(client, table["code"], 1)
    form = dice_form(csrf, [5, 5, 5, 5, 5], category="dicez")
    resp = client.post(f"/t/{table['code']}/s/1/entries", data=form, headers=HTMX)
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert "It is Ann&#39;s turn: turns go in seat order, so wait for Ann." in html and 'data-testid="error"' in html
    assert 'href="/rules/dicez#DZ-20"' in html  # the refusal links to the rule it applies
    assert slots(html) == ["5"] * 5
    assert log(client, table["code"]) == []


def test_free_play_names_no_turn(client):  # DZ-14
    table = new_table(client, options={"turn_order": False})
    csrf = join_seat(client, table["code"], 1)
    html = client.get(f"/t/{table['code']}/s/1").get_data(as_text=True)
    assert hint(html) == "Enter your five dice." and "turn" not in hint(html)
    form = dice_form(csrf, [5, 5, 5, 5, 5], category="dicez")
    assert client.post(f"/t/{table['code']}/s/1/entries", data=form).status_code == 303


def test_in_turn_order_a_turn_can_be_undone_until_the_next_player_has_played(client):  # DZ-20
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    post_entry(client, table, 1, kind="score", dice=[2, 2, 2, 2, 2], category="twos")
    undo = f"/api/tables/{table['code']}/undo"
    ann = {"Authorization": f"Bearer {table['seats'][0]['token']}"}
    ben = {"Authorization": f"Bearer {table['seats'][1]['token']}"}
    refused = client.post(undo, headers=ann)
    assert refused.status_code == 422
    assert refused.get_json()["error"] == ("That entry can't be undone any more: Ben played after it, "
                                           "and that play depends on it.")
    assert client.post(undo, headers=ben).status_code == 201
    assert client.post(undo, headers=ann).status_code == 201
    assert client.get(f"/api/tables/{table['code']}").get_json()["waiting_for"] == [0]


@pytest.mark.parametrize("sent, turn_order", [(["0", "1"], True), (["0"], False), (None, True)])
def test_the_start_form_switches_turn_order(client, sent, turn_order):  # DZ-20
    form = {"player0": "Ann", "player1": "Ben"}
    if sent is not None:
        form["dicez_turn_order"] = sent  # the hidden "0", and the box's "1" when it is ticked
    code = start_table_page(client, **form)
    assert client.get(f"/api/tables/{code}").get_json()["view"]["options"]["turn_order"] is turn_order


def test_the_start_form_has_turn_order_ticked(client):  # DZ-20
    html = client.get("/").get_data(as_text=True)
    assert re.search(r'name="dicez_turn_order" value="1" checked', html)


def test_a_table_stored_before_turn_order_replays_its_log_as_free_play(store):  # DZ-14 DZ-20
    old_options = {"five_of_a_kind_full_house": False, "extra_dicez_bonus": False, "joker": False,
                   "roll_by_roll": False}
    table = store.create_table("dicez", old_options, ["Ann", "Ben"], False)
    for seat, box in ((1, "ones"), (1, "twos"), (0, "ones")):
        record(store, table, seat, {"kind": "score", "dice": [1, 1, 2, 2, 3], "category": box})
    replay = load_replay(store, store.table(table.code))
    assert replay.game.view(replay.state, None)["players"][1]["filled"] == 2
    assert replay.game.waiting_for(replay.state) == [0]


def test_a_new_table_refuses_the_same_entries_out_of_turn(store):  # DZ-20
    from companion.platform.core.play import new_table as make_table
    table = make_table(store, "dicez", ["Ann", "Ben"], {})
    with pytest.raises(RuleError, match="It is Ann's turn"):
        record(store, table, 1, {"kind": "score", "dice": [1, 1, 2, 2, 3], "category": "ones"})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(form=st.dictionaries(st.sampled_from(["d0", "d1", "d2", "d3", "d4", "face", "slot", "cursor", "clear"]),
                            st.one_of(st.sampled_from(["", "0", "1", "4", "6", "7", "²", "-1", " 3 "]),
                                      # what a phone's form can carry: NUL and lone surrogates are
                                      # refused (400) before any route, tests/platform/test_bad_input.py
                                      st.text(st.characters(blacklist_categories=("Cs",),
                                                            blacklist_characters="\x00"), max_size=4)),
                            max_size=9))
def test_any_tap_on_the_dice_draws_a_sheet_and_saves_nothing(client, table, form):  # DZ-19
    for headers in ({}, HTMX):
        resp = client.post(f"/t/{table['code']}/s/0/preview", data={**form, "csrf_token": table["csrf"]},
                           headers=headers)
        assert resp.status_code == 200
    html = tap(client, table, [], **form)
    assert len(slots(html)) == 5 and all(v in ("", "1", "2", "3", "4", "5", "6") for v in slots(html))
    assert log(client, table["code"]) == []
