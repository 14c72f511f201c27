"""Every time the app stores, shows and exports is timezone-aware UTC, on both databases and after a
restart (SQLite keeps no zone in its text; PostgreSQL answers in its session's zone)."""
from __future__ import annotations

import json
import os
import urllib.request
from datetime import datetime, timedelta, timezone

from sqlalchemy import insert

from companion.platform.store.backup import dump
from companion.platform.core.play import new_table, record
from companion.platform.store.schema import handovers_t
from companion.platform.store.storage import Store
from tests.browser_fixtures import ROOT, free_ports, start_server
from tests.helpers import bearer

KOLKATA = timezone(timedelta(hours=5, minutes=30))


def _in_another_zone(url: str) -> str:
    """The same database; on PostgreSQL, its session in India's zone (UTC+05:30), as a server set
    up there would be."""
    if not url.startswith("postgresql"):
        return url
    assert "options=" in url
    return url + "%20-ctimezone%3DAsia%2FKolkata"


def _in_utc(text: str) -> datetime:
    stamp = datetime.fromisoformat(text)
    assert stamp.utcoffset() == timedelta(0), text
    assert text.endswith("+00:00"), text
    return stamp


def _ask(base: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", **(bearer(token) if token else {})}
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers), timeout=10) as resp:
        return json.loads(resp.read())


def _play_a_game(base: str) -> dict:
    table = _ask(base, "/api/tables", {"game": "score_pad", "players": ["Ann"]})
    for entry in ({"kind": "score", "points": 4}, {"kind": "finish"}):
        _ask(base, f"/api/tables/{table['code']}/entries", entry, table["seats"][0]["token"])
    return table


def _shown_times(base: str, code: str) -> list[str]:
    """Every time a player or a program reads of the game: its log and its export."""
    log = _ask(base, f"/api/tables/{code}/entries")["entries"]
    export = _ask(base, f"/t/{code}/games/1/export.json")
    return [e["time"] for e in log] + [e["time"] for e in export["entries"]] + [
        export["started_at"], export["finished_at"]]


def _server(db_url: str, tmp_path, name: str):
    port = free_ports(1)[0]
    env = {**os.environ, "DATABASE_URL": db_url, "SECRET_KEY": "times-secret", "PYTHONPATH": str(ROOT)}
    return start_server(port, env, tmp_path / f"{name}.log"), f"http://127.0.0.1:{port}"


def _stop(proc) -> None:
    proc.terminate()
    proc.wait(timeout=10)


def test_times_keep_their_zone_after_a_restart(db_url, tmp_path):
    proc, base = _server(db_url, tmp_path, "first")
    try:
        table = _play_a_game(base)
        code = table["code"]
        before = _shown_times(base, code)
        link = _ask(base, f"/api/tables/{code}/seats/0/handover", {}, table["host_token"])
    finally:
        _stop(proc)
    proc, base = _server(_in_another_zone(db_url), tmp_path, "again")  # the restart
    try:
        after = _shown_times(base, code)
    finally:
        _stop(proc)
    assert after == before  # the same moments, written the same way
    for text in after:
        _in_utc(text)
    _in_utc(link["expires_at"])


def test_the_store_reads_every_time_back_in_utc(db_url):
    """What the store hands the app (and a backup holds) after a restart: all aware, all UTC."""
    first = Store(db_url)
    table = new_table(first, "score_pad", ["Ann"], {})
    record(first, table, 0, {"kind": "score", "points": 4})
    record(first, table, 0, {"kind": "finish"})
    token, _ = first.create_handover(table.code, 0, 5)
    first.save_document("dice_and_slice", "editions", "Times", {"label": "x"})
    first.dispose()
    store = Store(_in_another_zone(db_url))
    try:
        code = table.code
        stamps = [store.table(code).created_at, store.game(code, 1).started_at, store.game(code, 1).finished_at,
                  *(e.created_at for e in store.entries(code, 1)),
                  store.document("dice_and_slice", "editions", "Times").updated_at,
                  store.handover(code, token).expires_at]
        assert all(s.tzinfo is not None and s.utcoffset() == timedelta(0) for s in stamps), stamps
        backup = dump(store.engine)["tables"]
        for name in ("tables", "games", "entries", "documents", "handovers"):
            columns = backup[name]["columns"]
            for row in backup[name]["rows"]:
                for column, value in zip(columns, row):
                    if column.endswith("_at") and value is not None:
                        _in_utc(value)
    finally:
        store.dispose()


def test_a_moment_written_in_another_zone_is_kept_as_the_same_moment_in_utc(store):
    table = store.create_table("score_pad", {}, ["Ann"], False)
    expires = datetime(2030, 1, 2, 3, 4, 5, tzinfo=KOLKATA)
    with store.engine.begin() as conn:
        conn.execute(insert(handovers_t).values(token_hash="z" * 32, table_code=table.code, seat=0,
                                                created_at=expires - timedelta(minutes=5), expires_at=expires))
    with store.engine.connect() as conn:
        row = conn.execute(handovers_t.select().where(handovers_t.c.token_hash == "z" * 32)).mappings().one()
    assert row["expires_at"] == expires and row["expires_at"].tzinfo == timezone.utc
    assert row["expires_at"].isoformat() == "2030-01-01T21:34:05+00:00"
