"""The engines the store runs on: SQLite (the embedded default) or PostgreSQL, each set up for a
server that holds many requests at once, and the checks that a pooled connection still works.
"""
from __future__ import annotations

import os
import time
import weakref

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

from .checkpoints import BACKSTOP_PAGES, Checkpointer


def normalize_url(url: str) -> str:
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


# Every connection a process opens stays in its pool: with a pool of 10 (+20 beyond it), a venue's
# bursts opened connections beyond the ten and closed them again on their return, a new PostgreSQL
# backend for each (a py-spy profile of a worker at 1,000 tables: 8 % of its CPU making and closing
# connections). 2 processes x 30 stay within PostgreSQL's default 100 connections.
PG_POOL_SIZE, PG_POOL_OVERFLOW = 30, 0


# what a forked child inherited from its parent and must neither use nor close (closing a copy of an
# SQLite connection in the child would drop the child's own locks on the file): kept for its lifetime
_parents_pools: list = []


def own_pool_after_fork(engine: Engine) -> None:
    """A process forked after this (a worker of a server that loads the app first) starts a pool of
    its own instead of using its parent's connections: SQLAlchemy's documented way, `dispose(close=False)`
    in the child, with the parent's pool set aside."""
    if not hasattr(os, "register_at_fork"):  # no fork on Windows, nor this hook
        return
    owner = weakref.ref(engine)

    def in_child() -> None:
        alive = owner()
        if alive is not None:
            _parents_pools.append(alive.pool)
            alive.dispose(close=False)
    os.register_at_fork(after_in_child=in_child)


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 15, "check_same_thread": False})
        path = sqlite_file_of(engine)
        checkpoints = engine.checkpoints = Checkpointer(path) if path else None

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=15000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            if checkpoints is not None:  # commits leave checkpoints to it (checkpoints.py)
                cur.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
                checkpoints.ensure_running()
            cur.close()

        _watch_sqlite_file(engine)
        own_pool_after_fork(engine)
        return engine
    # one process serves hundreds of greenlets at once: a pool of 5 (+10) made requests queue for a
    # connection under load
    engine = create_engine(url, pool_size=PG_POOL_SIZE, max_overflow=PG_POOL_OVERFLOW)
    _ping_idle_connections(engine)
    own_pool_after_fork(engine)
    return engine


def reads_engine(engine: Engine) -> Engine:
    """What the store's reads go through. Each read is one statement, consistent by itself; on
    PostgreSQL a read in a transaction of its own cost three round trips (BEGIN, the query, ROLLBACK
    when the connection goes back to the pool), so reads there run in autocommit: one round trip
    (a table's read in process: 0.73-1.08 ms -> 0.36-0.39 ms). SQLite's driver begins no transaction
    for a read, so its engine is used as it is."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="AUTOCOMMIT")
    return engine


PG_PING_AFTER_IDLE = 5.0  # seconds


def _ping_idle_connections(engine: Engine) -> None:
    """PostgreSQL's pre-ping, for a connection that sat in the pool PG_PING_AFTER_IDLE seconds or more
    (the server may have restarted meanwhile): SQLAlchemy's pool_pre_ping pings every checkout, a
    second round trip for every query of a busy server. A connection in steady use that the server
    drops fails its query instead (a 503, tap again), and SQLAlchemy then replaces every connection
    of the pool."""
    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_conn, record):
        record.info["idle_from"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping(dbapi_conn, record, _proxy):
        idle_from = record.info.get("idle_from")
        if idle_from is None or time.monotonic() - idle_from < PG_PING_AFTER_IDLE:
            return
        try:
            with dbapi_conn.cursor() as cur:
                cur.execute("SELECT 1")
            dbapi_conn.rollback()
        except Exception as exc:  # noqa: BLE001 - any failure: this connection is gone
            raise DisconnectionError("the PostgreSQL connection was lost while it sat in the pool") from exc


def sqlite_file_of(engine: Engine) -> str | None:
    """The path of an SQLite engine's database file (None: in memory)."""
    path = engine.url.database
    return None if not path or path == ":memory:" or path.startswith("file:") else path


def _file_identity(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


def same_sqlite_file(path: str, info: dict) -> bool:
    """Whether a connection (its pool record's `info`) still writes to the file at `path`."""
    try:
        return _file_identity(path) == info.get("sqlite_file")
    except OSError:
        return False


def _watch_sqlite_file(engine: Engine) -> None:
    """SQLite's pre-ping: an open connection keeps writing to its file even after the file or its
    folder is gone (a disk unplugged, a folder moved), so writes would land where nobody reads
    them. Before lending a connection, check its file is still the one at the path; if not,
    reconnect, which fails (a 503) until the file is back."""
    path = sqlite_file_of(engine)
    if path is None:
        return

    @event.listens_for(engine, "connect")
    def _remember(_dbapi_conn, record):
        record.info["sqlite_file"] = _file_identity(path)

    @event.listens_for(engine, "checkout")
    def _check(_dbapi_conn, record, _proxy):
        if not same_sqlite_file(path, record.info):
            raise DisconnectionError("the SQLite file moved or is gone")
