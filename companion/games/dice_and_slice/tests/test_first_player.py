"""Who starts (DS-3): a seat the host names, or one picked at random when the table is created and
kept with it, so replays never pick again; tables from before the option start with seat 1."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dice_and_slice.rules import RuleError, apply, new_state, normalize_options, placements_for
from companion.games.dice_and_slice.rules.engine import DRAW_RANGE
from tests.helpers import log, new_table, post_entry

GAME = "dice_and_slice"


def test_ds3_the_named_seat_rolls_first_and_the_turn_goes_round_from_there():
    st0 = new_state(3, normalize_options({"first": 2}))
    assert st0.active == 2
    with pytest.raises(RuleError, match="Only the active player, seat 3, enters the roll"):
        apply(st0, 0, {"kind": "roll", "faces": {"A": 1, "B": 1}})
    st1 = apply(apply(st0, 2, {"kind": "roll", "faces": {"A": 1, "B": 1}}), 2, {"kind": "choose", "die": "A"})
    for seat in range(3):
        if st1.seats[seat].status == "to_place":
            st1 = apply(st1, seat, {"kind": "place", "dots": placements_for(st1, seat)[0]["dots"]})
    assert (st1.turn, st1.active) == (2, 0)  # seat 3 -> seat 1: round in seat order


def test_ds3_old_tables_without_the_option_start_with_seat_1():
    stored = {"edition": "default", "side": "A"}  # options as tables stored them before the option
    assert new_state(4, stored).active == 0
    assert new_state(4, normalize_options(stored)).active == 0


def test_ds3_a_seat_the_table_does_not_have_is_refused_when_the_table_is_created(client):
    with pytest.raises(RuleError, match="no seat 4 to start"):
        new_state(3, normalize_options({"first": 3}))
    for bad in (-1, 6, "2", True, 1.5, None):
        with pytest.raises(RuleError):
            normalize_options({"first": bad})
    resp = client.post("/api/tables", json={"game": GAME, "players": ["Ann", "Ben"], "options": {"first": 2}})
    assert resp.status_code in (400, 422) and "no seat 3 to start" in json.dumps(resp.get_json())


def test_ds3_a_random_start_is_drawn_once_and_kept_for_replays():
    opts = normalize_options({"first": "random"})
    assert opts["first"] == "random" and 0 <= opts["first_draw"] < DRAW_RANGE
    stored = json.loads(json.dumps(opts))
    assert normalize_options(stored) == opts  # a replay reads the draw; it never draws again
    assert {new_state(5, stored).active for _ in range(20)} == {opts["first_draw"] % 5}
    with pytest.raises(RuleError, match="first_draw"):
        normalize_options({"first": "random", "first_draw": DRAW_RANGE})
    with pytest.raises(RuleError, match="only goes with"):
        normalize_options({"first": 1, "first_draw": 3})


@settings(deadline=None, max_examples=60)
@given(st.integers(1, 6))
def test_ds3_every_seat_can_be_drawn_and_each_equally_often(players):
    # the draw is a number every player count divides: each seat is the start of the same share of draws
    starts = [new_state(players, normalize_options({"first": "random", "first_draw": d})).active
              for d in range(DRAW_RANGE)]
    assert sorted(set(starts)) == list(range(players))
    assert all(starts.count(s) == DRAW_RANGE // players for s in range(players))


def test_ds3_random_starts_differ_between_tables_and_stay_put_in_each(client):
    actives = set()
    for _ in range(12):
        table = new_table(client, ["Ann", "Ben", "Cy"], game=GAME, options={"first": "random"})
        first = client.get(f"/api/tables/{table['code']}").get_json()["view"]["active"]
        actives.add(first)
        assert post_entry(client, table, first, kind="roll", faces={"A": 1, "B": 2}).status_code == 201
        again = client.get(f"/api/tables/{table['code']}").get_json()["view"]  # rebuilt from the log
        assert again["active"] == first and again["phase"] == "choose"
        assert [e["kind"] for e in log(client, table["code"])] == ["roll"]
    assert len(actives) > 1  # 12 tables all starting with one seat of three: about 1 in 59,000


def test_ds3_the_start_form_names_who_starts_or_asks_for_a_random_pick(client, store):
    from tests.helpers import start_table_page

    home = client.get("/").get_data(as_text=True)
    assert 'name="dice_and_slice_first"' in home and "most recently ate pizza" in home
    code = start_table_page(client, game=GAME, player0="Ann", player1="Ben", player2="Cy", dice_and_slice_first="1")
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["active"] == 1 and store.table(code).options["first"] == 1
    code = start_table_page(client, game=GAME, player0="Ann", player1="Ben", dice_and_slice_first="random")
    options = store.table(code).options
    assert options["first"] == "random" and client.get(f"/api/tables/{code}").get_json()["view"]["active"] == \
        options["first_draw"] % 2
    # a player the table does not have: refused on the start form, nothing created
    from tests.helpers import csrf_from

    csrf = csrf_from(home)
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben",
                                        "dice_and_slice_first": "4", "csrf_token": csrf})
    assert resp.status_code == 422 and "no seat 5 to start" in resp.get_data(as_text=True)
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "dice_and_slice_first": "first!",
                                        "csrf_token": csrf})
    assert resp.status_code == 422 and "Choose who starts" in resp.get_data(as_text=True)
