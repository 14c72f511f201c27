"""Live updates: every open page of a table learns at once that the table changed, whichever
process made the change.

A table's *marker* is (current game number, its last sequence number, changes of seats); a page
knows the marker it was drawn at, and the stream (pages.live) tells it each newer one. One `Live`
per app. The store calls `Live.changed(code)` after committing anything that moves a marker (within a
request, once that request's answer has been sent: `tell_after_answer`); that wakes the table's streams
in this process at once and tells the other processes through a bus:

- `PostgresBus`: PostgreSQL LISTEN/NOTIFY when the database is PostgreSQL (no other service);
- `RedisBus`: Redis pub/sub when REDIS_URL is set (several machines, any database);
- `SqliteBus`: several processes on one SQLite file; a watcher asks `PRAGMA data_version` ten
  times a second while this process has open streams; when the file changed it re-reads the
  markers of the tables that got new entries (found by the entries' row ids), and about once a
  second those of every table it follows (seats and rematches change no entry).

Each process keeps one `Channel` per table with open streams: the marker as last read, read once
per change and shared by every stream of that table. Nothing here is needed for correctness across a
restart: a reconnecting page names the marker it last saw and is told at once if it is stale.
"""
from __future__ import annotations

import hashlib
import logging
import os
import random
import sqlite3
import threading
import time
from functools import partial
from typing import Callable

from flask import after_this_request, g, has_request_context
from sqlalchemy import bindparam, func, select

from .engines import reads_engine, sqlite_file_of

log = logging.getLogger(__name__)

Marker = tuple[int, int, int]
SQLITE_CHECK_SECONDS = 0.1
SQLITE_FULL_CHECK_SECONDS = 1.0
RECONNECT_SECONDS = 1.0


def format_marker(marker: Marker) -> str:
    return ".".join(str(n) for n in marker)


def parse_marker(text: str | None) -> Marker | None:
    """A marker as a page sends it ("3.41.7"); None if it is not one."""
    parts = (text or "").strip().split(".")
    # isascii too: str.isdigit also takes digits int() refuses, such as "³"
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 12 for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


class Channel:
    """One table's open streams in this process, and its marker as last read."""

    def __init__(self, marker: Marker):
        self.marker = marker
        self.streams = 0
        self.cond = threading.Condition()


class Live:
    """The open streams of this process, woken by this process's changes and by the bus."""

    def __init__(self, read_markers: Callable[[list[str]], dict[str, Marker]], bus: "Bus"):
        self.read_markers = read_markers
        self.bus = bus
        self.origin = f"{os.getpid()}-{id(self):x}"  # this process's own notices come back: skip them
        self.channels: dict[str, Channel] = {}
        self.lock = threading.Lock()
        self.started = False
        self.closed = threading.Event()  # the app's store was disposed: the bus's thread ends

    # ---- streams -------------------------------------------------------------
    def open(self, code: str) -> Channel | None:
        """Follow table `code`; None if there is no such table."""
        self._start_bus()
        with self.lock:
            channel = self.channels.get(code)
            if channel is not None:
                channel.streams += 1
                return channel
        marker = self.read_markers([code]).get(code)
        if marker is None:
            return None
        with self.lock:
            channel = self.channels.setdefault(code, Channel(marker))
            channel.streams += 1
        self.refresh([code])  # a change committed before the channel was listed was not heard
        return channel

    def close(self, code: str, channel: Channel) -> None:
        with self.lock:
            channel.streams -= 1
            if channel.streams <= 0 and self.channels.get(code) is channel:
                del self.channels[code]

    @staticmethod
    def wait(channel: Channel, seen: Marker | None, timeout: float) -> Marker | None:
        """The table's marker once it differs from `seen`; None if `timeout` seconds pass first."""
        with channel.cond:
            if channel.cond.wait_for(lambda: channel.marker != seen, timeout):
                return channel.marker
        return None

    def watched(self) -> list[str]:
        with self.lock:
            return list(self.channels)

    # ---- changes -------------------------------------------------------------
    def changed(self, code: str) -> None:
        """This process committed a change to table `code`."""
        if code in self.channels:
            self.refresh([code])
        try:
            self.bus.publish(self.origin, code)
        except Exception:  # the change is saved; other processes' pages catch up on their next reconnect
            log.exception("could not tell the other processes that table %s changed", code)

    def heard(self, origin: str, code: str) -> None:
        """Another process (or the bus's own check) says table `code` changed."""
        if origin != self.origin and code in self.channels:
            self.refresh([code])

    def refresh(self, codes: list[str]) -> None:
        """Read the markers of `codes` once and wake the streams of those that moved."""
        codes = [c for c in codes if c in self.channels]
        if not codes:
            return
        try:
            markers = self.read_markers(codes)
        except Exception:  # a database fault: the streams keep waiting; the next change tries again
            log.exception("could not read the markers of %s", codes)
            return
        for code, marker in markers.items():
            channel = self.channels.get(code)
            # forward only: two refreshes racing must not put back an older marker
            if channel is not None and marker > channel.marker:
                with channel.cond:
                    channel.marker = marker
                    channel.cond.notify_all()

    def refresh_all(self) -> None:
        self.refresh(self.watched())

    def _start_bus(self) -> None:
        # lazily, in the process that serves streams (a pre-forking server must not start it early)
        if self.started:
            return
        with self.lock:
            if self.started:
                return
            self.started = True
        self.bus.start(self)


def stream(channel: Channel, seen: Marker | None, heartbeat: float):
    """The text/event-stream of one page: each newer marker as an event whose id is the marker, and
    a comment every `heartbeat` seconds so that proxies and phones keep the connection open."""
    # a reconnect delay of 1-3 s, spread so that a restarted server is not met by every phone at once
    yield f"retry: {random.randint(1000, 3000)}\n\n"
    if seen is None:
        seen = channel.marker
    while True:
        marker = Live.wait(channel, seen, heartbeat)
        if marker is None:
            yield ":\n\n"
            continue
        kind = "refresh" if marker[0] != seen[0] else "table-changed"  # a rematch: load the new game
        seen = marker
        text = format_marker(marker)
        yield f"id: {text}\nevent: {kind}\ndata: {text}\n\n"


# ---- buses: how the other processes hear of a change --------------------------------
class Bus:
    """Carries "table `code` changed" to every process of this companion."""

    def publish(self, origin: str, code: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def start(self, live: Live) -> None:  # pragma: no cover - interface
        raise NotImplementedError


def _daemon(target, name: str) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()


class SqliteBus(Bus):
    """Processes sharing one SQLite file: nothing to publish; each watches the file's version."""

    def __init__(self, path: str):
        self.path = path

    def publish(self, origin: str, code: str) -> None:
        pass  # the commit itself moves data_version for every other connection

    def start(self, live: Live) -> None:
        _daemon(lambda: self._watch(live), "companion-live-sqlite")

    def _watch(self, live: Live) -> None:
        watch = FileWatch(self.path)
        while not live.closed.wait(SQLITE_CHECK_SECONDS):
            if not live.watched():
                continue
            try:
                codes = watch.changed_tables()
            except sqlite3.Error:
                watch = FileWatch(self.path)  # the file is gone or locked: try again later
                continue
            if codes is EVERY_TABLE:
                live.refresh_all()
            elif codes:
                live.refresh(codes)


EVERY_TABLE = None


class FileWatch:
    """What changed in one SQLite file since the last look, from its own connection: nothing
    (the file's data_version did not move), the tables that got new entries since the highest row
    id seen, or EVERY_TABLE: the first look, and about once a second after any change, for the
    writes that add no entry (a seat taken, a rematch)."""

    def __init__(self, path: str):
        self.path, self.conn = path, None  # connected at the first look, where its errors are caught
        self.version = self.last_row = None
        self.full_check_at, self.unchecked = 0.0, False

    def changed_tables(self) -> list[str] | None:
        self.conn = self.conn or sqlite3.connect(self.path, timeout=1, check_same_thread=False)
        now = self.conn.execute("PRAGMA data_version").fetchone()[0]
        moved, self.version = now != self.version, now
        self.unchecked |= moved
        if self.last_row is None or (self.unchecked and time.monotonic() >= self.full_check_at):
            self.last_row = self.conn.execute("SELECT coalesce(max(rowid), 0) FROM entries").fetchone()[0]
            self.full_check_at, self.unchecked = time.monotonic() + SQLITE_FULL_CHECK_SECONDS, False
            return EVERY_TABLE
        if not moved:
            return []
        rows = self.conn.execute("SELECT table_code, max(rowid) FROM entries WHERE rowid > ? GROUP BY table_code",
                                 (self.last_row,)).fetchall()
        self.last_row = max([self.last_row, *(row[1] for row in rows)])
        return [row[0] for row in rows]


NOTIFY = select(func.pg_notify(bindparam("channel"), bindparam("payload")))


class PostgresBus(Bus):
    """PostgreSQL LISTEN/NOTIFY: one listening connection per process."""

    def __init__(self, engine, channel: str):
        # a notice sent in autocommit (as the store's reads) goes out at once, in one round trip (not
        # BEGIN, it, COMMIT); every entry sends one
        self.notifier = reads_engine(engine)
        # what SQLAlchemy itself passes to psycopg for this URL (a conninfo string rendered from the
        # URL would lose what libpq reads differently: a space in `options` came out as "+")
        self.connect_args = engine.dialect.create_connect_args(engine.url)
        self.channel = channel

    def publish(self, origin: str, code: str) -> None:
        with self.notifier.connect() as conn:
            conn.execute(NOTIFY, {"channel": self.channel, "payload": f"{origin} {code}"})

    def start(self, live: Live) -> None:
        _daemon(lambda: self._listen(live), "companion-live-postgres")

    def _listen(self, live: Live) -> None:
        import psycopg

        while not live.closed.is_set():
            try:
                args, kwargs = self.connect_args
                with psycopg.connect(*args, **kwargs, autocommit=True) as conn:
                    conn.execute(f'LISTEN "{self.channel}"')
                    live.refresh_all()  # whatever changed while nobody listened
                    while not live.closed.is_set():
                        for notice in conn.notifies(timeout=1.0):
                            live.heard(*notice.payload.split(" ", 1))
            except Exception:
                log.warning("live: the PostgreSQL listener lost its connection; reconnecting", exc_info=True)
                live.closed.wait(RECONNECT_SECONDS)


class RedisBus(Bus):
    """Redis pub/sub: every process subscribes to one channel."""

    def __init__(self, url: str, channel: str):
        import redis

        self.client = redis.Redis.from_url(url)
        self.channel = channel

    def publish(self, origin: str, code: str) -> None:
        self.client.publish(self.channel, f"{origin} {code}")

    def start(self, live: Live) -> None:
        _daemon(lambda: self._listen(live), "companion-live-redis")

    def _listen(self, live: Live) -> None:
        while not live.closed.is_set():
            try:
                with self.client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    pubsub.subscribe(self.channel)
                    live.refresh_all()  # whatever changed while nobody listened
                    while not live.closed.is_set():
                        message = pubsub.get_message(timeout=1.0)
                        if message and message["type"] == "message":
                            live.heard(*message["data"].decode().split(" ", 1))
            except Exception:
                log.warning("live: the Redis subscription was lost; subscribing again", exc_info=True)
                live.closed.wait(RECONNECT_SECONDS)


class LocalBus(Bus):
    """One process only (an in-memory SQLite database): no one else to tell."""

    def publish(self, origin: str, code: str) -> None:
        pass

    def start(self, live: Live) -> None:
        pass


def make_bus(engine, redis_url: str | None) -> Bus:
    """Redis when REDIS_URL is set, else what the database offers."""
    url = engine.url
    # one channel per database (and schema): two companions sharing a Redis do not wake each other
    name = "companion_live_" + hashlib.sha256(url.render_as_string(hide_password=True).encode()).hexdigest()[:12]
    if redis_url:
        return RedisBus(redis_url, name)
    if url.get_backend_name() == "postgresql":
        return PostgresBus(engine, name)
    path = sqlite_file_of(engine)
    return SqliteBus(path) if path else LocalBus()


def install(store, redis_url: str | None) -> Live:
    live = Live(store.markers, make_bus(store.engine, redis_url))
    store.change_listeners.append(partial(tell_after_answer, live))
    store.dispose_listeners.append(live.closed.set)
    return live


# ---- when a change is told ------------------------------------------------------------------
# Telling a table's streams and the other processes reads the table's marker and, on PostgreSQL or
# with Redis, sends a NOTIFY or PUBLISH over the network; under gevent, waiting for that lets every
# woken stream and other request run first. The phone that made the change needs only to hear that
# it was saved, so within a request the table is told once the answer has been sent: Werkzeug calls
# a response's `call_on_close` functions when the server closes the answer after sending it.

def tell_after_answer(live: Live, code: str) -> None:
    """`live.changed(code)` once this request's answer has been sent (once per table however many
    changes the request made); at once outside a request (the command line, a test on the store)."""
    if not has_request_context():
        live.changed(code)
        return
    waiting = g.get("tables_to_tell")
    if waiting is None:
        waiting = g.tables_to_tell = {}

        @after_this_request
        def tell_on_close(response):
            response.call_on_close(partial(_tell_all, live, waiting))
            return response
    waiting[code] = None


def _tell_all(live: Live, waiting: dict) -> None:
    for code in list(waiting):
        try:
            live.changed(code)
        except Exception:  # one failing notice must not stop the others; the change itself is saved
            log.exception("could not tell the streams that table %s changed", code)
