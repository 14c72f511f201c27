"""A stalled Redis (frozen with SIGSTOP: its connections stay open and nothing answers) never stalls
the app: every call to it times out quickly, rate limits are counted in the process meanwhile, pages
that can no longer hear the other processes ask every 20 s instead of holding a silent stream, the
log says so, and once Redis answers again it is used again without a restart.

Each test freezes a Redis of its own (tests/private_redis.py), never the machine's. The deadlines
below test "does not hang" (a request held by a frozen Redis waited past 60 s), not speed.
"""
from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
import uuid

import pytest
from playwright.sync_api import expect

from companion import create_app
from companion.platform.store.engines import normalize_url
from companion.platform.web.limits import NOT_FOUND_PER_CLIENT, PIN_TRIES_PER_CLIENT, STORAGE_RETRY, UNSPENT_FOR
from companion.platform.live.updates import FALLBACK_GRACE
from tests.browser_fixtures import ROOT, free_ports, join_as, start_dicez_table, start_servers, tap_dice
from tests.helpers import bearer, csrf_from, start_table_page
from tests.private_redis import private_redis  # noqa: F401  (fixture)
from tests.tcp_proxy import StallingProxy

DEADLINE = 8.0  # seconds: a request a frozen Redis held waited past 60 s (a loaded CI machine is slow)
HEARD_WITHIN = 20.0  # seconds for a process to notice that Redis stopped or came back


def _allowance(limit: str) -> int:
    return int(limit.split(";")[0].split()[0])


def _timed(fn, within: float = DEADLINE):
    started = time.monotonic()
    result = fn()
    took = time.monotonic() - started
    assert took < within, f"took {took:.1f} s"
    return result


def _status(url: str, body: dict | None = None, token: str | None = None) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json",
                                                          **(bearer(token) if token else {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _said(proc, text: str, within: float = HEARD_WITHIN) -> None:
    """Wait until the server's log holds `text`."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if text in open(proc.log_path).read():
            return
        time.sleep(0.1)
    raise AssertionError(f"the log never said {text!r}:\n{open(proc.log_path).read()}")


def _open_stream(base: str, code: str, version: str):
    stream = urllib.request.urlopen(f"{base}/t/{code}/live?v={version}", timeout=15)
    assert stream.readline().startswith(b"retry: ")
    return stream


def _next_event(stream) -> dict:
    fields = {}
    while True:
        line = stream.readline().decode().rstrip("\n")
        if line.startswith(":"):
            continue
        if not line and fields:
            return fields
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value


def _entry(base: str, table: dict, seat: int) -> int:
    """Seat `seat` scores a chance (turns go in seat order)."""
    return _status(f"{base}/api/tables/{table['code']}/entries",
                   {"kind": "score", "dice": [6, 5, 4, 3, 2], "category": "chance"}, table["seats"][seat]["token"])[0]


def _serve_two(env: dict, tmp_path):
    ports = free_ports(2)
    procs = start_servers([(port, env, tmp_path / f"{name}.log") for port, name in zip(ports, "ab")])
    return procs, [f"http://127.0.0.1:{port}" for port in ports]


def _env(redis, database_url: str) -> dict:
    return {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"},
            "DATABASE_URL": database_url, "REDIS_URL": redis.url, "SECRET_KEY": "stall-test", "PYTHONPATH": str(ROOT)}


def _sqlite(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'companion.sqlite'}"


def _new_table(base: str) -> dict:
    return json.loads(_status(f"{base}/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})[1])


def _every_kind_of_request_answers(bases, code: str) -> None:
    for base in bases:
        assert _timed(lambda: _status(f"{base}/t/{code}/view"))[0] == 200
        assert _timed(lambda: _status(f"{base}/t/ZZZZZZ/view"))[0] == 404
        assert _timed(lambda: _status(f"{base}/t/{code}/poll?v=1.0.0"))[0] == 204


def test_a_frozen_redis_holds_no_request_and_is_used_again_once_it_answers(private_redis, tmp_path):
    """Two processes on one SQLite file: while Redis is frozen, changes cross through the file."""
    (a, b), (base_a, base_b) = _serve_two(_env(private_redis, _sqlite(tmp_path)), tmp_path)
    try:
        table = _new_table(base_a)
        code = table["code"]
        held = _open_stream(base_b, code, "1.0.0")

        private_redis.freeze()
        _every_kind_of_request_answers((base_a, base_b), code)
        assert _timed(lambda: _entry(base_a, table, 0)) == 201
        # the stream held on B still hears A: B reads the file while Redis does not answer
        assert _timed(lambda: _next_event(held), within=HEARD_WITHIN)["id"] == "1.1.0"
        _said(b, "live: Redis does not answer")  # (A holds no stream: it has nobody to tell)
        _said(b, "read from the SQLite file")
        _said(a, "rate limit storage unreachable")

        private_redis.thaw()
        _said(b, "live: Redis answers again")
        # once B stops watching the file, only Redis can carry A's next change to the same stream
        time.sleep(max(FALLBACK_GRACE, STORAGE_RETRY) + 1)
        assert _entry(base_a, table, 1) == 201
        assert _timed(lambda: _next_event(held))["id"] == "1.2.0"
        held.close()

        # the not-found allowance is shared again (each process asked Redis again by itself after
        # STORAGE_RETRY seconds): what this client spends on A, B refuses
        for base in (base_a, base_b):
            assert _status(f"{base}/t/{code}/view")[0] == 200
        _said(a, "rate limit storage answers again")
        # the two guesses sent while Redis was frozen may still be counted by it once it runs again
        # (the commands were already in its socket), so the allowance left is the whole one or two less
        allowance = _allowance(NOT_FOUND_PER_CLIENT)
        guesses = [_status(f"{base_a}/t/ZZZZZZ/view")[0] for _ in range(allowance)]
        assert guesses[:allowance - 2] == [404] * (allowance - 2) and set(guesses) <= {404, 429}
        time.sleep(UNSPENT_FOR)
        assert _status(f"{base_b}/t/{code}/view")[0] == 429
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)


@pytest.fixture
def pg_schema_url():
    """A fresh schema on the test database (TEST_DATABASE_URL), as a DATABASE_URL."""
    from sqlalchemy import create_engine, text

    if not os.environ.get("TEST_DATABASE_URL"):
        pytest.skip("TEST_DATABASE_URL is not set (.ci/run sets it)")
    base = normalize_url(os.environ["TEST_DATABASE_URL"])
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_over_postgresql_a_process_that_lost_redis_ends_its_streams_and_pages_poll_until_it_answers(
        private_redis, pg_schema_url, tmp_path):
    (a, b), (base_a, base_b) = _serve_two(_env(private_redis, pg_schema_url), tmp_path)
    try:
        table = _new_table(base_a)
        code = table["code"]
        held = _open_stream(base_b, code, "1.0.0")

        private_redis.freeze()
        _every_kind_of_request_answers((base_a, base_b), code)
        # the stream B held can no longer hear A: it ends rather than stay silent, and a new one is
        # refused, so the page asks every 20 s, and the ask tells it of A's entry
        assert _timed(held.read, within=HEARD_WITHIN) is not None
        _said(b, "live: Redis does not answer")
        assert _timed(lambda: _status(f"{base_b}/t/{code}/live?v=1.0.0"))[0] == 503
        assert _timed(lambda: _entry(base_a, table, 0)) == 201
        assert _timed(lambda: _status(f"{base_b}/t/{code}/poll?v=1.0.0")) == (200, b"1.1.0")

        private_redis.thaw()
        _said(b, "live: Redis answers again")
        stream = _open_stream(base_b, code, "1.1.0")  # taken again; only Redis carries A's change to it
        assert _entry(base_a, table, 1) == 201
        assert _timed(lambda: _next_event(stream))["id"] == "1.2.0"
        stream.close()
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)


def _wrong_pin(client, code: str) -> int:
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    return client.post("/join", data={"code": code, "pin": "000000", "csrf_token": csrf}).status_code


def test_wrong_pins_are_counted_in_the_process_while_redis_is_frozen_and_shared_again_after(
        private_redis, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    config = {"DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite'}", "TESTING": True, "SECRET_KEY": "test-secret",
              "RATELIMIT_STORAGE_URI": private_redis.url}
    first, second = create_app(config), create_app(config)
    code = start_table_page(first.test_client(), player0="Ann")
    one, other = first.test_client(), second.test_client()
    private_redis.freeze()
    allowed = _allowance(PIN_TRIES_PER_CLIENT)
    # the process counts on its own: the tries are still limited, and none waits for Redis
    answers = [_timed(lambda: _wrong_pin(one, code)) for _ in range(allowed + 1)]
    assert answers == [403] * allowed + [429]
    assert "Rate limit storage unreachable" in caplog.text
    private_redis.thaw()
    # Flask-Limiter looks at its storage again by itself (after 1, 2, 4 ... s); from then on the
    # tries are counted in Redis, for both processes
    deadline = time.monotonic() + HEARD_WITHIN
    while "Rate limit storage recovered" not in caplog.text and time.monotonic() < deadline:
        _wrong_pin(one, code)
        time.sleep(0.5)
    assert "Rate limit storage recovered" in caplog.text
    assert 429 in [_wrong_pin(one, code) for _ in range(allowed)]
    assert _wrong_pin(other, code) == 429  # the other process has never seen a wrong PIN from this client
    for app in (first, second):
        app.extensions["store"].dispose()


@pytest.mark.browser
def test_a_phone_whose_server_lost_redis_asks_every_20_s_instead_and_sees_the_other_servers_change(
        private_redis, pg_schema_url, tmp_path, phone):
    (a, b), (base_a, base_b) = _serve_two(_env(private_redis, pg_schema_url), tmp_path)
    try:
        join_url = start_dicez_table(phone(), base_a, ["Ann", "Ben"], turn_order=False)
        ann, ben = phone(), phone()
        join_as(ann, join_url.replace(base_a, base_b), "Ann")  # Ann's phone on B, Ben's on A
        join_as(ben, join_url, "Ben")
        expect(ann.locator("#live")).to_have_attribute("data-live", "open")
        polls = []
        ann.on("request", lambda r: polls.append(r.url) if "/poll" in r.url else None)

        private_redis.freeze()
        expect(ann.locator("#live")).to_have_attribute("data-live", "down", timeout=HEARD_WITHIN * 1000)
        tap_dice(ben, [5, 5, 5, 5, 5])
        ben.locator('[data-testid="score-dicez"]').click()
        expect(ben.locator('[data-testid="total-1"]')).to_have_text("50")
        # Ann's page holds no silent stream: its slow poll (every 20 s) brings Ben's entry
        expect(ann.locator('[data-testid="total-1"]')).to_have_text("50", timeout=45_000)
        assert polls
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)


# ---- PostgreSQL's LISTEN connection ------------------------------------------------------
@pytest.fixture
def pg_behind_a_proxy(pg_schema_url):
    """The test database reached through a proxy that can hold the LISTEN connection silent."""
    from sqlalchemy.engine import make_url

    url = make_url(pg_schema_url)
    proxy = StallingProxy((url.host or "127.0.0.1", url.port or 5432), marker=b"LISTEN")
    try:
        yield proxy, url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    finally:
        proxy.close()


def test_a_silent_listen_connection_is_noticed_pages_poll_meanwhile_and_it_is_used_again(
        pg_behind_a_proxy, tmp_path):
    proxy, url = pg_behind_a_proxy
    env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"}, "DATABASE_URL": url,
           "SECRET_KEY": "stall-test", "PYTHONPATH": str(ROOT)}
    (a, b), (base_a, base_b) = _serve_two(env, tmp_path)
    try:
        table = json.loads(_status(f"{base_a}/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})[1])
        code = table["code"]
        held = _open_stream(base_b, code, "1.0.0")

        proxy.stall()  # B's LISTEN connection stays open and hears nothing more
        assert _timed(held.read, within=HEARD_WITHIN) is not None
        _said(b, "live: the PostgreSQL LISTEN connection does not answer")
        assert _timed(lambda: _status(f"{base_b}/t/{code}/live?v=1.0.0"))[0] == 503
        assert _timed(lambda: _entry(base_a, table, 0)) == 201
        assert _timed(lambda: _status(f"{base_b}/t/{code}/poll?v=1.0.0")) == (200, b"1.1.0")

        proxy.resume()
        _said(b, "live: the PostgreSQL LISTEN connection answers again")
        stream = _open_stream(base_b, code, "1.1.0")
        assert _entry(base_a, table, 1) == 201
        assert _next_event(stream)["id"] == "1.2.0"
        stream.close()
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)


def test_a_server_started_while_redis_is_frozen_serves_and_uses_redis_once_it_answers(private_redis, tmp_path):
    private_redis.freeze()
    (a, b), (base_a, base_b) = _serve_two(_env(private_redis, _sqlite(tmp_path)), tmp_path)
    try:
        table = json.loads(_timed(lambda: _status(f"{base_a}/api/tables",
                                                  {"game": "dicez", "players": ["Ann", "Ben"]}))[1])
        code = table["code"]
        assert _timed(lambda: _status(f"{base_b}/t/{code}/view"))[0] == 200
        stream = _open_stream(base_b, code, "1.0.0")  # starts B's listener, which finds Redis silent
        _said(b, "live: Redis does not answer")
        private_redis.thaw()
        _said(b, "live: Redis answers again")
        time.sleep(FALLBACK_GRACE + 1)  # B has stopped reading the SQLite file: only Redis carries A's change
        assert _entry(base_a, table, 0) == 201
        assert _next_event(stream)["id"] == "1.1.0"
        stream.close()
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)
