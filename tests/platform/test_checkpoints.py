"""SQLite's checkpoints run beside the requests, not inside an entry's commit (checkpoints.py)."""
from __future__ import annotations

import http.client
import json
import os
import shutil
import sqlite3
import threading
import time

import pytest

from companion import create_app
from companion.platform.store.checkpoints import BACKSTOP_PAGES, RESTART_FRAMES, Checkpointer
from tests.browser_fixtures import _free_port, start_server
from tests.helpers import bearer, new_table

SCORES = [("ones", [1, 1, 2, 3, 4]), ("twos", [2, 2, 1, 3, 4]), ("threes", [3, 3, 3, 1, 2])]


def _entries_in_the_database_file_alone(db_path, tmp_path) -> int:
    """Entries a copy of the database file holds without its -wal file: what checkpoints moved in."""
    alone = tmp_path / "alone.sqlite"
    shutil.copyfile(db_path, alone)
    conn = sqlite3.connect(alone)
    try:
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    except sqlite3.OperationalError:  # not even the tables are in the file yet
        return -1
    finally:
        conn.close()


def _log_restarts(wal) -> int:
    """The -wal file's checkpoint sequence number (its header's bytes 12-15): SQLite adds one each time
    it starts writing the log from the beginning again."""
    with open(wal, "rb") as f:
        return int.from_bytes(f.read(16)[12:16], "big")


def _wait(condition, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_entries_reach_the_database_file_without_a_commit_checkpointing(tmp_path):
    db = tmp_path / "companion.sqlite"
    app = create_app({"DATABASE_URL": f"sqlite:///{db}", "TESTING": True, "SECRET_KEY": "test-secret"})
    store = app.extensions["store"]
    try:
        client = app.test_client()
        table = new_table(client, ["Ann", "Ben"])
        for box, dice in SCORES:
            for seat in table["seats"]:
                resp = client.post(f"/api/tables/{table['code']}/entries", headers=bearer(seat["token"]),
                                   json={"kind": "score", "category": box, "dice": dice})
                assert resp.status_code == 201, resp.get_json()
        # the app's own connections leave checkpoints to the checkpointer (SQLite's is a backstop)
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == BACKSTOP_PAGES
        # six entries are far below SQLite's 1,000 pages: only the checkpointer puts them in the file
        assert _wait(lambda: _entries_in_the_database_file_alone(db, tmp_path) == 6)
    finally:
        store.dispose()
    assert store.engine.checkpoints.stopped.is_set()


@pytest.fixture
def served(tmp_path):
    """`python -m companion` on an SQLite file of its own: (the file, a kept-alive connection to the
    server). Its output must not say that a checkpoint failed."""
    db = tmp_path / "companion.sqlite"
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "test-secret"}
    proc = start_server(port, env, tmp_path / "server.log")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        yield db, conn
    finally:
        conn.close()
        proc.terminate()
        proc.wait(timeout=10)
    assert "could not checkpoint" not in (tmp_path / "server.log").read_text()


def _request(conn, method: str, path: str, body=None, token=None) -> tuple[int, dict | None]:
    """(status, JSON answer or None) of one request on the kept-alive connection."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    resp = conn.getresponse()
    raw = resp.read()
    return resp.status, json.loads(raw) if resp.getheader("Content-Type") == "application/json" else None


def test_the_server_checkpoints_while_it_serves(served, tmp_path):
    """`python -m companion` (gevent, where the checkpoint is handed to gevent's pool of OS threads):
    the entries get into the database file, and the server keeps answering."""
    db, conn = served
    status, table = _request(conn, "POST", "/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})
    assert status == 201
    for box, dice in SCORES:
        for seat in table["seats"]:
            status, _ = _request(conn, "POST", f"/api/tables/{table['code']}/entries",
                                 {"kind": "score", "category": box, "dice": dice}, seat["token"])
            assert status == 201
    assert _wait(lambda: _entries_in_the_database_file_alone(db, tmp_path) == 6)
    status, _ = _request(conn, "GET", f"/t/{table['code']}/poll?v=0.0.0")
    assert status == 200  # still serving


def test_the_log_starts_over_while_entries_come_back_to_back(served):
    """Entries one right after another, as a busy venue or a client catching up sends them: each
    commit lands while the last checkpoint still runs, so no checkpoint ever finds the whole log
    copied. Before, the log then never started over until SQLite's own backstop at 20,000 pages (80 MB),
    every commit writing new blocks at the end of the file. Now the checkpointer's second pass, with
    the server's writers held back, lets the next commit start it over: it starts over twice within
    6,000 entries (at two pages or more each, the log would reach the backstop only after them)."""
    db, conn = served
    status, table = _request(conn, "POST", "/api/tables", {"game": "score_pad", "players": ["Ann"]})  # open-ended
    assert status == 201
    path, token = f"/api/tables/{table['code']}/entries", table["seats"][0]["token"]
    wal = f"{db}-wal"
    before, refused, sent = _log_restarts(wal), [], 0
    while sent < 6000 and not (sent % 100 == 0 and _log_restarts(wal) - before >= 2):
        status, answer = _request(conn, "POST", path, {"kind": "score", "points": sent % 50}, token)
        sent += 1
        if status != 201:
            refused.append(answer)
    assert refused == []
    assert _log_restarts(wal) - before >= 2
    status, body = _request(conn, "POST", path, {"kind": "score", "points": 7}, token)  # the log still reads whole
    assert status == 201 and body["seq"] == sent + 1


class _CountedHold:
    """A lock standing for the writers', counting how often the checkpointer held it."""

    def __init__(self, lock):
        self.lock, self.times = lock, 0

    def __enter__(self):
        self.lock.acquire()
        self.times += 1

    def __exit__(self, *_):
        self.lock.release()


def _write_log(db, rows: int) -> sqlite3.Connection:
    """`rows` commits of a page-sized row each to the WAL-mode file `db`, with no checkpoint; the
    writer stays open (the last connection to close would checkpoint the log itself)."""
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (x BLOB)")
    for _ in range(rows):
        with writer:
            writer.execute("INSERT INTO t VALUES (?)", (b"x" * 3000,))
    return writer


def _frames(db) -> int:
    return (os.path.getsize(f"{db}-wal") - 32) // (4096 + 24)  # the log's header, then page-sized frames


def test_writers_are_held_only_for_a_long_log(tmp_path):
    """At a table's pace (a few pages of log between two checkpoints) nothing waits for the
    checkpointer; a log longer than RESTART_FRAMES gets the second pass, with the writers held.
    Either way the checkpoint copies the whole log."""
    for name, rows, held in (("short", 20, 0), ("long", RESTART_FRAMES + 50, 1)):
        db = tmp_path / f"{name}.sqlite"
        writer = _write_log(db, rows)
        assert (_frames(db) > RESTART_FRAMES) == bool(held)
        checkpoints = Checkpointer(str(db))
        hold = checkpoints.writers = _CountedHold(threading.Lock())
        conn = sqlite3.connect(db)
        try:
            checkpoints.checkpoint(conn)
            assert hold.times == held, name
            _, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            assert logged == copied > 0
        finally:
            conn.close()
            writer.close()
