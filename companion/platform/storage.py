"""Tables, seats, games and the append-only entry log, on SQLAlchemy Core.

A *table* is the group around the physical game: its code, host and seats. A table
plays a sequence of *games* (rematch starts the next one with the same seats). Each
game has its own log of entries; the game state is always the replay of that log.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from sqlalchemy import (
    JSON, Boolean, Column, DateTime, ForeignKeyConstraint, Index, Integer, MetaData,
    PrimaryKeyConstraint, String, Table, Text, UniqueConstraint, bindparam, create_engine, event,
    func, insert, inspect, select, update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.schema import CreateIndex

from .checkpoints import BACKSTOP_PAGES, Checkpointer
from .prepared import KeptConnection, Prepared, own_pool_after_fork

# Look-alike characters (0/O, 1/I/L, 2/Z, 5/S, 8/B) are left out of table codes.
CODE_ALPHABET = "34679ACDEFGHJKMNPQRTUVWXY"
CODE_LENGTH = 6

metadata = MetaData()

tables_t = Table(
    "tables", metadata,
    Column("code", String(CODE_LENGTH), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("host_token", String(64), nullable=False),
    Column("pass_and_play", Boolean, nullable=False, default=False),
    Column("current_game", Integer, nullable=False, default=1),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # the invitation: the join link carries the secret, a person typing it in uses the PIN
    Column("join_secret", String(64), nullable=True),
    Column("pin", String(8), nullable=True),
)

seats_t = Table(
    "seats", metadata,
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("name", String(40), nullable=False),
    Column("token", String(64), nullable=False, unique=True),
    Column("claimed", Boolean, nullable=False, default=False),
    # counts every change of the seat's device: the phones learn of it with their next poll
    Column("generation", Integer, nullable=False, default=0, server_default="0"),
    PrimaryKeyConstraint("table_code", "seat"),
    ForeignKeyConstraint(["table_code"], ["tables.code"]),
)

games_t = Table(
    "games", metadata,
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("result", JSON, nullable=True),
    PrimaryKeyConstraint("table_code", "game_no"),
    ForeignKeyConstraint(["table_code"], ["tables.code"]),
    # /history lists the latest finished games (a table's own history goes by the primary key)
    Index("ix_games_finished_at", "finished_at"),
)

entries_t = Table(
    "entries", metadata,
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("seat", Integer, nullable=True),  # None: a host action
    Column("kind", String(32), nullable=False),
    Column("payload", Text, nullable=False),
    Column("key", String(100), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # which device wrote it (a fingerprint of its token): a secret is shown only to that device
    Column("device", String(32), nullable=True),
    PrimaryKeyConstraint("table_code", "game_no", "seq"),
    # an idempotency key belongs to the seat that sent it: two phones may pick the same key
    UniqueConstraint("table_code", "game_no", "seat", "key", name="uq_entry_seat_key"),
    ForeignKeyConstraint(["table_code", "game_no"], ["games.table_code", "games.game_no"]),
)


# Documents a game keeps beyond its tables (a game declares its collections, e.g. editions): JSON
# under a name, per game and collection. `owner` is an opaque mark of who created it.
documents_t = Table(
    "documents", metadata,
    Column("game", String(32), nullable=False),
    Column("collection", String(32), nullable=False),
    Column("name", String(60), nullable=False),
    Column("data", JSON, nullable=False),
    Column("owner", String(64), nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("game", "collection", "name"),
)


# Who played which finished game, by name (the same name, case and spacing aside, is one player):
# written with a game's result, it finds a player's games without reading every result.
player_games_t = Table(
    "player_games", metadata,
    Column("name_key", String(40), nullable=False),
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("game_no", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    PrimaryKeyConstraint("name_key", "table_code", "game_no", "seat"),
    ForeignKeyConstraint(["table_code", "game_no"], ["games.table_code", "games.game_no"]),
)


# A seat token a device lost when the host moved the seat: that device is told, not refused.
retired_tokens_t = Table(
    "retired_tokens", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("retired_at", DateTime(timezone=True), nullable=False),
)

# Single-use links that move a seat to another phone; only a hash of the link's token is kept.
handovers_t = Table(
    "handovers", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True), nullable=True),
)

# Columns added after the first release: an older database gets them when the app starts.
ADDED_COLUMNS = (("tables", "join_secret"), ("tables", "pin"), ("seats", "generation"), ("entries", "device"))


# The statements every request runs, built once: SQLAlchemy then finds each one's compiled form in
# its cache at once, instead of building the statement again and computing its cache key each time.
_CODE, _GAME_NO = bindparam("code"), bindparam("game_no")
# A table's marker (pages and live streams compare it): its current game, that game's last sequence
# number (its version) and the changes of its seats, each read beside the table's row.
CURRENT_VERSION = select(func.coalesce(func.max(entries_t.c.seq), 0)).where(
    entries_t.c.table_code == tables_t.c.code, entries_t.c.game_no == tables_t.c.current_game
).scalar_subquery().label("version")
SEAT_CHANGES = select(func.coalesce(func.sum(seats_t.c.generation), 0)).where(
    seats_t.c.table_code == tables_t.c.code).scalar_subquery().label("seat_changes")
MARKER = (tables_t.c.current_game, CURRENT_VERSION, SEAT_CHANGES)
TABLE_WITH_SEATS = (select(tables_t, seats_t.c.seat, seats_t.c.name, seats_t.c.token, seats_t.c.claimed,
                           seats_t.c.generation, CURRENT_VERSION)
                    .join(seats_t, seats_t.c.table_code == tables_t.c.code)
                    .where(tables_t.c.code == _CODE).order_by(seats_t.c.seat))
GAME = select(games_t).where(games_t.c.table_code == _CODE, games_t.c.game_no == _GAME_NO)
VERSION = select(func.coalesce(func.max(entries_t.c.seq), 0)).where(
    entries_t.c.table_code == _CODE, entries_t.c.game_no == _GAME_NO)
POLL_MARKER = select(*MARKER).where(tables_t.c.code == _CODE)
MARKERS = select(tables_t.c.code, *MARKER).where(tables_t.c.code.in_(bindparam("codes", expanding=True)))
ENTRIES = select(entries_t).where(
    entries_t.c.table_code == _CODE, entries_t.c.game_no == _GAME_NO).order_by(entries_t.c.seq)
ENTRIES_AFTER = select(entries_t).where(
    entries_t.c.table_code == _CODE, entries_t.c.game_no == _GAME_NO,
    entries_t.c.seq > bindparam("after")).order_by(entries_t.c.seq)
ENTRY_BY_KEY = select(entries_t).where(
    entries_t.c.table_code == _CODE, entries_t.c.game_no == _GAME_NO,
    entries_t.c.seat == bindparam("seat"), entries_t.c.key == bindparam("key"))
ENTRY_BY_HOST_KEY = select(entries_t).where(  # a host action: its seat is NULL, which `=` never matches
    entries_t.c.table_code == _CODE, entries_t.c.game_no == _GAME_NO,
    entries_t.c.seat.is_(None), entries_t.c.key == bindparam("key"))
APPEND = insert(entries_t)
APPEND_COLUMNS = ("table_code", "game_no", "seq", "seat", "kind", "payload", "key", "created_at", "device")
# The same append, written only while the seat's token is `holder` and the game is the table's current
# one: a writer that checked the token against a table it read earlier gets both checks in the write.
APPEND_WHILE_HELD = insert(entries_t).from_select(list(APPEND_COLUMNS), select(
    *(bindparam(name, type_=entries_t.c[name].type) for name in APPEND_COLUMNS)
).where(select(seats_t.c.seat).join(tables_t, tables_t.c.code == seats_t.c.table_code).where(
    tables_t.c.code == bindparam("table_code"), tables_t.c.current_game == bindparam("game_no"),
    seats_t.c.seat == bindparam("seat"), seats_t.c.token == bindparam("holder")).exists()))
FINISHED_GAMES = (select(games_t).where(games_t.c.finished_at.is_not(None))
                  .order_by(games_t.c.finished_at.desc()).limit(bindparam("limit")))


def name_key(name: str) -> str:
    """A player's name as the record knows it: spacing and case set aside."""
    return " ".join(name.split()).casefold()[:40]


def _player_rows(code: str, game_no: int, result: dict) -> list[dict]:
    return [{"name_key": name_key(n), "table_code": code, "game_no": game_no, "seat": seat}
            for seat, n in enumerate(result.get("names") or [])]


@dataclass(frozen=True)
class Entry:
    seq: int
    seat: int | None
    kind: str
    payload: dict
    key: str | None
    created_at: datetime
    device: str | None = None

    def as_entry(self) -> dict:
        """The entry as the rules engine sees it."""
        return {"kind": self.kind, **self.payload}


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    token: str
    claimed: bool
    generation: int = 0  # changes of this seat's device: part of the marker live pages compare


@dataclass(frozen=True)
class TableInfo:
    code: str
    game: str
    options: dict
    host_token: str
    pass_and_play: bool
    current_game: int
    created_at: datetime
    seats: tuple[Seat, ...]
    join_secret: str = ""
    pin: str = ""
    # the current game's last sequence number when this row was read (read with it, in one query)
    version_when_read: int | None = None

    @property
    def names(self) -> list[str]:
        """The players' names, in seat order."""
        return [s.name for s in self.seats]


@dataclass(frozen=True)
class GameInfo:
    table_code: str
    game_no: int
    game: str
    options: dict
    started_at: datetime
    finished_at: datetime | None
    result: dict | None


@dataclass(frozen=True)
class Document:
    name: str
    data: dict
    owner: str | None
    updated_at: datetime


@dataclass(frozen=True)
class Handover:
    seat: int
    expires_at: datetime
    used: bool

    @property
    def expired(self) -> bool:
        return self.expires_at <= now()


class Conflict(Exception):
    """Another writer took the sequence number; the caller may retry."""


class NoLongerHeld(Exception):
    """An append made for a seat token found the token no longer the seat's, or the game no longer
    the table's current one (the caller's copy of the table is out of date): nothing was written."""


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


def create_schema(engine: Engine, attempts: int = 5) -> None:
    """Create the tables that are missing and add the columns an older database lacks. Two
    processes starting at once on a fresh database both see a table missing and both create it;
    the loser's "already exists" (or "duplicate column") only means the other one was first, so
    look again (each CREATE TABLE and ALTER TABLE is whole or not at all)."""
    for attempt in range(attempts):
        try:
            metadata.create_all(engine)
            upgrade_schema(engine)
            return
        except (OperationalError, ProgrammingError, IntegrityError) as exc:
            text = str(exc).lower()
            # SQLite: a transaction that read the schema cannot then write once another process
            # has written (busy at once, whatever the timeout): the same race, so look again
            raced = "already exists" in text or "duplicate" in text or "database is locked" in text
            if not raced or attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


# an entry's payload as it is logged: compact JSON (json.dumps with separators makes an encoder per call)
_payload_json = json.JSONEncoder(separators=(",", ":")).encode


def now() -> datetime:
    return datetime.now(timezone.utc)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_pin() -> str:
    return f"{secrets.randbelow(10 ** 6):06d}"


@lru_cache(maxsize=8192)  # each entry marks its device by it: the same few tokens, over and over
def fingerprint(token: str) -> str:
    """What the database keeps of a secret it only needs to recognise (and what marks a device)."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


def _aware(stamp: datetime) -> datetime:
    """SQLite gives datetimes back without their zone; they were stored in UTC."""
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def upgrade_schema(engine: Engine) -> None:
    """Add the columns a database made by an older release lacks, and invitations to its tables."""
    with engine.begin() as conn:
        have = {name: {c["name"] for c in inspect(conn).get_columns(name)} for name, _ in ADDED_COLUMNS}
        for table_name, column_name in ADDED_COLUMNS:
            if column_name in have[table_name]:
                continue
            column = metadata.tables[table_name].c[column_name]
            kind = column.type.compile(dialect=engine.dialect)
            default = f" DEFAULT {column.server_default.arg}" if column.server_default is not None else ""
            conn.exec_driver_sql(f"ALTER TABLE {table_name} ADD COLUMN {column_name} {kind}{default}")
        for (code,) in conn.execute(select(tables_t.c.code).where(tables_t.c.join_secret.is_(None))).all():
            conn.execute(update(tables_t).where(tables_t.c.code == code).values(
                join_secret=new_token(), pin=new_pin()))
    add_indexes(engine)
    index_players(engine)


def index_players(engine: Engine) -> None:
    """Games finished before the player index existed get their rows (once: the index is empty)."""
    with engine.connect() as conn:
        if conn.execute(select(player_games_t.c.seat).limit(1)).first() is not None:
            return
        rows = conn.execute(select(games_t.c.table_code, games_t.c.game_no, games_t.c.result)
                            .where(games_t.c.finished_at.is_not(None))).all()
    index = [r for code, no, result in rows for r in _player_rows(code, no, result or {})]
    if not index:
        return
    try:
        with engine.begin() as conn:
            conn.execute(insert(player_games_t), index)
    except IntegrityError:
        pass  # another process starting at the same time filled it


def add_indexes(engine: Engine) -> None:
    """Create the indexes an older database lacks (create_all makes them only with a new table).
    Several processes may start at once: one that loses the race finds the index there."""
    for table in metadata.sorted_tables:
        for index in table.indexes:
            try:
                with engine.begin() as conn:
                    conn.execute(CreateIndex(index, if_not_exists=True))
            except DBAPIError:
                if index.name not in {i["name"] for i in inspect(engine).get_indexes(table.name)}:
                    raise


def _kept_connection(engine: Engine) -> KeptConnection | None:
    if engine.dialect.name != "sqlite":
        return None
    path = sqlite_file_of(engine)
    return KeptConnection(engine, (lambda fairy: same_sqlite_file(path, fairy.info)) if path else (lambda _: True))


class Store:
    def __init__(self, url: str):
        self.url = normalize_url(url)
        self.engine = make_engine(url)
        self.reads = reads_engine(self.engine)
        create_schema(self.engine)
        # the hot paths' statements, straight on the driver (prepared.py says why); on SQLite on a
        # connection kept for them
        self._kept = _kept_connection(self.engine)
        self._table = Prepared(self.engine, TABLE_WITH_SEATS, kept=self._kept)
        self._poll_marker = Prepared(self.engine, POLL_MARKER, kept=self._kept)
        self._append = Prepared(self.engine, APPEND, column_keys=APPEND_COLUMNS, kept=self._kept)
        self._append_while_held = Prepared(self.engine, APPEND_WHILE_HELD, kept=self._kept)
        self._entries_after = Prepared(self.engine, ENTRIES_AFTER, kept=self._kept)
        # called with a table's code after a commit that changes its marker (live.py listens)
        self.change_listeners: list = []
        self.dispose_listeners: list = []

    def _changed(self, code: str) -> None:
        for listener in self.change_listeners:
            listener(code)

    def dispose(self) -> None:
        for listener in self.dispose_listeners:
            listener()
        if getattr(self.engine, "checkpoints", None) is not None:
            self.engine.checkpoints.stop()
        if self._kept is not None:
            self._kept.close()
        self.engine.dispose()

    # ---- tables and seats -------------------------------------------------
    def create_table(self, game: str, options: dict, names: list[str], pass_and_play: bool,
                     seats_taken: bool = False) -> TableInfo:
        """A new table; `seats_taken`: its seat tokens go to the client that creates it (the API)."""
        for _ in range(20):
            code = new_code()
            try:
                with self.engine.begin() as conn:
                    stamp = now()
                    conn.execute(insert(tables_t).values(
                        code=code, game=game, options=options, host_token=new_token(),
                        pass_and_play=pass_and_play, current_game=1, created_at=stamp,
                        join_secret=new_token(), pin=new_pin()))
                    conn.execute(insert(seats_t), [
                        {"table_code": code, "seat": i, "name": name, "token": new_token(),
                         "claimed": seats_taken, "generation": 0}
                        for i, name in enumerate(names)])
                    conn.execute(insert(games_t).values(
                        table_code=code, game_no=1, game=game, options=options, started_at=stamp))
                return self.table(code)
            except IntegrityError:
                continue  # code already taken: draw another
        raise RuntimeError("could not find a free table code")

    def table(self, code: str) -> TableInfo | None:
        rows = self._table.rows({"code": code})
        if not rows:
            return None
        row = rows[0]
        seats = tuple(Seat(r["seat"], r["name"], r["token"], r["claimed"], r["generation"]) for r in rows)
        return TableInfo(row["code"], row["game"], row["options"], row["host_token"],
                         row["pass_and_play"], row["current_game"], row["created_at"], seats,
                         row["join_secret"] or "", row["pin"] or "", row["version"])

    def claim_seat(self, code: str, seat: int) -> str | None:
        """Take a free seat under a fresh token (the claiming device's alone); None if it is taken."""
        token = new_token()
        with self.engine.begin() as conn:
            res = conn.execute(update(seats_t).where(
                seats_t.c.table_code == code, seats_t.c.seat == seat, seats_t.c.claimed.is_(False)
            ).values(claimed=True, token=token, generation=seats_t.c.generation + 1))
        if res.rowcount != 1:
            return None
        self._changed(code)
        return token

    def release_seat(self, code: str, seat: int) -> None:
        """Free a seat a phone left, under a new token so the phone that left it cannot write for it."""
        with self.engine.begin() as conn:
            conn.execute(update(seats_t).where(seats_t.c.table_code == code, seats_t.c.seat == seat).values(
                token=new_token(), claimed=False, generation=seats_t.c.generation + 1))
        self._changed(code)

    # ---- moving a seat to another device --------------------------------------
    def create_handover(self, code: str, seat: int, minutes: int) -> tuple[str, datetime]:
        """A single-use link token that moves `seat` to whichever device uses it within `minutes`."""
        token, stamp = new_token(), now()
        expires = stamp + timedelta(minutes=minutes)
        with self.engine.begin() as conn:
            conn.execute(insert(handovers_t).values(token_hash=fingerprint(token), table_code=code, seat=seat,
                                                    created_at=stamp, expires_at=expires))
        return token, expires

    def handover(self, code: str, token: str) -> Handover | None:
        with self.reads.connect() as conn:
            row = conn.execute(select(handovers_t).where(
                handovers_t.c.token_hash == fingerprint(token), handovers_t.c.table_code == code)).mappings().first()
        return Handover(row["seat"], _aware(row["expires_at"]), row["used_at"] is not None) if row else None

    def use_handover(self, code: str, token: str) -> tuple[int, str] | None:
        """Spend a hand-over link: (its seat, the new device's token), or None if it is used or expired.
        The device that held the seat is told its seat moved, as one step with the move."""
        stamp, fresh = now(), new_token()
        with self.engine.begin() as conn:
            where = (handovers_t.c.token_hash == fingerprint(token), handovers_t.c.table_code == code,
                     handovers_t.c.used_at.is_(None), handovers_t.c.expires_at > stamp)
            seat = conn.execute(select(handovers_t.c.seat).where(*where)).scalar()
            if seat is None or conn.execute(update(handovers_t).where(*where).values(used_at=stamp)).rowcount != 1:
                return None
            old = conn.execute(select(seats_t.c.token, seats_t.c.claimed).where(
                seats_t.c.table_code == code, seats_t.c.seat == seat)).one()
            if old.claimed:
                conn.execute(insert(retired_tokens_t).values(
                    token_hash=fingerprint(old.token), table_code=code, seat=seat, retired_at=stamp))
            conn.execute(update(seats_t).where(seats_t.c.table_code == code, seats_t.c.seat == seat).values(
                token=fresh, claimed=True, generation=seats_t.c.generation + 1))
        self._changed(code)
        return seat, fresh

    def moved_seat(self, code: str, token: str) -> int | None:
        """The seat a device held under `token` until the host moved it to another device."""
        with self.reads.connect() as conn:
            return conn.execute(select(retired_tokens_t.c.seat).where(
                retired_tokens_t.c.token_hash == fingerprint(token), retired_tokens_t.c.table_code == code)).scalar()

    def set_pass_and_play(self, code: str, on: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.code == code).values(pass_and_play=on))

    # ---- games ------------------------------------------------------------
    def game(self, code: str, game_no: int) -> GameInfo | None:
        with self.reads.connect() as conn:
            row = conn.execute(GAME, {"code": code, "game_no": game_no}).mappings().first()
        return _game_info(row) if row else None

    def games(self, code: str) -> list[GameInfo]:
        with self.reads.connect() as conn:
            rows = conn.execute(select(games_t).where(games_t.c.table_code == code)
                                .order_by(games_t.c.game_no)).mappings().all()
        return [_game_info(r) for r in rows]

    def finished_games(self, limit: int = 50) -> list[GameInfo]:
        with self.reads.connect() as conn:
            rows = conn.execute(FINISHED_GAMES, {"limit": limit}).mappings().all()
        return [_game_info(r) for r in rows]

    def player_games(self, key: str) -> list[tuple[GameInfo, int]]:
        """Every finished game a player (by `name_key`) sat at, latest first, with their seat."""
        query = (select(games_t, player_games_t.c.seat)
                 .join(player_games_t, (player_games_t.c.table_code == games_t.c.table_code)
                       & (player_games_t.c.game_no == games_t.c.game_no))
                 .where(player_games_t.c.name_key == key, games_t.c.finished_at.is_not(None))
                 .order_by(games_t.c.finished_at.desc(), games_t.c.table_code, games_t.c.game_no))
        with self.reads.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [(_game_info(r), r["seat"]) for r in rows]

    def start_next_game(self, code: str, after_game_no: int) -> int:
        """Rematch: open game number after_game_no + 1 unless another request already did."""
        with self.engine.begin() as conn:
            table = conn.execute(select(tables_t).where(tables_t.c.code == code)).mappings().one()
            if table["current_game"] != after_game_no:
                return table["current_game"]
            nxt = after_game_no + 1
            try:
                with conn.begin_nested():
                    conn.execute(insert(games_t).values(
                        table_code=code, game_no=nxt, game=table["game"], options=table["options"],
                        started_at=now()))
            except IntegrityError:
                return nxt
            conn.execute(update(tables_t).where(tables_t.c.code == code).values(current_game=nxt))
        self._changed(code)
        return nxt

    # ---- the entry log ----------------------------------------------------
    def version(self, code: str, game_no: int) -> int:
        with self.reads.connect() as conn:
            return conn.execute(VERSION, {"code": code, "game_no": game_no}).scalar_one()

    def poll_marker(self, code: str) -> tuple[int, int, int] | None:
        """(current game number, its last sequence number, changes of seats), in one query: what a poll
        compares."""
        rows = self._poll_marker.rows({"code": code})
        return tuple(rows[0].values()) if rows else None

    def markers(self, codes) -> dict[str, tuple[int, int, int]]:
        """poll_marker of several tables in one query (what the live watcher compares)."""
        codes = list(codes)
        if len(codes) == 1:  # a change heard for one table, the usual case: the poll's own statement
            marker = self.poll_marker(codes[0])
            return {codes[0]: marker} if marker is not None else {}
        with self.reads.connect() as conn:
            rows = conn.execute(MARKERS, {"codes": list(codes)}).all()
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def entries(self, code: str, game_no: int) -> list[Entry]:
        with self.reads.connect() as conn:
            rows = conn.execute(ENTRIES, {"code": code, "game_no": game_no}).mappings().all()
        return [_entry(r) for r in rows]

    def entries_after(self, code: str, game_no: int, seq: int) -> list[Entry]:
        """The entries of a game logged after sequence number `seq`, in order."""
        return [_entry(r) for r in self._entries_after.rows({"code": code, "game_no": game_no, "after": seq})]

    def entry_by_key(self, code: str, game_no: int, seat: int | None, key: str) -> Entry | None:
        with self.reads.connect() as conn:
            if seat is None:
                row = conn.execute(ENTRY_BY_HOST_KEY, {"code": code, "game_no": game_no, "key": key})
            else:
                row = conn.execute(ENTRY_BY_KEY, {"code": code, "game_no": game_no, "seat": seat, "key": key})
            row = row.mappings().first()
        return _entry(row) if row else None

    def append(self, code: str, game_no: int, expected_seq: int, seat: int | None, kind: str,
               payload: dict, key: str | None, device: str | None = None,
               finished: dict | None = None, holder: str | None = None) -> Entry:
        """Append an entry at expected_seq; raise Conflict if that number is taken. `device`: the
        writer's fingerprint. `finished`: the result, when this entry ends the game (recorded in
        the same transaction). `holder`: a seat token; the entry is written only while it is still
        `seat`'s and `game_no` still the table's current game (else NoLongerHeld)."""
        stamp = now()
        row = dict(table_code=code, game_no=game_no, seq=expected_seq, seat=seat, kind=kind,
                   payload=_payload_json(payload), key=key, created_at=stamp, device=device)
        if holder:
            row["holder"] = holder
        try:
            if finished is None:
                written = (self._append_while_held if holder else self._append).write(row)
            else:
                with self.engine.begin() as conn:
                    written = conn.execute(APPEND_WHILE_HELD if holder else APPEND, row).rowcount
                    if not written:
                        raise NoLongerHeld(code)
                    done = conn.execute(update(games_t).where(
                        games_t.c.table_code == code, games_t.c.game_no == game_no,
                        games_t.c.finished_at.is_(None)).values(finished_at=stamp, result=finished)).rowcount
                    if done:
                        conn.execute(insert(player_games_t), _player_rows(code, game_no, finished))
            if not written:
                raise NoLongerHeld(code)
        except IntegrityError as exc:
            raise Conflict(str(exc)) from None
        except OperationalError as exc:  # SQLite: "database is locked" after the busy timeout
            if "locked" in str(exc).lower():
                time.sleep(0.01)
                raise Conflict(str(exc)) from None
            raise
        self._changed(code)
        return Entry(expected_seq, seat, kind, payload, key, stamp, device)


    # ---- games' own documents --------------------------------------------------------
    def documents(self, game: str, collection: str) -> list[Document]:
        """Every document of a game's collection, by name."""
        with self.reads.connect() as conn:
            rows = conn.execute(select(documents_t).where(
                documents_t.c.game == game, documents_t.c.collection == collection)
                .order_by(documents_t.c.name)).mappings().all()
        return [_document(r) for r in rows]

    def document(self, game: str, collection: str, name: str) -> Document | None:
        with self.reads.connect() as conn:
            row = conn.execute(select(documents_t).where(
                documents_t.c.game == game, documents_t.c.collection == collection,
                documents_t.c.name == name)).mappings().first()
        return _document(row) if row else None

    def save_document(self, game: str, collection: str, name: str, data: dict, owner: str | None = None) -> None:
        """Insert or replace a document (two writers at once: the last one wins). A replaced
        document keeps its first owner."""
        where = (documents_t.c.game == game, documents_t.c.collection == collection, documents_t.c.name == name)
        for _ in range(3):
            try:
                with self.engine.begin() as conn:
                    done = conn.execute(update(documents_t).where(*where)
                                        .values(data=data, updated_at=now())).rowcount
                    if not done:
                        conn.execute(insert(documents_t).values(
                            game=game, collection=collection, name=name, data=data, owner=owner,
                            updated_at=now()))
                return
            except IntegrityError:
                continue  # inserted by someone else meanwhile: update it instead

    def create_document(self, game: str, collection: str, name: str, data: dict, owner: str | None) -> bool:
        """Insert a new document; False (and nothing changed) if the name is already taken."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(documents_t).values(game=game, collection=collection, name=name, data=data,
                                                        owner=owner, updated_at=now()))
        except IntegrityError:
            return False
        return True

    def delete_document(self, game: str, collection: str, name: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(documents_t.delete().where(
                documents_t.c.game == game, documents_t.c.collection == collection, documents_t.c.name == name))


def _entry(r) -> Entry:
    return Entry(r["seq"], r["seat"], r["kind"], json.loads(r["payload"]), r["key"], r["created_at"], r["device"])


def _document(r) -> Document:
    return Document(r["name"], r["data"], r["owner"], r["updated_at"])


def _game_info(r) -> GameInfo:
    finished = r["finished_at"]
    return GameInfo(r["table_code"], r["game_no"], r["game"], r["options"], _aware(r["started_at"]),
                    _aware(finished) if finished is not None else None, r["result"])
