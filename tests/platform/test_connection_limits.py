"""Idle and slow connections are dropped and one client cannot take the server's connections or live
streams from everyone else: a phone still gets in while others hold hundreds of silent and dripping
connections.

Every socket here is on loopback and the test closes what it opened. Tests, phones and attackers
all come from this machine, so the attackers take other loopback source addresses (127.0.0.2,
127.0.0.3, ...): to the server each is another client, as another device on the LAN would be.
"""
from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from companion import create_app
from tests.browser_fixtures import ROOT, _free_port, join_as, start_dicez_table, start_server, tap_dice
from tests.helpers import new_table

PER_CLIENT = 20  # MAX_CONNECTIONS_PER_CLIENT for the server under test (64 by default)
READ_SECONDS = 5  # REQUEST_READ_SECONDS (10 by default)
KEEPALIVE_SECONDS = 3  # KEEPALIVE_SECONDS (75 by default)
DEADLINE = 5.0  # seconds: "the phone gets in", not how fast


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    env = {**{k: v for k, v in os.environ.items() if k != "REDIS_URL"},
           "DATABASE_URL": f"sqlite:///{tmp_path / 'companion.sqlite'}", "SECRET_KEY": "limits-test",
           "PYTHONPATH": str(ROOT), "MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
           "REQUEST_READ_SECONDS": str(READ_SECONDS), "KEEPALIVE_SECONDS": str(KEEPALIVE_SECONDS)}
    proc = start_server(port, env, tmp_path / "server.log")
    yield port
    proc.terminate()
    proc.wait(timeout=10)


def _connect(port: int, source: str) -> socket.socket:
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s


def _closed_by_server(s: socket.socket, wait: float) -> bytes | None:
    """What the server sent before closing `s` within `wait` seconds; None if it is still open."""
    s.settimeout(wait)
    got = b""
    try:
        while chunk := s.recv(4096):
            got += chunk
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        pass
    return got


def _phone_gets_in(port: int) -> None:
    """A phone (127.0.0.1) opens the start page, starts a table and scores, each within DEADLINE."""
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    with urllib.request.urlopen(base + "/", timeout=DEADLINE) as resp:
        assert resp.status == 200 and b"Start the table" in resp.read()
    req = urllib.request.Request(base + "/api/tables", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"game": "dicez", "players": ["Ann", "Ben"]}).encode())
    with urllib.request.urlopen(req, timeout=DEADLINE) as resp:
        table = json.loads(resp.read())
    entry = urllib.request.Request(
        f"{base}/api/tables/{table['code']}/entries", headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {table['seats'][0]['token']}"},
        data=json.dumps({"kind": "score", "dice": [6, 6, 6, 6, 6], "category": "dicez"}).encode())
    with urllib.request.urlopen(entry, timeout=DEADLINE) as resp:
        assert resp.status == 201
    assert time.monotonic() - started < DEADLINE


def _drip(sockets, until: float) -> None:
    """Slowloris: a header line every 0.3 s, never the blank line that ends the headers."""
    while time.monotonic() < until:
        for s in sockets:
            try:
                s.sendall(b"X-Wait: a\r\n")
            except OSError:
                pass
        time.sleep(0.3)


def test_silent_and_dripping_connections_are_dropped_and_a_phone_still_gets_in(server):
    port = server
    silent = [_connect(port, "127.0.0.2") for _ in range(300)]
    time.sleep(0.5)  # (for the server to accept them all)
    # one address holds its share and no more: the connections beyond it are closed at once
    held = [s for s in silent if _closed_by_server(s, 0.02) is None]
    assert len(held) == PER_CLIENT
    dripping = [_connect(port, "127.0.0.3") for _ in range(PER_CLIENT)]
    for s in dripping:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    slow_body = _connect(port, "127.0.0.4")
    slow_body.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 200\r\n\r\n{\"game\": ")
    dripper = threading.Thread(target=_drip, args=(dripping, time.monotonic() + READ_SECONDS + 2), daemon=True)
    dripper.start()
    try:
        _phone_gets_in(port)
        # past the deadline, every silent or slow one is closed, though the dripping ones still send
        time.sleep(READ_SECONDS + 1)
        _phone_gets_in(port)
        assert all(_closed_by_server(s, 1.0) is not None for s in silent)
        answers = [_closed_by_server(s, 1.0) for s in dripping]
        assert all(a is not None and a.startswith(b"HTTP/1.1 400") for a in answers), answers[:3]
        assert (_closed_by_server(slow_body, 1.0) or b"").startswith(b"HTTP/1.1 400")
        # ... and the address may connect again
        again = _connect(port, "127.0.0.2")
        again.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (_closed_by_server(again, DEADLINE) or b"").startswith(b"HTTP/1.1 200")
    finally:
        dripper.join()
        for s in [*silent, *dripping, slow_body]:
            s.close()


def test_a_kept_alive_connection_is_closed_after_its_idle_wait(server):
    s = _connect(server, "127.0.0.5")
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(DEADLINE)
    assert s.recv(4096).startswith(b"HTTP/1.1 200")
    assert _closed_by_server(s, KEEPALIVE_SECONDS / 2) is None  # kept for the phone's next tap
    assert _closed_by_server(s, KEEPALIVE_SECONDS + 2) is not None
    s.close()


def test_a_body_sent_whole_in_time_reaches_the_app_and_a_chunked_one_too(server):
    body = json.dumps({"game": "dicez", "players": ["Ann", "Ben"]}).encode()
    for framing, payload in ((f"Content-Length: {len(body)}", body),
                             ("Transfer-Encoding: chunked", b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))):
        s = _connect(server, "127.0.0.6")
        s.sendall(f"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n"
                  "Connection: close\r\n\r\n".encode() + payload)
        answer = _closed_by_server(s, DEADLINE) or b""
        assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
        assert b'"name":"Ann"' in answer and b'"name":"Ben"' in answer
        s.close()


def test_a_body_beyond_the_limit_is_refused_by_the_app_without_waiting_for_it(server):
    s = _connect(server, "127.0.0.7")
    s.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 99999999\r\n\r\n{")
    answer = _closed_by_server(s, DEADLINE) or b""
    assert answer.startswith(b"HTTP/1.1 413") and b"too large" in answer
    s.close()


def test_one_client_holds_a_bounded_number_of_live_streams_and_others_are_not_affected(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "t", "MAX_STREAMS_PER_CLIENT": 3})
    code = new_table(app.test_client())["code"]
    greedy, other = app.test_client(), app.test_client()
    greedy.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    other.environ_base["REMOTE_ADDR"] = "10.0.0.3"
    held = [greedy.get(f"/t/{code}/live?v=1.0.0", buffered=False) for _ in range(3)]
    assert [r.status_code for r in held] == [200] * 3
    refused = greedy.get(f"/t/{code}/live?v=1.0.0")
    assert refused.status_code == 429 and "too many live pages" in refused.get_data(as_text=True)
    assert other.get(f"/t/{code}/live?v=1.0.0", buffered=False).status_code == 200
    held.pop().close()  # a page closed: its stream's place is free again
    assert greedy.get(f"/t/{code}/live?v=1.0.0", buffered=False).status_code == 200
    app.extensions["store"].dispose()


@pytest.mark.browser
def test_a_phone_in_chromium_plays_while_another_address_holds_hundreds_of_silent_connections(server, phone):
    port = server
    base = f"http://127.0.0.1:{port}"
    silent = [_connect(port, "127.0.0.2") for _ in range(300)]
    dripping = [_connect(port, "127.0.0.3") for _ in range(PER_CLIENT)]
    for s in dripping:
        s.sendall(b"POST /tables HTTP/1.1\r\nHost: x\r\n")
    dripper = threading.Thread(target=_drip, args=(dripping, time.monotonic() + READ_SECONDS + 2), daemon=True)
    dripper.start()
    try:
        host, ann, screen = phone(), phone(), phone()
        join_url = start_dicez_table(host, base, ["Ann", "Ben"])
        join_as(ann, join_url, "Ann")
        screen.goto(join_url.split("/j/")[0] + "/view")
        for page in (ann, screen):
            expect(page.locator("#live")).to_have_attribute("data-live", "open")
        tap_dice(ann, [6, 6, 6, 6, 6])
        ann.locator('[data-testid="score-dicez"]').click()
        expect(ann.locator('[data-testid="total-0"]')).to_have_text("50")
        expect(screen.locator('[data-testid="view-total-0"]')).to_have_text("50")  # the table view follows live
    finally:
        dripper.join()
        for s in [*silent, *dripping]:
            s.close()


def test_the_limits_are_read_from_the_environment_and_behind_a_proxy_the_per_address_bound_is_off(tmp_path):
    from companion.platform.web.serve import connection_limits

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite'}", "SECRET_KEY": "t"})
    assert connection_limits(app, {}) == {"read_seconds": 10.0, "idle_seconds": 75.0,
                                          "connections_per_client": 64, "max_body": 256 * 1024}
    said = connection_limits(app, {"REQUEST_READ_SECONDS": "2.5", "KEEPALIVE_SECONDS": "30",
                                   "MAX_CONNECTIONS_PER_CLIENT": "0"})
    assert (said["read_seconds"], said["idle_seconds"], said["connections_per_client"]) == (2.5, 30.0, 0)
    with pytest.raises(SystemExit, match="REQUEST_READ_SECONDS must be a number"):
        connection_limits(app, {"REQUEST_READ_SECONDS": "soon"})
    app.config["TRUST_PROXY"] = 1  # every connection comes from the proxy: it keeps the bound
    assert connection_limits(app, {"MAX_CONNECTIONS_PER_CLIENT": "8"})["connections_per_client"] == 0
    app.extensions["store"].dispose()
