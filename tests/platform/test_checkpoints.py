"""SQLite's checkpoints run beside the requests, not inside an entry's commit (checkpoints.py)."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
import urllib.request

from companion import create_app
from companion.platform.checkpoints import BACKSTOP_PAGES
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


def test_the_server_checkpoints_while_it_serves(tmp_path):
    """`python -m companion` (gevent, where the checkpoint is handed to gevent's pool of OS threads):
    the entries get into the database file, and the server keeps answering."""
    db = tmp_path / "companion.sqlite"
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "test-secret"}
    proc = start_server(port, env, tmp_path / "server.log")
    base = f"http://127.0.0.1:{port}"
    try:
        def post(path, body, token=None):
            headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
            req = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read())

        status, table = post("/api/tables", {"game": "dicez", "players": ["Ann", "Ben"]})
        assert status == 201
        for box, dice in SCORES:
            for seat in table["seats"]:
                status, _ = post(f"/api/tables/{table['code']}/entries",
                                 {"kind": "score", "category": box, "dice": dice}, seat["token"])
                assert status == 201
        assert _wait(lambda: _entries_in_the_database_file_alone(db, tmp_path) == 6)
        with urllib.request.urlopen(f"{base}/t/{table['code']}/poll?v=0.0.0", timeout=10) as resp:
            assert resp.status == 200  # still serving
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert "could not checkpoint" not in (tmp_path / "server.log").read_text()
