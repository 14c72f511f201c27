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

A bus over the network (Redis, a PostgreSQL LISTEN connection) can stall without closing: Redis
frozen, a connection a firewall forgot. Every call to Redis has a short timeout (BUS_TIMEOUT), the
LISTEN connection to PostgreSQL is made within 2 s and kept with TCP keepalives, and each listener
sends itself a ping through the bus every PING_SECONDS (on PostgreSQL a NOTIFY through the pool). A listener that meets an error or hears no ping of its own for STALL_SECONDS
makes the process *deaf*: it says so in the log, every open stream ends and a new one is refused
(503), so the pages ask every 20 s instead (static/app.js) rather than hold a stream that would
stay silent. The listener keeps trying; once it hears its own ping again the log says so, streams
are taken again and the pages' own reconnects find them. With Redis over one SQLite file the process
does not go deaf: meanwhile it watches the file as SqliteBus does (the database's own means), and
goes on watching for FALLBACK_GRACE seconds after Redis answers again, while the other processes
find it again too.
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

from ..store.engines import reads_engine, sqlite_file_of

log = logging.getLogger(__name__)

Marker = tuple[int, int, int]
SQLITE_CHECK_SECONDS = 0.1
SQLITE_FULL_CHECK_SECONDS = 1.0
RECONNECT_SECONDS = 1.0
BUS_TIMEOUT = 1.0  # seconds any one call to Redis may take
PING_SECONDS = 1.0  # how often a listener pings itself through its bus
STALL_SECONDS = 4.0  # a listener that heard no ping of its own for this long has lost its bus
PING = "-"  # a ping's "table code": no table is called that
LISTEN_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3, "keepalives_count": 3,
                     "tcp_user_timeout": 20_000}
FALLBACK_GRACE = 2 * STALL_SECONDS  # seconds the file is still watched after Redis answers again
STREAMS_PER_CLIENT = 16  # open streams one client address may hold (a phone holds one; a browser at most 6)


def format_marker(marker: Marker) -> str:
    return ".".join(str(n) for n in marker)


def parse_marker(text: str | None) -> Marker | None:
    """A marker as a page sends it ("3.41.7"); None if it is not one."""
    parts = (text or "").strip().split(".")
    # isascii too: str.isdigit also takes digits int() refuses, such as "³"
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 12 for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


class NoStream(Exception):
    """Why a stream is not opened now: an HTTP status and words for whoever reads it."""

    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status, self.text = status, text


DEAF = (503, "Live updates cannot reach the other server processes right now: this page asks "
             "for changes every 20 seconds until they can.")
TOO_MANY = (429, "This device holds too many live pages already: close some, or this page asks for "
                 "changes every 20 seconds.")


class Channel:
    """One table's open streams in this process, and its marker as last read."""

    def __init__(self, marker: Marker):
        self.marker = marker
        self.streams = 0
        self.cond = threading.Condition()


class Live:
    """The open streams of this process, woken by this process's changes and by the bus."""

    def __init__(self, read_markers: Callable[[list[str]], dict[str, Marker]], bus: "Bus",
                 streams_per_client: int = STREAMS_PER_CLIENT):
        self.read_markers = read_markers
        self.bus = bus
        self.origin = f"{os.getpid()}-{id(self):x}"  # this process's own notices come back: skip them
        self.channels: dict[str, Channel] = {}
        self.lock = threading.Lock()
        self.started = False
        self.closed = threading.Event()  # the app's store was disposed: the bus's thread ends
        self.deaf = False  # the bus lost: the other processes' changes cannot be heard (module doc)
        self.streams_per_client = streams_per_client  # 0: no bound
        self.clients: dict[str, int] = {}  # client address -> its open streams

    # ---- streams -------------------------------------------------------------
    def open(self, code: str, client: str = "") -> Channel | None:
        """Follow table `code` for `client`; None if there is no such table. Raises NoStream while
        this process is deaf or the client holds its STREAMS_PER_CLIENT already."""
        self._start_bus()
        if self.deaf:
            raise NoStream(*DEAF)
        self._admit(client)
        try:
            channel = self._channel(code)
        except BaseException:
            self._leave(client)
            raise
        if channel is None:
            self._leave(client)
        return channel

    def _channel(self, code: str) -> Channel | None:
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

    def _admit(self, client: str) -> None:
        with self.lock:
            held = self.clients.get(client, 0)
            if self.streams_per_client and held >= self.streams_per_client:
                raise NoStream(*TOO_MANY)
            self.clients[client] = held + 1

    def _leave(self, client: str) -> None:
        with self.lock:
            held = self.clients.pop(client, 1) - 1
            if held > 0:
                self.clients[client] = held

    def close(self, code: str, channel: Channel, client: str = "") -> None:
        self._leave(client)
        with self.lock:
            channel.streams -= 1
            if channel.streams <= 0 and self.channels.get(code) is channel:
                del self.channels[code]

    def wait(self, channel: Channel, seen: Marker | None, timeout: float) -> Marker | None:
        """The table's marker once it differs from `seen`; None if `timeout` seconds pass first
        or this process went deaf."""
        with channel.cond:
            if channel.cond.wait_for(lambda: channel.marker != seen or self.deaf, timeout) and not self.deaf:
                return channel.marker
        return None

    # ---- the bus lost and found ----------------------------------------------
    def lost_hearing(self, bus: str, why: str) -> None:
        """The bus's listener cannot hear the other processes: end every stream (module doc)."""
        if not self.deaf:
            log.warning("live: %s does not answer (%s): open pages now ask for changes every 20 s "
                        "until it does", bus, why)
        self.deaf = True
        for channel in list(self.channels.values()):
            with channel.cond:
                channel.cond.notify_all()

    def hearing_again(self, bus: str) -> None:
        if self.deaf:
            log.warning("live: %s answers again: live updates between processes resume", bus)
        self.deaf = False

    def watched(self) -> list[str]:
        with self.lock:
            return list(self.channels)

    # ---- changes -------------------------------------------------------------
    def changed(self, code: str) -> None:
        """This process committed a change to table `code`."""
        if code in self.channels:
            self.refresh([code])
        if self.deaf and self.bus.deaf_to_publish:
            return  # the bus does not answer: the other processes' pages ask by themselves meanwhile
        try:
            self.bus.publish(self.origin, code)
        except Exception as exc:  # the change is saved; other processes' pages catch up on their next reconnect
            log.warning("live: could not tell the other processes that table %s changed: %s", code, exc)

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


def stream(hub: Live, channel: Channel, seen: Marker | None, heartbeat: float):
    """The text/event-stream of one page: each newer marker as an event whose id is the marker, and
    a comment every `heartbeat` seconds so that proxies and phones keep the connection open. It ends
    when the process goes deaf (module doc): the page then asks by itself."""
    # a reconnect delay of 1-3 s, spread so that a restarted server is not met by every phone at once
    yield f"retry: {random.randint(1000, 3000)}\n\n"
    if seen is None:
        seen = channel.marker
    while True:
        marker = hub.wait(channel, seen, heartbeat)
        if hub.deaf:
            return
        if marker is None:
            yield ":\n\n"
            continue
        kind = "refresh" if marker[0] != seen[0] else "table-changed"  # a rematch: load the new game
        seen = marker
        text = format_marker(marker)
        yield f"id: {text}\nevent: {kind}\ndata: {text}\n\n"


# ---- buses: how the other processes hear of a change --------------------------------
class BusStalled(Exception):
    """A listener heard no ping of its own for STALL_SECONDS."""


class Bus:
    """Carries "table `code` changed" to every process of this companion."""

    name = "the bus"  # as the log names it
    deaf_to_publish = False  # while its listener is deaf, publishing would stall too: skip it

    def publish(self, origin: str, code: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def start(self, live: Live) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def keep_listening(self, live: Live, listen_once) -> None:
        """Run `listen_once(live)` (a connection's life) again and again until the app is disposed;
        each failure makes the process deaf until a connection hears its own ping again."""
        while not live.closed.is_set():
            try:
                listen_once(live)
            except Exception as exc:  # noqa: BLE001 - any failure of the bus: deaf, then try again
                self.lost(live, " ".join(str(exc).split()) or type(exc).__name__)
                live.closed.wait(RECONNECT_SECONDS)

    def lost(self, live: Live, why: str) -> None:
        """The listener lost the bus: the process cannot hear the others."""
        live.lost_hearing(self.name, why)

    def found(self, live: Live) -> None:
        """The listener heard its own ping on a new connection."""
        live.hearing_again(self.name)

    def ping(self, origin: str) -> None:
        self.publish(origin, PING)

    def follow(self, live: Live, receive) -> None:
        """Hand `live` every notice `receive(timeout)` yields as (origin, code) and ping this process
        through the bus every PING_SECONDS; raise BusStalled when a ping sent STALL_SECONDS ago has
        not come back, nor any after it. (Counted from when the ping was sent, not asked for: a
        ping that waited for a connection of a busy pool is not yet overdue.) The first ping heard
        makes the process hear again."""
        ping_at, first = 0.0, True
        unanswered_since = None  # when the oldest ping not followed by any heard back went out
        while not live.closed.is_set():
            now = time.monotonic()
            if unanswered_since is not None and now - unanswered_since > STALL_SECONDS:
                raise BusStalled(f"none of this process's pings came back in {STALL_SECONDS:g} s")
            if now >= ping_at:
                self.ping(live.origin)
                ping_at = time.monotonic() + PING_SECONDS
                unanswered_since = unanswered_since or time.monotonic()
            for origin, code in receive(max(ping_at - time.monotonic(), 0.01)):
                if origin != live.origin or code != PING:
                    live.heard(origin, code)
                    continue
                unanswered_since = None
                if first:
                    first = False
                    self.found(live)
                    live.refresh_all()  # whatever changed while nobody listened


def _daemon(target, name: str) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()


class SqliteBus(Bus):
    """Processes sharing one SQLite file: nothing to publish; each watches the file's version."""

    def __init__(self, path: str, needed: Callable[[], bool] = lambda: True):
        self.path = path
        self.needed = needed  # False: another bus carries the changes (RedisBus's fallback)

    def publish(self, origin: str, code: str) -> None:
        pass  # the commit itself moves data_version for every other connection

    def start(self, live: Live) -> None:
        _daemon(lambda: self._watch(live), "companion-live-sqlite")

    def _watch(self, live: Live) -> None:
        watch = None  # made afresh whenever watching starts: its first look rereads every table
        while not live.closed.wait(SQLITE_CHECK_SECONDS):
            if not live.watched() or not self.needed():
                watch = None
                continue
            watch = watch or FileWatch(self.path)
            try:
                codes = watch.changed_tables()
            except sqlite3.Error:
                watch = None  # the file is gone or locked: try again later
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
    """PostgreSQL LISTEN/NOTIFY: one listening connection per process. Its pings go out through the
    pool, as every notice does, and must come back on the listening connection."""

    name = "the PostgreSQL LISTEN connection"

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
        _daemon(lambda: self.keep_listening(live, self._listen_once), "companion-live-postgres")

    def _listen_once(self, live: Live) -> None:
        import psycopg

        args, kwargs = self.connect_args
        # libpq's own bound on making the connection (whole seconds, at least 2), and TCP keepalives
        # that break a connection whose peer is gone within about 20 s, so that a LISTEN statement
        # sent into one does not wait for the system's default of two hours
        kwargs = {"connect_timeout": max(2, round(2 * BUS_TIMEOUT)), **LISTEN_KEEPALIVES, **kwargs}
        with psycopg.connect(*args, **kwargs, autocommit=True) as conn:
            conn.execute(f'LISTEN "{self.channel}"')

            def receive(timeout: float):
                for notice in conn.notifies(timeout=timeout):
                    yield notice.payload.split(" ", 1)

            self.follow(live, receive)


class RedisBus(Bus):
    """Redis pub/sub: every process subscribes to one channel. Every call waits at most BUS_TIMEOUT."""

    name = "Redis"
    deaf_to_publish = True

    def __init__(self, url: str, channel: str, sqlite_path: str | None = None):
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=BUS_TIMEOUT, socket_connect_timeout=BUS_TIMEOUT)
        self.channel = channel
        # over one SQLite file: watch it while Redis does not answer (module doc)
        self.file = SqliteBus(sqlite_path, self._file_needed) if sqlite_path else None
        self.on_file = False
        self.file_until = 0.0

    def _file_needed(self) -> bool:
        return self.on_file or time.monotonic() < self.file_until

    def publish(self, origin: str, code: str) -> None:
        if not self.on_file:  # meanwhile the others read the file
            self.client.publish(self.channel, f"{origin} {code}")

    def ping(self, origin: str) -> None:
        self.client.publish(self.channel, f"{origin} {PING}")

    def lost(self, live: Live, why: str) -> None:
        if self.file is None:
            return super().lost(live, why)
        if not self.on_file:
            log.warning("live: Redis does not answer (%s): the other processes' changes are read from the "
                        "SQLite file until it does", why)
        self.on_file = True

    def found(self, live: Live) -> None:
        if self.on_file:
            log.warning("live: Redis answers again: live updates between processes go through it again")
            self.on_file, self.file_until = False, time.monotonic() + FALLBACK_GRACE
        super().found(live)

    def start(self, live: Live) -> None:
        _daemon(lambda: self.keep_listening(live, self._listen_once), "companion-live-redis")
        if self.file is not None:
            self.file.start(live)

    def _listen_once(self, live: Live) -> None:
        with self.client.pubsub(ignore_subscribe_messages=True) as pubsub:
            pubsub.subscribe(self.channel)

            def receive(timeout: float):
                message = pubsub.get_message(timeout=timeout)
                if message and message["type"] == "message":
                    yield message["data"].decode().split(" ", 1)

            self.follow(live, receive)


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
    path = None if url.get_backend_name() == "postgresql" else sqlite_file_of(engine)
    if redis_url:
        return RedisBus(redis_url, name, path)
    if url.get_backend_name() == "postgresql":
        return PostgresBus(engine, name)
    return SqliteBus(path) if path else LocalBus()


def install(store, redis_url: str | None, streams_per_client: int = STREAMS_PER_CLIENT) -> Live:
    live = Live(store.markers, make_bus(store.engine, redis_url), streams_per_client)
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
