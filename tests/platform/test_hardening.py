"""Requests a careless or hostile client might send, each answered with a reason and no harm done."""
from __future__ import annotations

from companion.platform.web.hardening import MAX_DEPTH, MAX_INT, value_problem
from tests.helpers import bearer, csrf_from, join_seat, log, new_table, post_entry, start_table_page

HTMX = {"HX-Request": "true"}


def test_idempotency_keys_belong_to_the_seat_that_sent_them(client):
    table = new_table(client)
    assert post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 2, 3], category="ones", key="turn-1").status_code == 201
    # Ben picks the same simple key: his entry is his own and is recorded
    resp = post_entry(client, table, 1, kind="score", dice=[2, 2, 2, 2, 3], category="twos", key="turn-1")
    assert resp.status_code == 201 and "Idempotent-Replayed" not in resp.headers
    assert [e["seat"] for e in log(client, table["code"])] == [0, 1]


def test_a_key_reused_for_a_different_entry_is_refused(client):
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 2, 3], category="ones", key="k1")
    resp = post_entry(client, table, 0, kind="score", dice=[6, 6, 6, 2, 3], category="sixes", key="k1")
    assert resp.status_code == 409 and "different entry" in resp.get_json()["error"]
    undo = client.post(f"/api/tables/{table['code']}/undo", json={"key": "k1"}, headers=bearer(table["seats"][0]["token"]))
    assert undo.status_code == 409
    assert len(log(client, table["code"])) == 1


def test_deeply_nested_json_is_refused_not_a_crash(client):
    table = new_table(client)
    body = "[" * 5000 + "]" * 5000
    for url in ("/api/tables", f"/api/tables/{table['code']}/entries", f"/api/tables/{table['code']}/undo"):
        resp = client.post(url, data=body, content_type="application/json", headers=bearer(table["seats"][0]["token"]))
        assert resp.status_code == 400, url
    assert log(client, table["code"]) == []


def nested(leaf, levels: int):
    for _ in range(levels):
        leaf = [leaf]
    return leaf


def test_a_body_is_judged_the_same_at_every_depth_and_in_every_kind_of_leaf():
    """The checks take plain numbers and text of a dict or list without a call of their own; what
    they refuse and say stays what it was, down to the deepest level allowed and one past it."""
    assert value_problem(nested("fine", MAX_DEPTH)) is None
    assert value_problem(nested(6, MAX_DEPTH)) is None
    assert value_problem(nested("fine", MAX_DEPTH + 1)) == "That request is nested too deeply."
    assert value_problem(nested(6, MAX_DEPTH + 1)) == "That request is nested too deeply."
    assert "from" in value_problem({"dice": [1, 2, MAX_INT + 1]})
    assert value_problem({"dice": [1, -MAX_INT, MAX_INT], "held": [True, False]}) is None
    assert "NUL" in value_problem({"name": "a\u0000\ud800"})  # NUL is named first, as before
    assert "surrogate" in value_problem({"\ud800": 1})
    assert "finite" in value_problem([1, float("nan")])


def test_nul_characters_are_refused_everywhere(client):
    assert client.post("/api/tables", json={"game": "dicez", "players": ["a\u0000b"]}).status_code == 400
    table = new_table(client)
    resp = post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones", key="k\u0000")
    assert resp.status_code == 400
    assert client.get("/api/tables/AB%00CD").status_code in (400, 404)
    assert client.get("/t/AB%00CD").status_code in (400, 404)
    assert client.get("/t/AB%00CD/poll").status_code in (400, 404)
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": "dicez", "player0": "A\u0000", "csrf_token": csrf})
    assert resp.status_code == 400
    assert log(client, table["code"]) == []


def test_pass_and_play_must_be_a_real_boolean(client):
    resp = client.post("/api/tables", json={"game": "dicez", "players": ["Ann"], "pass_and_play": "false"})
    assert resp.status_code == 400 and "pass_and_play" in resp.get_json()["error"]


def test_no_javascript_preview_is_a_whole_page(client):
    table = new_table(client)
    csrf = join_seat(client, table["code"], 0)
    form = {f"d{i}": v for i, v in enumerate([3, 3, 3, 5, 5])}
    html = client.post(f"/t/{table['code']}/s/0/preview", data={**form, "csrf_token": csrf}).get_data(as_text=True)
    assert "<html" in html and 'aria-label="Score 25 in Full House"' in html


def test_seat_qr_links_use_the_public_address(app, client):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8000"
    code = start_table_page(client, player0="Ann")
    csrf = csrf_from(client.get(f"/t/{code}/seats/0/move").get_data(as_text=True))
    page = client.post(f"/t/{code}/seats/0/handover", data={"csrf_token": csrf}).get_data(as_text=True)
    assert f"http://192.168.1.20:8000/t/{code}/handover/" in page
    assert f"http://192.168.1.20:8000/t/{code}/j/" in client.get(f"/t/{code}/host").get_data(as_text=True)


def test_tapping_another_name_frees_the_seat_taken_by_mistake(client, app):
    table = new_table(client, ["Ann", "Ben", "Cy"], seat_tokens=False)
    code = table["code"]
    csrf = join_seat(client, code, 0)
    resp = client.post(f"/t/{code}/join", data={"seat": 2, "csrf_token": csrf})
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/s/2")
    assert client.get(f"/t/{code}/s/0").status_code == 403  # this phone let go of Ann's seat
    other = app.test_client()
    join_seat(other, code, 0)  # ... so Ann's own phone can take it
    assert other.get(f"/t/{code}/s/0").status_code == 200


def test_csv_export_keeps_names_from_becoming_formulas(client):
    from tests.platform.test_api import ANN_GAME
    table = new_table(client, ["=HYPERLINK(1)"])
    for dice, box, _ in ANN_GAME:
        post_entry(client, table, 0, kind="score", dice=dice, category=box)
    text = client.get(f"/t/{table['code']}/games/1/export.csv").get_data(as_text=True)
    assert "'=HYPERLINK(1)" in text


def test_a_double_tapped_undo_takes_back_one_entry(client):
    table = new_table(client, options={"turn_order": False})  # free play: Ann scores twice running
    code = table["code"]
    csrf = join_seat(client, code, 0)
    for dice, box in (([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 1, 3], "twos")):
        post_entry(client, table, 0, kind="score", dice=dice, category=box)
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    undo_form = page[page.index('id="undo-box"'):]
    key = undo_form.split('name="key" value="')[1].split('"')[0]
    for _ in range(2):
        assert client.post(f"/t/{code}/s/0/undo", data={"csrf_token": csrf, "key": key}, headers=HTMX).status_code == 200
    entries = log(client, code)
    assert [e["kind"] for e in entries] == ["score", "score", "undo"]
    assert entries[0].get("undone") is None and entries[1]["undone"] is True


def _preview(client, code, csrf):
    return client.post(f"/t/{code}/s/0/preview", data={"d0": "3", "csrf_token": csrf}, headers=HTMX)


def test_a_session_cookie_accepted_once_is_still_refused_once_changed(client):
    """The server remembers a session cookie it found good (hardening.SessionInterface): a copy of it
    with one letter changed is a forgery all the same."""
    code = new_table(client)["code"]
    csrf = join_seat(client, code, 0)
    assert _preview(client, code, csrf).status_code == 200
    good = client.get_cookie("session").value
    body, signature = good.rsplit(".", 1)
    # the signature's first letter: every one of its bits counts (the last letter's low bits may not)
    forged = f"{body}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    client.set_cookie("session", forged)
    refused = _preview(client, code, csrf)
    assert refused.status_code == 400 and "This page has expired" in refused.get_data(as_text=True)
    client.set_cookie("session", good)
    assert _preview(client, code, csrf).status_code == 200


def test_a_page_kept_past_the_session_lifetime_asks_for_a_reload_even_after_it_was_accepted(app, client):
    import time
    from datetime import timedelta
    code = new_table(client)["code"]
    csrf = join_seat(client, code, 0)
    assert _preview(client, code, csrf).status_code == 200  # the cookie is now remembered as good
    app.permanent_session_lifetime = timedelta(seconds=1)
    time.sleep(2.1)  # the cookie's signature is older than the lifetime (whole seconds)
    refused = _preview(client, code, csrf)
    assert refused.status_code == 400 and "This page has expired" in refused.get_data(as_text=True)
