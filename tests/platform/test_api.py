"""The JSON API end to end, on SQLite and (with TEST_DATABASE_URL) PostgreSQL."""
from __future__ import annotations

import pytest

from tests.helpers import bearer, log, new_table, post_entry

ANN_GAME = [  # (dice, box, score): a perfect-ish sheet with the upper bonus: 329 in all
    ([1, 1, 1, 2, 3], "ones", 3), ([2, 2, 2, 1, 3], "twos", 6), ([3, 3, 3, 1, 2], "threes", 9),
    ([4, 4, 4, 1, 2], "fours", 12), ([5, 5, 5, 1, 2], "fives", 15), ([6, 6, 6, 1, 2], "sixes", 18),
    ([6, 6, 6, 5, 5], "three_of_a_kind", 28), ([6, 6, 6, 6, 5], "four_of_a_kind", 29),
    ([2, 2, 3, 3, 3], "full_house", 25), ([1, 2, 3, 4, 6], "small_straight", 30),
    ([2, 3, 4, 5, 6], "large_straight", 40), ([4, 4, 4, 4, 4], "dicez", 50), ([6, 6, 6, 6, 5], "chance", 29),
]
BEN_DICE = [1, 2, 3, 4, 6]  # Ben writes the same roll everywhere: 62 in all
BEN_TOTAL = 1 + 2 + 3 + 4 + 0 + 6 + 0 + 0 + 0 + 30 + 0 + 0 + 16


def play_whole_game(client, table):
    for dice, box, _ in ANN_GAME:
        assert post_entry(client, table, 0, kind="score", dice=dice, category=box).status_code == 201
        assert post_entry(client, table, 1, kind="score", dice=BEN_DICE, category=box).status_code == 201


def test_create_table_returns_code_join_url_and_seat_tokens(client):
    table = new_table(client, ["Ann", "Ben", "Cy"])
    assert len(table["code"]) == 6
    assert set(table["code"]) <= set("34679ACDEFGHJKMNPQRTUVWXY")
    assert f"/t/{table['code']}/j/" in table["join_url"] and len(table["pin"]) == 6
    assert [s["name"] for s in table["seats"]] == ["Ann", "Ben", "Cy"]
    tokens = {s["token"] for s in table["seats"]} | {table["host_token"]}
    assert len(tokens) == 4


def test_state_shows_every_box_as_null_before_play(client):
    table = new_table(client)
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["game"] == "dicez" and state["version"] == 0 and state["finished"] is False
    assert state["winners"] == []
    sheet = state["players"][0]["sheet"]
    for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
                "full_house", "small_straight", "large_straight", "dicez", "chance"):
        assert sheet[box] is None
    assert sheet["upper_bonus"] == 0


def test_scoring_entry_updates_sheet_total_and_version(client):
    table = new_table(client)
    resp = post_entry(client, table, 0, kind="score", dice=[5, 5, 5, 3, 4], category="three_of_a_kind")
    assert resp.status_code == 201 and resp.get_json()["version"] == 1
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["players"][0]["sheet"]["three_of_a_kind"] == 22  # DZ: sum of all five dice
    assert state["players"][0]["total"] == 22
    assert state["players"][1]["total"] == 0


def test_whole_game_finishes_with_winner_bonus_and_history(client):
    table = new_table(client)
    play_whole_game(client, table)
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["finished"] is True
    assert state["players"][0]["sheet"]["upper_bonus"] == 35
    assert state["players"][0]["total"] == 329
    assert state["players"][1]["total"] == BEN_TOTAL
    assert state["winners"] == [0]
    client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
    page = client.get("/history").get_data(as_text=True)
    assert table["code"] in page and "329" in page
    # nothing more can be written once the game is over
    resp = post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    assert resp.status_code == 422 and "over" in resp.get_json()["error"]


@pytest.mark.parametrize("body, status", [
    ({"kind": "score", "dice": [1, 2, 3, 4, 7], "category": "chance"}, 422),      # die out of range
    ({"kind": "score", "dice": [1, 2, 3, 4], "category": "chance"}, 400),        # wrong count
    ({"kind": "score", "dice": "12345", "category": "chance"}, 400),             # wrong type
    ({"kind": "score", "dice": [1, 2, 3, 4, 5], "category": "sevens"}, 400),     # unknown box
    ({"kind": "score", "dice": [1, 2, 3, 4, 5]}, 400),                           # no box
    ({"kind": "score", "dice": [1, 2, 3, 4, 5], "category": "chance", "bonus": 9}, 400),  # unknown field
    ({"kind": "teleport"}, 422),                                                   # unknown kind
    ({"dice": [1, 2, 3, 4, 5], "category": "chance"}, 400),                       # no kind at all
])
def test_bad_entries_are_refused_with_a_reason_and_change_nothing(client, body, status):
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[1, 1, 2, 2, 3], category="ones")
    before = log(client, table["code"])
    resp = client.post(f"/api/tables/{table['code']}/entries", json=body, headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code in (status if isinstance(status, tuple) else (status,))
    assert isinstance(resp.get_json()["error"], str) and resp.get_json()["error"]
    assert log(client, table["code"]) == before


def test_filled_box_is_refused(client):
    table = new_table(client, options={"turn_order": False})  # free play: Ann may score twice running
    post_entry(client, table, 0, kind="score", dice=[1, 1, 2, 2, 3], category="ones")
    resp = post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 2, 3], category="ones")
    assert resp.status_code == 422 and "Ones" in resp.get_json()["error"]
    assert len(log(client, table["code"])) == 1


def test_malformed_bodies_get_400(client):
    table = new_table(client)
    url = f"/api/tables/{table['code']}/entries"
    headers = bearer(table["seats"][0]["token"])
    assert client.post(url, data="not json", headers=headers, content_type="application/json").status_code == 400
    assert client.post(url, json=[1, 2, 3], headers=headers).status_code == 400
    assert client.post(url, json={"kind": 5}, headers=headers).status_code == 400
    assert log(client, table["code"]) == []


def test_tokens_guard_every_seat(client):
    table = new_table(client)
    url = f"/api/tables/{table['code']}/entries"
    entry = {"kind": "score", "dice": [1, 1, 2, 2, 3], "category": "ones"}
    assert client.post(url, json=entry).status_code == 401
    assert client.post(url, json=entry, headers=bearer("made-up")).status_code == 403
    # Ann's token cannot write for Ben
    resp = client.post(url, json={**entry, "seat": 1}, headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code == 403
    # the host token writes for players only at a pass-and-play table
    assert client.post(url, json={**entry, "seat": 1}, headers=bearer(table["host_token"])).status_code == 403
    other = new_table(client)
    assert client.post(url, json=entry, headers=bearer(other["seats"][0]["token"])).status_code == 403
    assert log(client, table["code"]) == []


def test_pass_and_play_host_writes_for_any_seat(client):
    table = new_table(client, pass_and_play=True, options={"turn_order": False})  # free play: any seat now
    url = f"/api/tables/{table['code']}/entries"
    resp = client.post(url, json={"kind": "score", "dice": [2, 2, 2, 3, 3], "category": "twos", "seat": 1},
                       headers=bearer(table["host_token"]))
    assert resp.status_code == 201
    assert client.get(f"/api/tables/{table['code']}").get_json()["players"][1]["total"] == 6


def test_unknown_table_and_oversized_body(client, app):
    assert client.get("/api/tables/ZZZZZZ").status_code == 404
    assert "error" in client.get("/api/tables/ZZZZZZ").get_json()
    table = new_table(client)
    big = {"kind": "score", "dice": [1, 1, 1, 1, 1], "category": "ones", "pad": "x" * (app.config["MAX_CONTENT_LENGTH"] + 10)}
    resp = client.post(f"/api/tables/{table['code']}/entries", json=big, headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code == 413 and "error" in resp.get_json()
    assert log(client, table["code"]) == []


def test_repeated_idempotency_key_applies_once_and_answers_alike(client):
    table = new_table(client)
    first = post_entry(client, table, 0, kind="score", dice=[3, 3, 3, 1, 2], category="threes", key="tap-1")
    again = post_entry(client, table, 0, kind="score", dice=[3, 3, 3, 1, 2], category="threes", key="tap-1")
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(log(client, table["code"])) == 1
    assert client.get(f"/api/tables/{table['code']}").get_json()["players"][0]["total"] == 9


def test_undo_is_logged_and_restores_the_box(client):
    table = new_table(client, options={"turn_order": False})  # free play: Ben's entry does not wait on Ann's
    post_entry(client, table, 0, kind="score", dice=[6, 6, 6, 1, 2], category="sixes")
    post_entry(client, table, 1, kind="score", dice=[1, 1, 1, 1, 2], category="ones")
    resp = client.post(f"/api/tables/{table['code']}/undo", headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code == 201 and resp.get_json()["undone"] == 1
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["players"][0]["sheet"]["sixes"] is None
    assert state["players"][1]["sheet"]["ones"] == 4  # Ben's entry is untouched
    entries = log(client, table["code"])
    assert [e["kind"] for e in entries] == ["score", "score", "undo"]
    assert entries[0].get("undone") is True  # the history stays auditable
    # nothing left to undo for Ann
    resp = client.post(f"/api/tables/{table['code']}/undo", headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code == 422


def test_undo_is_refused_after_the_game_ends(client):
    table = new_table(client)
    play_whole_game(client, table)
    resp = client.post(f"/api/tables/{table['code']}/undo", headers=bearer(table["seats"][1]["token"]))
    assert resp.status_code == 422
    assert client.get(f"/api/tables/{table['code']}").get_json()["finished"] is True


def test_unchanged_state_answers_304(client):
    table = new_table(client)
    first = client.get(f"/api/tables/{table['code']}")
    etag = first.headers["ETag"]
    assert client.get(f"/api/tables/{table['code']}", headers={"If-None-Match": etag}).status_code == 304
    post_entry(client, table, 0, kind="score", dice=[1, 1, 2, 2, 3], category="ones")
    assert client.get(f"/api/tables/{table['code']}", headers={"If-None-Match": etag}).status_code == 200


def test_rematch_starts_a_new_game_with_the_same_seats(client):
    table = new_table(client)
    play_whole_game(client, table)
    url = f"/api/tables/{table['code']}/rematch"
    assert client.post(url, headers=bearer(table["seats"][0]["token"])).status_code == 403
    resp = client.post(url, headers=bearer(table["host_token"]))
    assert resp.status_code == 201 and resp.get_json()["game_no"] == 2
    state = client.get(f"/api/tables/{table['code']}").get_json()
    assert state["game_no"] == 2 and state["version"] == 0 and state["finished"] is False
    # the same seat tokens play the new game
    assert post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="dicez").status_code == 201
    # the first game is still there, finished, in the history and the export
    first = client.get(f"/t/{table['code']}/games/1/export.json").get_json()
    assert first["finished"] is True and first["winners"] == [1]  # seats from 1, as on the start page
    assert len(first["entries"]) == 26


def test_export_csv_has_a_row_per_player(client):
    table = new_table(client)
    play_whole_game(client, table)
    csv_text = client.get(f"/t/{table['code']}/games/1/export.csv").get_data(as_text=True)
    lines = csv_text.strip().splitlines()
    assert lines[0].startswith("seat,name,ones,")
    assert lines[1].startswith("1,Ann,3,") and lines[1].endswith(",329,yes")  # seats from 1
    assert lines[2].startswith("2,Ben,1,") and lines[2].endswith(f",{BEN_TOTAL},")


def test_create_table_refuses_bad_requests(client):
    cases = [
        {"game": "chess", "players": ["A", "B"]},
        {"game": "dicez", "players": []},
        {"game": "dicez", "players": [f"P{i}" for i in range(11)]},
        {"game": "dicez", "players": "Ann"},
        {"game": "dicez", "players": ["Ann", ""]},
        {"game": "dicez", "players": ["Ann"], "options": {"no_such_option": True}},
        {"game": "dicez", "players": ["Ann"], "options": []},
    ]
    for body in cases:
        resp = client.post("/api/tables", json=body)
        assert 400 <= resp.status_code < 500, body
        assert resp.get_json()["error"], body


def test_the_log_of_a_game_number_the_table_never_played_is_a_404(client):
    table = new_table(client)
    for number in ("2", "0", "99999999999999999999"):
        resp = client.get(f"/api/tables/{table['code']}/entries?game={number}")
        assert resp.status_code == 404 and "has no game" in resp.get_json()["error"]
    assert client.get(f"/api/tables/{table['code']}/entries?game=1").get_json()["game_no"] == 1
