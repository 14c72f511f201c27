"""The entry log: append-only, unique sequence numbers, replay after restart, concurrent writers."""
from __future__ import annotations

import os
import threading

import pytest

from companion.platform.core.registry import RuleError
from companion.platform.store.engines import normalize_url
from companion.platform.store.schema import CODE_ALPHABET
from companion.platform.core.records import Conflict
from companion.platform.store.storage import Store
from companion.platform.core.play import load_replay, new_table, record


def test_table_codes_avoid_look_alike_characters(store):
    codes = {new_table(store, "dicez", ["A"], {}).code for _ in range(30)}
    assert len(codes) == 30
    for code in codes:
        assert len(code) == 6 and set(code) <= set(CODE_ALPHABET)
    assert not set("01OIL25SZ8B") & set(CODE_ALPHABET)


def test_a_sequence_number_is_taken_once(store):
    table = new_table(store, "dicez", ["A", "B"], {})
    store.append(table.code, 1, 1, 0, "score", {"dice": [1, 1, 1, 1, 1], "category": "ones"}, None)
    with pytest.raises(Conflict):
        store.append(table.code, 1, 1, 1, "score", {"dice": [2, 2, 2, 2, 2], "category": "twos"}, None)
    assert [e.seq for e in store.entries(table.code, 1)] == [1]


def test_state_survives_a_server_restart(db_url):
    first = Store(db_url)
    table = new_table(first, "dicez", ["A", "B"], {})
    record(first, table, 0, {"kind": "score", "dice": [6, 6, 6, 6, 1], "category": "sixes"})
    record(first, table, 1, {"kind": "score", "dice": [1, 2, 3, 4, 5], "category": "large_straight"})
    first.dispose()
    again = Store(db_url)  # a new process: nothing but the database
    rep = load_replay(again, again.table(table.code))
    assert rep.game.totals(rep.state) == [24, 40]
    assert rep.version == 2
    again.dispose()


def test_refused_entry_writes_nothing(store):
    table = new_table(store, "dicez", ["A"], {})
    with pytest.raises(RuleError):
        record(store, table, 0, {"kind": "score", "dice": [1, 2, 3], "category": "ones"})
    assert store.entries(table.code, 1) == []


def test_two_processes_writing_at_once_lose_nothing(db_url):
    """Eight phones on two server processes all score at the same moment."""
    stores = [Store(db_url), Store(db_url)]
    players = [f"P{i}" for i in range(8)]
    table = new_table(stores[0], "dicez", players, {"turn_order": False})  # free play: all at once
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    barrier = threading.Barrier(len(players))
    errors = []

    def phone(seat):
        store = stores[seat % 2]
        barrier.wait()
        try:
            for box in boxes:
                record(store, table, seat, {"kind": "score", "dice": [1, 2, 3, 4, 5], "category": box})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=phone, args=(s,)) for s in range(len(players))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    entries = stores[1].entries(table.code, 1)
    assert [e.seq for e in entries] == list(range(1, len(players) * len(boxes) + 1))
    rep = load_replay(stores[1], stores[1].table(table.code))
    assert rep.game.totals(rep.state) == [1 + 2 + 3 + 4 + 5 + 0] * len(players)
    for s in stores:
        s.dispose()


def test_same_idempotency_key_from_two_processes_applies_once(db_url):
    stores = [Store(db_url), Store(db_url)]
    table = new_table(stores[0], "dicez", ["A"], {})
    barrier = threading.Barrier(2)
    results = []

    def tap(store):
        barrier.wait()
        results.append(record(store, table, 0, {"kind": "score", "dice": [5, 5, 5, 5, 5], "category": "dicez"},
                              key="same-tap"))

    threads = [threading.Thread(target=tap, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stores[0].entries(table.code, 1)) == 1
    assert sorted(created for _, _, created in results) == [False, True]
    assert {saved.seq for saved, _, _ in results} == {1}
    for s in stores:
        s.dispose()


def test_postgres_urls_are_accepted_in_both_spellings():
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_a_database_from_before_invitations_gets_them_when_the_app_starts(db_url):
    """Tables made by an earlier release keep working: the new columns are added and every table gets
    a join secret and a PIN, so its phones can still be invited."""
    from sqlalchemy import text

    from companion.platform.store.schema import ADDED_COLUMNS
    from companion.platform.store.storage import Store

    old = Store(db_url)
    table = old.create_table("dicez", {}, ["Ann", "Ben"], False)
    old.append(table.code, 1, 1, 0, "score", {"dice": [1, 1, 1, 1, 1], "category": "ones"}, None)
    with old.engine.begin() as conn:
        for table_name, column in ADDED_COLUMNS:
            conn.execute(text(f"ALTER TABLE {table_name} DROP COLUMN {column}"))
    old.dispose()
    upgraded = Store(db_url)
    again = upgraded.table(table.code)
    assert len(again.join_secret) > 20 and len(again.pin) == 6 and again.pin.isdigit()
    assert [e.seq for e in upgraded.entries(table.code, 1)] == [1]
    assert upgraded.claim_seat(table.code, 0) is not None
    assert upgraded.poll_marker(table.code) == (1, 1, 1)
    upgraded.dispose()


def test_a_new_document_never_takes_the_place_of_one_already_there(store):
    """create_document is how a browser adds something under a new name: if another browser took
    the name first, the first one's document and owner stay."""
    assert store.create_document("g", "c", "Box", {"v": 1}, "first")
    assert not store.create_document("g", "c", "Box", {"v": 2}, "second")
    doc = store.document("g", "c", "Box")
    assert (doc.data, doc.owner) == ({"v": 1}, "first")
    store.save_document("g", "c", "Box", {"v": 3}, "second")  # a change keeps the first owner
    assert store.document("g", "c", "Box").owner == "first"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_worker_writes_through_a_connection_of_its_own(tmp_path):
    """A server that forks its workers after the store is made (as gunicorn --preload would): a worker
    must not write through any connection its parent opened, and the parent goes on writing through
    its own."""
    store = Store(f"sqlite:///{tmp_path / 'forked.sqlite'}")
    table = new_table(store, "dicez", ["A", "B"], {})
    chance = {"dice": [2, 3, 4, 5, 6], "category": "chance"}
    store.append(table.code, 1, 1, 0, "score", chance, "first")
    with store.engine.connect() as conn:  # the connection the parent's pool holds
        parents = {id(conn.connection.dbapi_connection)}
    pid = os.fork()
    if pid == 0:  # the worker: its entry and its reads go through connections it opened itself
        code = 1
        try:
            store.append(table.code, 1, 2, 1, "score", chance, "second")
            with store.engine.connect() as conn:
                used = {id(conn.connection.dbapi_connection)}
            code = 0 if not used & parents else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    store.append(table.code, 1, 3, 0, "score", {"dice": [1, 1, 1, 1, 1], "category": "ones"}, "third")
    with store.engine.connect() as conn:
        assert id(conn.connection.dbapi_connection) in parents
    assert [(e.seq, e.key) for e in store.entries(table.code, 1)] == [(1, "first"), (2, "second"), (3, "third")]
    store.dispose()
