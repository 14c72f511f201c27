"""Who may take a seat: the table's invitation (its QR link or its PIN), one device per seat token,
the host's single-use hand-over links, and the limits that make guessing hopeless (issue 10)."""
from __future__ import annotations

import os
import time
import uuid

import pytest

from companion import create_app
from companion.platform.web.limits import NOT_FOUND_PER_CLIENT, PIN_TRIES_PER_CLIENT, PIN_TRIES_PER_TABLE, UNSPENT_FOR
from companion.platform.core.records import fingerprint
from tests.helpers import bearer, csrf_from, invite, join_seat, new_table, post_entry, start_table_page

HTMX = {"HX-Request": "true"}


def _allowance(limit: str) -> int:
    """The first count of a limit such as "5 per minute;30 per hour"."""
    return int(limit.split(";")[0].split()[0])


def _csrf(client, path="/"):
    return csrf_from(client.get(path).get_data(as_text=True))


def _claimed(client, code):
    return [p["seat"] for p in client.get(f"/api/tables/{code}").get_json()["players"]]


def test_the_code_alone_gives_the_table_view_but_never_a_seat(client, app, store):
    code = start_table_page(client, player0="Ann", player1="Ben")
    stranger = app.test_client()
    page = stranger.get(f"/t/{code}").get_data(as_text=True)
    assert "I am Ann" not in page and 'name="pin"' in page
    resp = stranger.post(f"/t/{code}/join", data={"seat": 0, "csrf_token": _csrf(stranger, f"/t/{code}")})
    assert resp.status_code == 403 and "QR code or type its PIN" in resp.get_data(as_text=True)
    assert not any(s.claimed for s in store.table(code).seats)
    # the read-only table view works, without the invitation on it
    view = stranger.get(f"/t/{code}/view")
    table = store.table(code)
    assert view.status_code == 200 and table.join_secret not in view.get_data(as_text=True)
    assert table.pin not in view.get_data(as_text=True)
    assert stranger.get(f"/t/{code}/qr.svg").status_code == 403


def test_the_join_link_invites_a_phone_and_a_wrong_one_does_not(client, app, store):
    code = start_table_page(client, player0="Ann", player1="Ben")
    secret = store.table(code).join_secret
    wrong = app.test_client()
    assert wrong.get(f"/t/{code}/j/{'x' * len(secret)}").status_code == 404
    assert "I am Ann" not in wrong.get(f"/t/{code}").get_data(as_text=True)
    phone = app.test_client()
    resp = phone.get(f"/t/{code}/j/{secret}")
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}")  # the secret leaves the URL
    assert "HttpOnly" in resp.headers["Set-Cookie"]
    page = phone.get(f"/t/{code}").get_data(as_text=True)
    assert "I am Ann" in page
    assert phone.post(f"/t/{code}/join", data={"seat": 0, "csrf_token": csrf_from(page)}).status_code == 303
    assert phone.get(f"/t/{code}/s/0").status_code == 200
    assert phone.get(f"/t/{code}/qr.svg").status_code == 200


def test_the_table_view_shows_the_pin_and_qr_code_only_on_the_hosts_device(client, app, store):
    code = start_table_page(client, player0="Ann", player1="Ben", player2="Cy")
    table = store.table(code)
    host_view = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert f"PIN {table.pin}" in host_view and f"/t/{code}/qr.svg" in host_view
    seated, invited = app.test_client(), app.test_client()
    join_seat(seated, code, 0)
    invited.get(f"/t/{code}/j/{table.join_secret}")
    for device in (seated, invited):
        view = device.get(f"/t/{code}/view").get_data(as_text=True)
        assert table.pin not in view and "qr.svg" not in view and table.join_secret not in view


def test_typing_the_code_and_pin_invites_a_phone(client, app, store):
    code = start_table_page(client, player0="Ann", player1="Ben")
    pin = store.table(code).pin
    phone = app.test_client()
    csrf = _csrf(phone)
    wrong = phone.post("/join", data={"code": code, "pin": "x" + pin[1:], "csrf_token": csrf})
    assert wrong.status_code == 403 and "PIN is not right" in wrong.get_data(as_text=True)
    resp = phone.post("/join", data={"code": code.lower(), "pin": pin, "csrf_token": csrf})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}")
    assert "I am Ben" in phone.get(f"/t/{code}").get_data(as_text=True)
    missing = phone.post("/join", data={"code": "999999", "pin": pin, "csrf_token": csrf})
    assert missing.status_code == 404


def test_the_host_screen_shows_the_pin_and_the_join_link(client, store):
    code = start_table_page(client, player0="Ann")
    table = store.table(code)
    host = client.get(f"/t/{code}/host").get_data(as_text=True)
    assert table.pin in host and f"/t/{code}/j/{table.join_secret}" in host


def test_wrong_pins_from_one_phone_are_limited_even_when_the_right_one_follows(client, app, store):
    code = start_table_page(client, player0="Ann")
    phone = app.test_client()
    csrf = _csrf(phone)
    tries = _allowance(PIN_TRIES_PER_CLIENT)
    for _ in range(tries):
        assert phone.post("/join", data={"code": code, "pin": "000000", "csrf_token": csrf}).status_code == 403
    resp = phone.post("/join", data={"code": code, "pin": store.table(code).pin, "csrf_token": csrf})
    assert resp.status_code == 429 and "Too many tries" in resp.get_data(as_text=True)
    assert int(resp.headers["Retry-After"]) > 0


def test_a_right_pin_costs_nothing(client, app, store):
    code = start_table_page(client, player0="Ann")
    pin = store.table(code).pin
    phone = app.test_client()
    csrf = _csrf(phone)
    for _ in range(_allowance(PIN_TRIES_PER_CLIENT) + 3):
        assert phone.post("/join", data={"code": code, "pin": pin, "csrf_token": csrf}).status_code == 303


def _spend_the_tables_pin_allowance(app, code, first_address=0, tries=0):
    """Wrong PINs from as many phones as it takes (each within its own allowance) until the table's is
    spent (`tries` of it already are)."""
    per_client = _allowance(PIN_TRIES_PER_CLIENT)
    address = first_address
    while tries < _allowance(PIN_TRIES_PER_TABLE):
        address += 1
        guesser = app.test_client()
        guesser.environ_base["REMOTE_ADDR"] = f"10.0.{address // 250}.{address % 250}"
        csrf = _csrf(guesser)
        for _ in range(min(per_client, _allowance(PIN_TRIES_PER_TABLE) - tries)):
            assert guesser.post("/join", data={"code": code, "pin": "000000", "csrf_token": csrf}).status_code == 403
            tries += 1
    return address


def _pin_from(client, address: str, code: str, pin: str):
    phone = client.application.test_client()
    phone.environ_base["REMOTE_ADDR"] = address
    return phone.post("/join", data={"code": code, "pin": pin, "csrf_token": _csrf(phone)})


def test_many_clients_sharing_the_guessing_of_one_table_pin_are_limited(client, app, store):
    code = start_table_page(client, player0="Ann")
    _spend_the_tables_pin_allowance(app, code)
    assert _pin_from(client, "10.9.9.9", code, store.table(code).pin).status_code == 429


def test_the_host_reopens_a_table_whose_pin_allowance_is_spent_with_a_new_pin_and_join_link(client, app, store):
    code = start_table_page(client, player0="Ann", player1="Ben")
    old = store.table(code)
    address = _spend_the_tables_pin_allowance(app, code)
    refused = _pin_from(client, "10.9.9.9", code, old.pin)
    assert refused.status_code == 429 and "ask the host for a new PIN" in refused.get_data(as_text=True)
    # a player may not do it
    player = app.test_client()
    join_seat(player, code, 1)
    assert player.post(f"/t/{code}/host/new-pin", data={"csrf_token": _csrf(player)}).status_code == 403
    assert store.table(code).pin == old.pin

    resp = client.post(f"/t/{code}/host/new-pin", data={"csrf_token": _csrf(client)})
    assert resp.status_code == 303
    host = client.get(resp.headers["Location"]).get_data(as_text=True)
    new = store.table(code)
    assert new.pin != old.pin and new.join_secret != old.join_secret
    assert f'class="pin">{new.pin}<' in host and f"/t/{code}/j/{new.join_secret}" in host
    assert "the old ones no longer work" in host
    assert _pin_from(client, "10.9.9.8", code, new.pin).status_code == 303
    assert _pin_from(client, "10.9.9.7", code, old.pin).status_code == 403
    assert app.test_client().get(f"/t/{code}/j/{old.join_secret}").status_code == 404
    assert app.test_client().get(f"/t/{code}/j/{new.join_secret}").status_code == 303
    # the new PIN has an allowance of its own (the old PIN just spent one of it), which guessing spends
    _spend_the_tables_pin_allowance(app, code, address, tries=1)
    assert _pin_from(client, "10.9.9.6", code, new.pin).status_code == 429


def test_guessing_table_codes_is_limited(client, app):
    table = new_table(client)
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.1.2.3"
    answers = [guesser.get(f"/t/{code}/view").status_code for code in ("ZZZZZZ", "YYYYYY") * 20]
    assert 404 in answers and answers[-1] == 429
    # ... after which even a real table's page is refused to that client, and only to it
    assert guesser.get(f"/t/{table['code']}/view").status_code == 429
    assert client.get(f"/t/{table['code']}/view").status_code == 200


def _redis_url():
    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except Exception:  # noqa: BLE001 - any failure means: no Redis to test against here
        pytest.skip(f"no Redis answers at {url}")
    return url


def test_with_redis_the_limits_are_shared_by_every_server_process(db_url):
    url = _redis_url()
    config = {"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret",
              "RATELIMIT_STORAGE_URI": url, "RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    first, second = create_app(config), create_app(config)
    code = start_table_page(first.test_client(), player0="Ann")
    pin = first.extensions["store"].table(code).pin
    one, other = first.test_client(), second.test_client()
    for _ in range(_allowance(PIN_TRIES_PER_CLIENT)):
        assert one.post("/join", data={"code": code, "pin": "000000", "csrf_token": _csrf(one)}).status_code == 403
    # the same phone on the other server process has used up its tries there too
    assert other.post("/join", data={"code": code, "pin": pin, "csrf_token": _csrf(other)}).status_code == 429
    for app in (first, second):
        app.extensions["store"].dispose()


def _guess_codes(guesser, tries: int) -> list[int]:
    return [guesser.get(f"/t/{code}/view").status_code for code in ("ZZZZZZ", "YYYYYY") * (tries // 2)]


def test_with_redis_guessing_codes_on_one_server_process_spends_the_allowance_on_every_other(db_url):
    url = _redis_url()
    config = {"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret",
              "RATELIMIT_STORAGE_URI": url, "RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    first, second = create_app(config), create_app(config)
    code = new_table(first.test_client())["code"]
    one, other = first.test_client(), second.test_client()
    for guesser in (one, other):
        guesser.environ_base["REMOTE_ADDR"] = "10.7.7.7"
    assert other.get(f"/t/{code}/view").status_code == 200  # that process has seen the client at play
    assert set(_guess_codes(one, _allowance(NOT_FOUND_PER_CLIENT))) == {404}
    # the other process takes the allowance it read as unspent for at most UNSPENT_FOR seconds; then
    # it refuses that client a real table, and still serves everyone else
    time.sleep(UNSPENT_FOR)
    refused = other.get(f"/t/{code}/view")
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
    assert second.test_client().get(f"/t/{code}/view").status_code == 200
    for app in (first, second):
        app.extensions["store"].dispose()


def test_with_redis_unreachable_guessing_codes_is_still_limited_in_the_process(db_url, caplog):
    config = {"DATABASE_URL": db_url, "TESTING": True, "SECRET_KEY": "test-secret",
              "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:1/0"}  # nothing listens on port 1
    app = create_app(config)
    code = new_table(app.test_client())["code"]
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.8.8.8"
    answers = _guess_codes(guesser, _allowance(NOT_FOUND_PER_CLIENT) + 2)
    assert answers[-1] == 429 and 404 in answers
    assert guesser.get(f"/t/{code}/view").status_code == 429
    assert app.test_client().get(f"/t/{code}/view").status_code == 200  # a table at play goes on
    assert "counting not-found answers in this process" in caplog.text
    app.extensions["store"].dispose()


def test_a_seat_handed_to_an_api_client_is_taken(client, app):
    table = new_table(client, ["Ann", "Ben"])
    phone = app.test_client()
    invite(phone, table)
    page = phone.get(f"/t/{table['code']}").get_data(as_text=True)
    assert "Ann — taken" in page and "I am Ann" not in page
    resp = phone.post(f"/t/{table['code']}/join", data={"seat": 0, "csrf_token": _csrf(phone)})
    assert resp.status_code == 409 and "ask the host to move the seat" in resp.get_data(as_text=True)
    # the API client's token still writes for Ann: the phone took nothing
    assert post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones").status_code == 201


def test_claiming_a_seat_issues_a_fresh_token_known_to_that_phone_alone(client, app, store):
    table = new_table(client, ["Ann", "Ben"], seat_tokens=False)
    assert all("token" not in s for s in table["seats"])
    before = store.table(table["code"]).seats[0].token
    phone = app.test_client()
    join_seat(phone, table["code"], 0)
    mine = phone.get_cookie(f"seat_{table['code']}").value
    assert mine != before and store.table(table["code"]).seats[0].token == mine


def _handover_link(client, code, seat):
    confirm = client.get(f"/t/{code}/seats/{seat}/move")
    assert confirm.status_code == 200 and "Move Ann" in confirm.get_data(as_text=True)
    page = client.post(f"/t/{code}/seats/{seat}/handover", data={"csrf_token": csrf_from(confirm.get_data(as_text=True))})
    assert page.status_code == 200 and "works once" in page.get_data(as_text=True)
    return f"/t/{code}/handover/" + page.get_data(as_text=True).split(f"/t/{code}/handover/")[1].split('"')[0]


def test_a_handover_link_moves_the_seat_once_and_tells_the_old_phone(client, app):
    code = start_table_page(client, player0="Ann", player1="Ben")
    old_phone = app.test_client()
    join_seat(old_phone, code, 0)
    marker = old_phone.get(f"/t/{code}/poll?v=1.0.1")
    assert marker.status_code == 204  # nothing new for the old phone yet
    link = _handover_link(client, code, 0)
    new_phone = app.test_client()
    # opening the link (a preview, a prefetch) spends nothing; the phone confirms
    for _ in range(2):
        ask = new_phone.get(link)
        assert ask.status_code == 200 and "take the seat" in ask.get_data(as_text=True)
    assert old_phone.get(f"/t/{code}/s/0").status_code == 200  # still Ann's until the link is used
    resp = new_phone.post(link, data={"csrf_token": csrf_from(ask.get_data(as_text=True))})
    assert resp.status_code == 303 and new_phone.get(f"/t/{code}/s/0").status_code == 200
    # the old phone learns it with its next poll, and its own screen says what happened
    assert old_phone.get(f"/t/{code}/poll?v=1.0.1").status_code == 200
    refresh = old_phone.get(f"/t/{code}/s/0/sheet", headers=HTMX)
    assert refresh.headers["HX-Redirect"].endswith(f"/t/{code}/s/0")
    moved = old_phone.get(f"/t/{code}/s/0")
    text = moved.get_data(as_text=True)
    assert moved.status_code == 410 and "Ann's seat moved to another phone" in text and f"/t/{code}/view" in text
    # the link works once
    third = app.test_client()
    again = third.post(link, data={"csrf_token": _csrf(third)})
    assert again.status_code == 410 and "already used" in again.get_data(as_text=True)
    assert third.get(f"/t/{code}/s/0").status_code == 403


def test_a_handover_link_expires(client, app, store):
    code = start_table_page(client, player0="Ann")
    token, _ = store.create_handover(code, 0, minutes=0)
    phone = app.test_client()
    page = phone.get(f"/t/{code}/handover/{token}")
    assert page.status_code == 410 and "has expired" in page.get_data(as_text=True)
    resp = phone.post(f"/t/{code}/handover/{token}", data={"csrf_token": _csrf(phone)})
    assert resp.status_code == 410 and phone.get(f"/t/{code}/s/0").status_code == 403
    assert phone.get(f"/t/{code}/handover/not-a-link").status_code == 404


def test_only_the_host_makes_handover_links(client, app):
    table = new_table(client, ["Ann", "Ben"])
    phone = app.test_client()
    csrf = join_seat(phone, table["code"], 1)
    assert phone.get(f"/t/{table['code']}/seats/0/move").status_code == 403
    assert phone.post(f"/t/{table['code']}/seats/0/handover", data={"csrf_token": csrf}).status_code == 403
    api = client.post(f"/api/tables/{table['code']}/seats/0/handover", headers=bearer(table["seats"][1]["token"]))
    assert api.status_code == 403


def test_an_api_client_whose_seat_moved_is_told_so(client, app):
    table = new_table(client, ["Ann", "Ben"])
    old_token = table["seats"][0]["token"]
    made = client.post(f"/api/tables/{table['code']}/seats/0/handover", headers=bearer(table["host_token"]))
    assert made.status_code == 201 and made.get_json()["expires_at"]
    phone = app.test_client()
    path = "/" + made.get_json()["link"].split("/", 3)[3]
    assert phone.post(path, data={"csrf_token": _csrf(phone, path)}).status_code == 303
    resp = client.post(f"/api/tables/{table['code']}/entries", headers=bearer(old_token),
                       json={"kind": "score", "dice": [1, 1, 1, 1, 1], "category": "ones"})
    assert resp.status_code == 403 and "moved this seat" in resp.get_json()["error"]


def test_every_entry_keeps_the_device_that_wrote_it(client, app, store):
    table = new_table(client, ["Ann", "Ben"])
    post_entry(client, table, 0, kind="score", dice=[1, 1, 1, 1, 1], category="ones")
    phone = app.test_client()
    csrf = join_seat(phone, table["code"], 1)
    phone.post(f"/t/{table['code']}/s/1/entries",
               data={"csrf_token": csrf, "kind": "score", "category": "twos",
                     **{f"d{i}": "2" for i in range(5)}})
    entries = store.entries(table["code"], 1)
    assert [e.device for e in entries] == [fingerprint(table["seats"][0]["token"]),
                                          fingerprint(phone.get_cookie(f"seat_{table['code']}").value)]


def test_answers_under_every_limit_carry_no_rate_limit_headers(client):
    """A phone never meets a limit: its answers spend no bytes on counting headers."""
    resp = client.get("/")
    assert resp.status_code == 200
    assert not [name for name in resp.headers.keys() if name.lower().startswith(("x-ratelimit", "retry-after"))]
