"""Dice and Slice and Pizza Theory played to the end through the JSON API alone.

The test is a client like any other: it reads the table over the API and picks its moves with the
engines' public helpers (what a phone would highlight), then checks the API's final totals against a
replay of the logged entries.
"""
from __future__ import annotations

import random

from companion.platform.core.registry import get_game
from companion.games.dice_and_slice.rules import legal_placements
from companion.games.pizza_theory.rules import neutral_spaces
from tests.helpers import bearer, log, new_table, post_entry


def replay_log(game_id, players, options, entries):
    """Rebuild the final state from the log the API returns (undone entries and undos left out)."""
    game = get_game(game_id)
    state = game.new_state(players, game.normalize_options(options))
    for e in entries:
        if e["kind"] == "undo" or e.get("undone"):
            continue
        fields = {k: v for k, v in e.items() if k not in ("seq", "seat", "time", "kind", "undone")}
        state = game.apply(state, e["seat"], {"kind": e["kind"], **fields})
    return game, state


def table_state(client, code, token=None):
    return client.get(f"/api/tables/{code}", headers=bearer(token) if token else {}).get_json()


def place_for_each_waiting_seat(client, table, view, rng):
    """In the place phase every seat still to move enters its move: its die's face where it marks the
    most new dots, or, when it is owed a bonus dot (DS-11), one dot on an empty spot of its sheet."""
    for seat, status in enumerate(view["seat_status"]):
        if status == "to_place":
            die = view["dice_for_seats"][seat]
            face = [tuple(d) for d in view["rolled"][die]["dots"]]
            dots = [tuple(d) for d in view["players"][seat]["dots"]]
            options = legal_placements(dots, face)
            assert options, "the engine passes a seat with no legal placement by itself"
            # prefer placements that add many dots, so the game ends in a sensible time
            best = max(options, key=lambda o: (len(o["new"]), rng.random()))
            resp = post_entry(client, table, seat, kind="place", dots=best["dots"])
            assert resp.status_code == 201, resp.get_json()
        elif status == "bonus":
            marked = {tuple(d) for d in view["players"][seat]["dots"]}
            free = [[x, y] for x in range(13) for y in range(10) if (x, y) not in marked]
            resp = post_entry(client, table, seat, kind="bonus_dot", dot=rng.choice(free))
            assert resp.status_code == 201, resp.get_json()


def test_dice_and_slice_whole_game_through_the_api(client):  # DS-1 … DS-16 wired into the platform
    rng = random.Random(4)
    table = new_table(client, ["Ann", "Ben", "Cy"], game="dice_and_slice")
    code = table["code"]
    for _ in range(2000):
        state = table_state(client, code)
        view = state["view"]
        if state["finished"]:
            break
        active = view["active"]
        if view["phase"] == "roll":
            faces = {"A": rng.randint(1, 6), "B": rng.randint(1, 6)}
            assert post_entry(client, table, active, kind="roll", faces=faces).status_code == 201
        elif view["phase"] == "choose":
            assert post_entry(client, table, active, kind="choose", die=rng.choice("AB")).status_code == 201
        else:
            place_for_each_waiting_seat(client, table, view, rng)
    state = table_state(client, code)
    assert state["finished"] is True
    game, final = replay_log("dice_and_slice", 3, {}, log(client, code))
    assert [p["total"] for p in state["players"]] == game.totals(final)
    assert state["winners"] == game.winners(final) and state["winners"]
    # an illegal placement is refused with a reason, malformed ones with 400
    after = table_state(client, code)
    assert post_entry(client, table, 0, kind="place", dots=[[0, 0]]).status_code == 422
    assert table_state(client, code)["version"] == after["version"]


def test_dice_and_slice_refusals_change_nothing(client):  # DS-3, DS-4
    table = new_table(client, ["Ann", "Ben"], game="dice_and_slice")
    code = table["code"]
    # only the active player (seat 0) enters the roll
    resp = post_entry(client, table, 1, kind="roll", faces={"A": 1, "B": 2})
    assert resp.status_code == 422 and resp.get_json()["error"]
    assert post_entry(client, table, 0, kind="roll", faces={"A": 9, "B": 2}).status_code in (400, 422)
    assert log(client, code) == []
    assert post_entry(client, table, 0, kind="roll", faces={"A": 1, "B": 2}).status_code == 201
    assert post_entry(client, table, 0, kind="choose", die="A").status_code == 201
    view = table_state(client, code)["view"]
    assert view["dice_for_seats"] == ["A", "B"]  # the others use the other die
    # a pattern that is not the die's face is refused
    resp = post_entry(client, table, 1, kind="place", dots=[[0, 0], [5, 5]])
    assert resp.status_code == 422
    assert len(log(client, code)) == 2


def play_pizza_theory(client, table, players, rng, max_rounds=80):
    code = table["code"]
    tokens = [s["token"] for s in table["seats"]]
    for _ in range(5000):
        state = table_state(client, code)
        view = state["view"]
        if state["finished"] or view["round"] > max_rounds:
            return state
        if view["phase"] == "add":
            seat = view["to_place"]
            mine = table_state(client, code, tokens[seat])["view"]
            space = rng.choice(mine["legal_spaces"])
            assert post_entry(client, table, seat, kind="place", space=space).status_code == 201
        elif view["phase"] == "neutral":
            seat = view["turn_order"][0]
            ok = False
            for line in rng.sample(range(1, 7), 6):
                spaces = neutral_spaces(_engine_state(client, code), line)
                if spaces:
                    resp = post_entry(client, table, seat, kind="neutral", line=line, space=list(rng.choice(spaces)))
                    assert resp.status_code == 201, resp.get_json()
                    ok = True
                    break
            if not ok:
                resp = post_entry(client, table, seat, kind="neutral", line=1, space=None)
                assert resp.status_code == 201, resp.get_json()
        elif view["phase"] == "cut":
            for seat in range(players):
                if not view["seats"][seat]["has_chosen"]:
                    assert post_entry(client, table, seat, kind="cut", line=rng.randint(1, 6)).status_code == 201
    raise AssertionError("game did not settle")


def add_toppings_until_the_cuts(client, table, rng):
    """Every seat adds toppings on legal spaces, in turn, until the round reaches its cuts."""
    code, tokens = table["code"], [s["token"] for s in table["seats"]]
    while table_state(client, code)["view"]["phase"] == "add":
        seat = table_state(client, code)["view"]["to_place"]
        space = rng.choice(table_state(client, code, tokens[seat])["view"]["legal_spaces"])
        assert post_entry(client, table, seat, kind="place", space=space).status_code == 201


def _engine_state(client, code):
    _, state = replay_log("pizza_theory", len(client.get(f"/api/tables/{code}").get_json()["players"]), {},
                          log(client, code))
    return state


def test_pizza_theory_whole_game_through_the_api(client):  # PT-1 … PT-19 wired into the platform
    rng = random.Random(7)
    table = new_table(client, ["Ann", "Ben", "Cy"], game="pizza_theory")
    state = play_pizza_theory(client, table, 3, rng)
    assert state["finished"] is True and state["winners"]
    game, final = replay_log("pizza_theory", 3, {}, log(client, table["code"]))
    assert [p["total"] for p in state["players"]] == game.totals(final)
    assert state["finished"] == game.finished(final)
    assert state["winners"] == game.winners(final)


def test_pizza_theory_two_players_with_the_neutral_colour(client):  # PT: 2-player variant through the API
    rng = random.Random(11)
    table = new_table(client, ["Ann", "Ben"], game="pizza_theory")
    state = play_pizza_theory(client, table, 2, rng, max_rounds=6)
    entries = log(client, table["code"])
    assert any(e["kind"] == "neutral" for e in entries)
    game, final = replay_log("pizza_theory", 2, {}, entries)
    assert [p["total"] for p in state["players"]] == game.totals(final)


def test_pending_cuts_stay_secret_in_the_api(client):  # PT-8: cuts are secret until all have chosen
    table = new_table(client, ["Ann", "Ben", "Cy"], game="pizza_theory")
    code = table["code"]
    tokens = [s["token"] for s in table["seats"]]
    add_toppings_until_the_cuts(client, table, random.Random(3))
    assert post_entry(client, table, 0, kind="cut", line=4).status_code == 201
    for viewer in (None, tokens[1], tokens[2]):
        text = client.get(f"/api/tables/{code}", headers=bearer(viewer) if viewer else {}).get_data(as_text=True)
        entries = client.get(f"/api/tables/{code}/entries", headers=bearer(viewer) if viewer else {}).get_json()["entries"]
        cut = [e for e in entries if e["kind"] == "cut"]
        assert cut and cut[0].get("hidden") is True and "line" not in cut[0]
        assert '"my_cut":4' not in text.replace(" ", "")
    own = client.get(f"/api/tables/{code}/entries", headers=bearer(tokens[0])).get_json()["entries"]
    assert [e["line"] for e in own if e["kind"] == "cut"] == [4]
    assert table_state(client, code, tokens[0])["view"]["my_cut"] == 4
    post_entry(client, table, 1, kind="cut", line=2)
    post_entry(client, table, 2, kind="cut", line=6)
    revealed = client.get(f"/api/tables/{code}/entries").get_json()["entries"]
    assert [e.get("line") for e in revealed if e["kind"] == "cut"] == [4, 2, 6]


def test_a_table_can_carry_its_own_dice_and_slice_edition(client):  # DS-2: editions are data
    import json
    from pathlib import Path

    edition = json.loads((Path(__file__).resolve().parents[2] / "companion/games/dice_and_slice/rules/default_edition.json").read_text())
    edition["label"] = "Our copy"
    edition["slice_points"] = [n * 2 for n in range(1, 16)]
    table = new_table(client, ["Ann"], game="dice_and_slice", options={"edition": edition, "side": "B"})
    view = table_state(client, table["code"])["view"]
    assert view["edition"]["label"] == "Our copy" and view["side"] == "B"
    assert view["slice_points"]["15"] == 30
    # a broken edition is refused when the table is created, with the problem named
    edition["dice"]["A"][2] = [[3, 1]]
    resp = client.post("/api/tables", json={"game": "dice_and_slice", "players": ["Ann"],
                                            "options": {"edition": edition}})
    assert resp.status_code in (400, 422)
    assert "die A face 3 has a dot outside the face's 3 × 3 grid" in resp.get_json()["error"]


def test_a_revealed_cut_cannot_be_taken_back(client):  # PT-7: a revealed cut is final
    table = new_table(client, ["Ann", "Ben", "Cy"], game="pizza_theory")
    code = table["code"]
    tokens = [s["token"] for s in table["seats"]]
    add_toppings_until_the_cuts(client, table, random.Random(5))
    post_entry(client, table, 0, kind="cut", line=3)
    # before the reveal Ann may take her cut back and choose again
    undo = client.post(f"/api/tables/{code}/undo", headers=bearer(tokens[0]))
    assert undo.status_code == 201
    post_entry(client, table, 0, kind="cut", line=5)
    post_entry(client, table, 1, kind="cut", line=1)
    post_entry(client, table, 2, kind="cut", line=6)  # the last cut reveals all three
    version = table_state(client, code)["version"]
    for seat in (2, 0):
        resp = client.post(f"/api/tables/{code}/undo", headers=bearer(tokens[seat]))
        assert resp.status_code == 422 and "revealed" in resp.get_json()["error"]
    assert table_state(client, code)["version"] == version


def test_the_host_enters_cuts_only_for_players_who_have_not_chosen(client):  # PT-7
    table = new_table(client, ["Ann", "Ben", "Cy"], game="pizza_theory")
    code = table["code"]
    tokens = [s["token"] for s in table["seats"]]
    add_toppings_until_the_cuts(client, table, random.Random(9))
    post_entry(client, table, 0, kind="cut", line=4)
    host = bearer(table["host_token"])
    url = f"/api/tables/{code}/entries"
    resp = client.post(url, json={"kind": "cut", "line": 1, "seat": 0}, headers=host)
    assert resp.status_code == 422 and "Ann" in resp.get_json()["error"]
    assert table_state(client, code, tokens[0])["view"]["my_cut"] == 4  # Ann's secret choice stands
    assert client.post(url, json={"kind": "cut", "line": 2, "seat": 1}, headers=host).status_code == 201
    # nor undo for a player at a table that is not pass-and-play
    assert client.post(f"/api/tables/{code}/undo", json={"seat": 1}, headers=host).status_code == 403
