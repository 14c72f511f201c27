"""A change is told to the table's streams (and the other processes) once the request that made it
has its answer: the phone that tapped is answered without waiting for the table's fan-out."""
from __future__ import annotations

import gc

from companion.platform.after_answer import AfterAnswer, later
from companion.platform.play import record
from tests.helpers import join_seat, log, new_table, post_entry


def spy_on_notices(app, monkeypatch) -> list[str]:
    """The codes `Live.changed` is called with, in order (it is what wakes streams and the bus)."""
    told: list[str] = []
    monkeypatch.setattr(app.extensions["live"], "changed", told.append)
    return told


def test_an_api_entry_is_answered_before_the_table_is_told(app, client, monkeypatch):
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    resp = post_entry_unread(client, table)
    assert resp.status_code == 201
    assert told == []  # the server has not finished sending the answer yet
    assert resp.get_json()["seq"] == 1
    assert told == [table["code"]]


def test_a_page_entry_is_answered_before_the_table_is_told(app, client, monkeypatch):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    told = spy_on_notices(app, monkeypatch)
    resp = client.post(f"/t/{table['code']}/s/0/entries", data={"d0": 1, "d1": 1, "d2": 1, "d3": 2, "d4": 2,
                       "category": "ones", "csrf_token": csrf}, headers={"HX-Request": "true"}, buffered=False)
    assert resp.status_code == 200 and told == []
    assert 'id="sheet"' in resp.get_data(as_text=True)
    assert told == [table["code"]]


def test_closing_an_answer_unread_still_tells_the_table(app, client, monkeypatch):
    """A phone that drops the connection mid-answer: the server closes the body, and the change is told."""
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    resp = post_entry_unread(client, table)
    resp.close()
    assert told == [table["code"]]


def test_an_answer_dropped_unread_still_tells_the_table(app, client, monkeypatch):
    table = new_table(client)
    told = spy_on_notices(app, monkeypatch)
    resp = post_entry_unread(client, table)
    assert told == []
    del resp
    gc.collect()
    assert told == [table["code"]]


def post_entry_unread(client, table):
    """Seat 0's entry through the API, its answer not read yet (the server still sending it)."""
    return client.post(f"/api/tables/{table['code']}/entries", json={"kind": "score", "dice": [2, 2, 2, 1, 1],
                       "category": "twos"}, headers={"Authorization": f"Bearer {table['seats'][0]['token']}"},
                       buffered=False)


def test_a_notice_that_fails_changes_neither_the_answer_nor_the_log(app, client, monkeypatch, caplog):
    table = new_table(client)

    def broken(code):
        raise RuntimeError("the bus is down")
    monkeypatch.setattr(app.extensions["live"], "changed", broken)
    resp = post_entry(client, table, 0, kind="score", dice=[3, 3, 3, 1, 1], category="threes")
    assert resp.status_code == 201 and resp.get_json()["seq"] == 1
    assert "work after the answer failed" in caplog.text
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


def test_several_changes_to_one_table_in_one_request_are_told_once_after_the_body():
    """Pizza Theory's host enters every seat's cut in one request: one notice per table, after the answer."""
    ran: list[str] = []

    def app(environ, start_response):
        for code in ("T1", "T1", "T2"):
            later(ran.append, code)
        start_response("200 OK", [("Content-Length", "2")])
        return [b"o", b"k"]

    body = AfterAnswer(app)({}, lambda status, headers: None)
    parts = iter(body)
    assert next(parts) == b"o" and next(parts) == b"k" and ran == []
    assert list(parts) == [] and ran == ["T1", "T2"]
    body.close()
    assert ran == ["T1", "T2"]  # closing after the end runs nothing twice


def test_a_request_that_changes_nothing_gets_the_app_body_as_it_is():
    body = [b"hello"]
    assert AfterAnswer(lambda environ, start_response: body)({}, None) is body


def test_a_change_made_before_the_app_fails_is_still_told():
    ran: list[str] = []

    def app(environ, start_response):
        later(ran.append, "T1")
        raise RuntimeError("after the commit, before the answer")

    try:
        AfterAnswer(app)({}, None)
    except RuntimeError:
        pass
    assert ran == ["T1"]
    later(ran.append, "T2")  # the request is over: at once again
    assert ran == ["T1", "T2"]
