"""The database: its tables, the statements every request runs, and making or upgrading the schema.

Storage has no game-specific table: a game's state is the replay of its entries (storage.py), and what
a game keeps beyond its tables goes into `documents` under its own name.
"""
from __future__ import annotations

import secrets
import time
from datetime import datetime, timezone

from sqlalchemy import (
    JSON, Boolean, Column, DateTime, ForeignKeyConstraint, Index, Integer, MetaData,
    PrimaryKeyConstraint, String, Table, Text, TypeDecorator, UniqueConstraint, bindparam, func, insert, inspect, select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.schema import CreateIndex

# Look-alike characters (0/O, 1/I/L, 2/Z, 5/S, 8/B) are left out of table codes.
CODE_ALPHABET = "34679ACDEFGHJKMNPQRTUVWXY"
CODE_LENGTH = 6

metadata = MetaData()


class UTCDateTime(TypeDecorator):
    """A moment, stored in UTC and always read back timezone-aware in UTC: SQLite keeps no zone (its
    text has none after a restart), and PostgreSQL answers in its session's zone. A moment without a
    zone is taken to be UTC, as the app has always written them."""

    impl = DateTime
    cache_ok = True

    def __init__(self):
        super().__init__(timezone=True)

    @property
    def python_type(self) -> type:
        return datetime

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        return None if value is None else in_utc(value)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        return None if value is None else in_utc(value)


def in_utc(stamp: datetime) -> datetime:
    """`stamp` as timezone-aware UTC (one without a zone is UTC already)."""
    return stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None else stamp.astimezone(timezone.utc)


tables_t = Table(
    "tables", metadata,
    Column("code", String(CODE_LENGTH), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("host_token", String(64), nullable=False),
    Column("pass_and_play", Boolean, nullable=False, default=False),
    Column("current_game", Integer, nullable=False, default=1),
    Column("created_at", UTCDateTime(), nullable=False),
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
    Column("started_at", UTCDateTime(), nullable=False),
    Column("finished_at", UTCDateTime(), nullable=True),
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
    Column("created_at", UTCDateTime(), nullable=False),
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
    Column("updated_at", UTCDateTime(), nullable=False),
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
    Column("retired_at", UTCDateTime(), nullable=False),
)

# Single-use links that move a seat to another phone; only a hash of the link's token is kept.
handovers_t = Table(
    "handovers", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("table_code", String(CODE_LENGTH), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("used_at", UTCDateTime(), nullable=True),
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
# An idempotency key is answered once per table, in whichever game it was first sent (a resend after a
# rematch writes nothing): looked up over every game of the table, the first use first.
ENTRY_BY_KEY = select(entries_t).where(
    entries_t.c.table_code == _CODE, entries_t.c.seat == bindparam("seat"), entries_t.c.key == bindparam("key")
).order_by(entries_t.c.game_no, entries_t.c.seq).limit(1)
ENTRY_BY_HOST_KEY = select(entries_t).where(  # a host action: its seat is NULL, which `=` never matches
    entries_t.c.table_code == _CODE, entries_t.c.seat.is_(None), entries_t.c.key == bindparam("key")
).order_by(entries_t.c.game_no, entries_t.c.seq).limit(1)
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


def player_rows(code: str, game_no: int, result: dict) -> list[dict]:
    return [{"name_key": name_key(n), "table_code": code, "game_no": game_no, "seat": seat}
            for seat, n in enumerate(result.get("names") or [])]


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


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_pin() -> str:
    return f"{secrets.randbelow(10 ** 6):06d}"


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


def move_older_tables(engine: Engine, moves) -> int:
    """Documents an older release kept in a table of their own (columns `name` and `data`) move into
    the collection that keeps them now: for each (game, collection, table) of `moves` whose table
    exists while the collection is still empty. The old table is left as it was. How many moved."""
    moved = 0
    for game, collection, table_name in moves:
        if not inspect(engine).has_table(table_name):
            continue
        where = (documents_t.c.game == game, documents_t.c.collection == collection)
        old = Table(table_name, MetaData(), Column("name", String(60)), Column("data", JSON))
        with engine.connect() as conn:
            if conn.execute(select(documents_t.c.name).where(*where).limit(1)).first() is not None:
                continue
            rows = conn.execute(select(old.c.name, old.c.data)).all()
        stamp = datetime.now(timezone.utc)
        documents = [{"game": game, "collection": collection, "name": name, "data": data, "owner": None,
                      "updated_at": stamp} for name, data in rows if isinstance(name, str) and isinstance(data, dict)]
        try:
            if documents:
                with engine.begin() as conn:
                    conn.execute(insert(documents_t), documents)
            moved += len(documents)
        except IntegrityError:
            pass  # another process starting at the same time moved them
    return moved


def index_players(engine: Engine) -> None:
    """Games finished before the player index existed get their rows (once: the index is empty)."""
    with engine.connect() as conn:
        if conn.execute(select(player_games_t.c.seat).limit(1)).first() is not None:
            return
        rows = conn.execute(select(games_t.c.table_code, games_t.c.game_no, games_t.c.result)
                            .where(games_t.c.finished_at.is_not(None))).all()
    index = [r for code, no, result in rows for r in player_rows(code, no, result or {})]
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
