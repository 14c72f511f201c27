"""Live updates by server-sent events: what a page's stream says, and that a change made on one
server process reaches a stream held on another, for each way processes hear of changes."""
from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from tests.browser_fixtures import ROOT, _free_port, _wait_for, free_ports, start_servers
from tests.helpers import bearer, join_seat, new_table, post_entry


def events(resp):
    """The stream's messages as dicts (id, event, data; a heartbeat is {"comment": ...})."""
    buffer = b""
    for chunk in resp.response if hasattr(resp, "response") else iter(lambda: resp.readline(), b""):
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            message = {}
            for line in filter(None, block.decode().splitlines()):
                field, _, value = line.partition(":")
                message[field or "comment"] = value.strip()
            yield message


def first_event(resp):
    return next(m for m in events(resp) if "event" in m)


def test_a_stale_page_is_told_at_once_with_the_version_as_the_event_id(client):
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[2, 2, 2, 2, 2], category="twos")
    resp = client.get(f"/t/{table['code']}/live?v=1.0.0", buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache"
    messages = events(resp)
    assert 1000 <= int(next(messages)["retry"]) <= 3000
    assert next(messages) == {"id": "1.1.0", "event": "table-changed", "data": "1.1.0"}
    resp.close()


def test_a_reconnect_resumes_from_the_last_event_id_it_was_given(client):
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[2, 2, 2, 2, 2], category="twos")
    # the browser's own reconnect sends Last-Event-ID, newer than the address it first opened
    resp = client.get(f"/t/{table['code']}/live?v=1.0.0", headers={"Last-Event-ID": "1.1.0"}, buffered=False)
    waiter = _next_event_in_thread(resp)
    post_entry(client, table, 1, kind="score", dice=[3, 3, 3, 3, 3], category="threes")
    assert waiter.get(timeout=10)["id"] == "1.2.0"  # not 1.1.0 again
    resp.close()


def _next_event_in_thread(resp) -> queue.Queue:
    got: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: got.put(first_event(resp)), daemon=True).start()
    return got


def test_an_entry_wakes_a_stream_held_open_in_the_same_process(client):
    table = new_table(client)
    resp = client.get(f"/t/{table['code']}/live?v=1.0.0", buffered=False)
    waiter = _next_event_in_thread(resp)
    assert waiter.empty()
    post_entry(client, table, 0, kind="score", dice=[4, 4, 4, 1, 2], category="fours")
    assert waiter.get(timeout=10) == {"id": "1.1.0", "event": "table-changed", "data": "1.1.0"}
    resp.close()


def test_a_seat_taken_is_news_and_a_rematch_asks_for_a_reload(client):
    from tests.platform.test_api import play_whole_game

    table = new_table(client)
    resp = client.get(f"/t/{table['code']}/live?v=1.0.0", buffered=False)
    waiter = _next_event_in_thread(resp)
    play_whole_game(client, table)
    assert waiter.get(timeout=10)["event"] == "table-changed"
    resp.close()
    client.post(f"/api/tables/{table['code']}/rematch", headers=bearer(table["host_token"]))
    resp = client.get(f"/t/{table['code']}/live?v=1.26.0", buffered=False)
    assert first_event(resp) == {"id": "2.0.0", "event": "refresh", "data": "2.0.0"}
    resp.close()
    fresh = new_table(client)
    resp = client.get(f"/t/{fresh['code']}/live?v=1.0.0", buffered=False)
    waiter = _next_event_in_thread(resp)
    join_seat(client, fresh["code"], 0)
    assert waiter.get(timeout=10)["id"] == "1.0.1"
    resp.close()


def test_a_page_names_the_version_it_shows_and_its_stream(client):
    table = new_table(client)
    post_entry(client, table, 0, kind="score", dice=[2, 2, 2, 2, 2], category="twos")
    page = client.get(f"/t/{table['code']}/view").get_data(as_text=True)
    assert f'sse-connect="/t/{table["code"]}/live?v=1.1.0"' in page
    assert '<div id="live-seen" data-version="1.1.0" hidden>' in page
    script = re.search(r'<script src="([^"]+)"', page).group(1)
    assert b'htmx.defineExtension("sse"' in client.get(script).get_data()  # the page's one script holds it


@pytest.mark.parametrize("query", ["v=1.2", "v=a.b.c", "v=1.2.3.4", "v=-1.0.0", "v=" + "9" * 13 + ".0.0",
                                   "v=1.0.%C2%B3", "v=%D9%A1.0.0"])  # digits int() refuses: superscript 3, Arabic 1
def test_a_version_that_is_not_one_is_refused_with_a_reason(client, query):
    table = new_table(client)
    for endpoint in ("live", "poll"):
        resp = client.get(f"/t/{table['code']}/{endpoint}?{query}")
        assert resp.status_code == 400
        assert "v must be the version the page shows" in resp.get_data(as_text=True)


def test_a_stream_for_no_table_is_404(client):
    assert client.get("/t/ZZZZZZ/live?v=1.0.0").status_code == 404
    assert client.get("/t/not-a-code/live").status_code == 404


def test_a_quiet_stream_sends_heartbeat_comments(app):
    app.config["LIVE_HEARTBEAT_SECONDS"] = 0.05
    client = app.test_client()
    table = new_table(client)
    resp = client.get(f"/t/{table['code']}/live?v=1.0.0", buffered=False)
    messages = events(resp)
    next(messages)  # retry
    assert next(messages) == {"comment": ""}
    resp.close()


def test_the_sqlite_watcher_names_the_tables_with_new_entries_and_rereads_all_for_a_seat(tmp_path):
    """What another process's commit on the shared SQLite file makes this process re-read: the
    tables that got entries, and every followed table (about once a second) for a write that adds
    no entry, such as a seat taken."""
    from companion import create_app
    from companion.platform.live import updates as live

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'shared.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "live-test"})
    client, store = app.test_client(), app.extensions["store"]
    ann, bea = new_table(client, ["Ann", "Ben"]), new_table(client, ["Cy", "Di"])
    watch = live.FileWatch(str(tmp_path / "shared.sqlite"))
    assert watch.changed_tables() is live.EVERY_TABLE  # the first look
    watch.full_check_at = time.monotonic() + 3600  # the next look at every table: not before we say
    assert watch.changed_tables() == []
    post_entry(client, ann, 0, kind="score", dice=[6, 6, 6, 6, 6], category="dicez")
    assert watch.changed_tables() == [ann["code"]]
    assert watch.changed_tables() == []
    store.release_seat(bea["code"], 1)
    assert watch.changed_tables() == []  # no entry names it: it waits for the next look at every table
    watch.full_check_at = time.monotonic()  # (due SQLITE_FULL_CHECK_SECONDS after the last one)
    assert watch.changed_tables() is live.EVERY_TABLE
    assert watch.changed_tables() == []
    watch.conn.close()
    store.dispose()


# ---- two real server processes on one database ------------------------------------------
def _serve(env, tmp_path, names):
    """A server process per name, started together; [(process, base URL)]."""
    ports = free_ports(len(names))
    procs = start_servers([(port, env, tmp_path / f"{name}.log") for port, name in zip(ports, names)])
    return [(proc, f"http://127.0.0.1:{port}") for proc, port in zip(procs, ports)]


def _api(base, path, body=None, token=None):
    import json

    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **(bearer(token) if token else {})})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _entry_on_a_reaches_a_stream_on_b(env, tmp_path):
    env = {**env, "SECRET_KEY": "live-test", "PYTHONPATH": str(ROOT)}
    (a, base_a), (b, base_b) = _serve(env, tmp_path, ["a", "b"])
    try:
        table = _api(base_a, "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})
        # a stream held on B, its first byte read (so it is open before the entry is made)
        stream = urllib.request.urlopen(f"{base_b}/t/{table['code']}/live?v=1.0.0", timeout=10)
        assert stream.readline().startswith(b"retry: ")
        _api(base_a, f"/api/tables/{table['code']}/entries",
             {"kind": "score", "dice": [6, 6, 6, 6, 6], "category": "dicez"}, table["seats"][0]["token"])
        message = first_event(stream)  # waits at most the socket timeout (10 s)
        assert message == {"id": "1.1.0", "event": "table-changed", "data": "1.1.0"}
        # B's listener waits cooperatively (gevent; psycopg waits with select): B still answers
        assert _api(base_b, f"/api/tables/{table['code']}")["version"] == 1
        stream.close()
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(timeout=10)


def _without_redis():
    return {k: v for k, v in os.environ.items() if k != "REDIS_URL"}


def test_two_processes_on_one_database_share_live_updates(db_url, tmp_path):
    """SQLite: the other process notices the file's new version; PostgreSQL: LISTEN/NOTIFY."""
    _entry_on_a_reaches_a_stream_on_b({**_without_redis(), "DATABASE_URL": db_url}, tmp_path)


def test_the_listening_connection_gets_every_option_the_database_url_names(db_url, tmp_path):
    """A DATABASE_URL whose `options` holds two settings: the LISTEN connection is made with both, as the
    pool's are (a URL rendered back to text for it had turned the space between them into "+")."""
    if not db_url.startswith("postgresql"):
        pytest.skip("LISTEN/NOTIFY: PostgreSQL only")
    url = db_url.replace("options=", "options=-cstatement_timeout%3D30s%20", 1)
    _entry_on_a_reaches_a_stream_on_b({**_without_redis(), "DATABASE_URL": url}, tmp_path)


@pytest.mark.skipif(not os.environ.get("TEST_REDIS_URL"), reason="TEST_REDIS_URL is not set (.ci/run sets it)")
def test_two_processes_share_live_updates_through_redis(tmp_path):
    url = f"sqlite:///{tmp_path / 'companion.sqlite'}"
    env = {**_without_redis(), "DATABASE_URL": url, "REDIS_URL": os.environ["TEST_REDIS_URL"]}
    _entry_on_a_reaches_a_stream_on_b(env, tmp_path)


def test_one_process_holds_more_open_streams_than_select_could_and_wakes_them_all(tmp_path):
    """1,100 idle streams on one server process started with the usual soft limit of 1,024 open files."""
    import resource
    import socket

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2400:
        pytest.skip(f"this machine allows only {hard} open files per process")
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard) if hard != resource.RLIM_INFINITY else 4096, hard))
    env = {**_without_redis(), "DATABASE_URL": f"sqlite:///{tmp_path / 'companion.sqlite'}",
           "SECRET_KEY": "live-test", "PYTHONPATH": str(ROOT),
           # one client holding them all: no per-client bound here (tests/platform/test_stalls.py has those)
           "MAX_STREAMS_PER_CLIENT": "0", "MAX_CONNECTIONS_PER_CLIENT": "0"}
    port = _free_port()
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard)))
    server.log_path = log.name
    streams = []
    try:
        _wait_for(port, server)
        base = f"http://127.0.0.1:{port}"
        table = _api(base, "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})
        request = f"GET /t/{table['code']}/live?v=1.0.0 HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        for _ in range(1100):
            s = socket.create_connection(("127.0.0.1", port), timeout=20)
            s.sendall(request)
            streams.append(s)
        for s in streams:  # every one is open: its headers and retry line came
            assert b"retry: " in _read_until(s, b"retry: ")
        _api(base, f"/api/tables/{table['code']}/entries",
             {"kind": "score", "dice": [6, 6, 6, 6, 6], "category": "dicez"}, table["seats"][0]["token"])
        for s in streams:
            assert b"id: 1.1.0" in _read_until(s, b"id: 1.1.0")
        assert server.poll() is None
    finally:
        for s in streams:
            s.close()
        server.terminate()
        server.wait(timeout=10)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _read_until(sock, marker: bytes) -> bytes:
    got = b""
    while marker not in got:
        chunk = sock.recv(4096)
        if not chunk:
            break
        got += chunk
    return got
