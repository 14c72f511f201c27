"""A change is told to the table's streams (and the other processes) once the request that made it
has its answer sent: the phone that tapped is answered without waiting for the table's fan-out. A
server closes an answer once it has sent it; Werkzeug then runs what the app left for that moment."""
from __future__ import annotations

from companion.platform.core.play import record
from tests.helpers import bearer, join_seat, log, new_table, post_entry


def spy_on_notices(app, monkeypatch) -> list[str]:
    """The codes `Live.changed` is called with, in order (it is what wakes streams and the bus)."""
    told: list[str] = []
    monkeypatch.setattr(app.extensions["live"], "changed", told.append)
    return told


def test_an_api_entry_is_answered_before_the_table_is_told(app, client, monkeypatch):
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    resp = client.post(f"/api/tables/{table['code']}/entries", buffered=False, headers=bearer(
        table["seats"][0]["token"]), json={"kind": "score", "dice": [2, 2, 2, 1, 1], "category": "twos"})
    assert resp.status_code == 201 and resp.get_json()["seq"] == 1
    assert told == []  # the answer is not closed yet: the server is still sending it
    resp.close()
    assert told == [table["code"]]


def test_a_page_entry_is_answered_before_the_table_is_told(app, client, monkeypatch):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    told = spy_on_notices(app, monkeypatch)
    resp = client.post(f"/t/{table['code']}/s/0/entries", data={"d0": 1, "d1": 1, "d2": 1, "d3": 2, "d4": 2,
                       "category": "ones", "csrf_token": csrf}, headers={"HX-Request": "true"}, buffered=False)
    assert resp.status_code == 200 and 'id="sheet"' in resp.get_data(as_text=True)
    assert told == []
    resp.close()
    assert told == [table["code"]]


def test_a_notice_that_fails_changes_neither_the_answer_nor_the_log(app, client, monkeypatch, caplog):
    table = new_table(client)

    def broken(code):
        raise RuntimeError("the bus is down")
    monkeypatch.setattr(app.extensions["live"], "changed", broken)
    resp = post_entry(client, table, 0, kind="score", dice=[3, 3, 3, 1, 1], category="threes")
    assert resp.status_code == 201 and resp.get_json()["seq"] == 1
    assert f"could not tell the streams that table {table['code']} changed" in caplog.text
    assert post_entry(client, table, 1, kind="score", dice=[4, 4, 1, 1, 1], category="fours").status_code == 201
    assert [e["seq"] for e in log(client, table["code"])] == [1, 2]


def test_a_refused_entry_tells_nobody(app, client, monkeypatch):
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    resp = post_entry(client, table, 1, kind="score", dice=[3, 3, 3, 1, 1], category="threes")  # out of turn
    assert resp.status_code == 422 and told == []


def test_outside_a_request_the_table_is_told_at_once(app, client, store, monkeypatch):
    """The command line and other code without a request (an import, a test) tell at once."""
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    info = store.table(table["code"])
    record(store, info, 0, {"kind": "score", "dice": [5, 5, 5, 1, 1], "category": "fives"})
    assert told == [table["code"]]
