"""An idempotency key is answered once per table: a resend writes nothing, whichever game is current.

A phone that lost its answer sends the same tap again, sometimes much later: after the game ended
and the host started a rematch. The tap belongs to the game it was made in; it must not score in the
new one, whether it comes through the API or as the page's form (with or without its game number).
"""
from __future__ import annotations

from tests.helpers import bearer, join_seat, log, new_table

HTMX = {"HX-Request": "true"}


def _finish_and_rematch(client, table):
    code, token = table["code"], table["seats"][0]["token"]
    assert client.post(f"/api/tables/{code}/entries", json={"kind": "finish"}, headers=bearer(token)).status_code == 201
    resp = client.post(f"/api/tables/{code}/rematch", headers=bearer(table["host_token"]))
    assert resp.status_code == 201 and resp.get_json()["game_no"] == 2


def test_an_api_key_resent_after_a_rematch_writes_nothing_in_the_new_game(client):
    table = new_table(client, ["Ann"], game="score_pad")
    code, token = table["code"], table["seats"][0]["token"]
    first = client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": 7, "key": "tap-1"},
                        headers=bearer(token))
    assert first.status_code == 201
    _finish_and_rematch(client, table)

    again = client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": 7, "key": "tap-1"},
                        headers=bearer(token))
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    other = client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": 9, "key": "tap-1"},
                        headers=bearer(token))
    assert other.status_code == 409 and "already used" in other.get_json()["error"]
    assert log(client, code) == []  # game 2 is untouched
    assert client.get(f"/api/tables/{code}").get_json()["players"][0]["total"] == 0
    # a new key still writes in game 2
    fresh = client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": 2, "key": "tap-2"},
                        headers=bearer(token))
    assert fresh.status_code == 201 and fresh.get_json()["seq"] == 1


def test_an_undo_key_resent_after_a_rematch_takes_nothing_back(client):
    table = new_table(client, ["Ann"], game="score_pad")
    code, token = table["code"], table["seats"][0]["token"]
    for points in (4, 5):
        client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": points}, headers=bearer(token))
    assert client.post(f"/api/tables/{code}/undo", json={"key": "undo-1"}, headers=bearer(token)).status_code == 201
    _finish_and_rematch(client, table)
    client.post(f"/api/tables/{code}/entries", json={"kind": "score", "points": 3}, headers=bearer(token))

    again = client.post(f"/api/tables/{code}/undo", json={"key": "undo-1"}, headers=bearer(token))
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert [e["kind"] for e in log(client, code)] == ["score"]
    assert client.get(f"/api/tables/{code}").get_json()["players"][0]["total"] == 3


def _form_key(client, code) -> str:
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    return page.split('name="key" value="')[1].split('"')[0]


def test_a_page_form_resent_after_a_rematch_without_its_game_number_scores_nothing(client):
    table = new_table(client, ["Ann"], game="score_pad")
    code = table["code"]
    csrf = join_seat(client, code, 0)
    form = {"points": "6", "key": _form_key(client, code), "csrf_token": csrf}
    assert client.post(f"/t/{code}/s/0/entries", data=form, headers=HTMX).status_code == 200
    _finish_and_rematch(client, table)

    resent = client.post(f"/t/{code}/s/0/entries", data=form, headers=HTMX)
    assert resent.status_code == 200
    assert log(client, code) == []
    assert client.get(f"/api/tables/{code}").get_json()["players"][0]["total"] == 0
    # the answer is game 2's sheet, ready for a score
    assert 'name="points"' in resent.get_data(as_text=True)
    plain = client.post(f"/t/{code}/s/0/entries", data=form)  # a browser without htmx
    assert plain.status_code == 303 and log(client, code) == []

