"""Tables, seats, games and the append-only entry log, on SQLAlchemy Core.

A *table* is the group around the physical game: its code, host and seats. A table
plays a sequence of *games* (rematch starts the next one with the same seats). Each
game has its own log of entries; the game state is always the replay of that log.
"""
from __future__ import annotations

import json
import time
from contextlib import nullcontext
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, insert, select, tuple_, update
from sqlalchemy.exc import IntegrityError, OperationalError

from ..core.records import (
    Conflict, Document, Entry, GameInfo, Handover, NoLongerHeld, Seat, TableInfo, fingerprint, now,
)
from .engines import make_engine, normalize_url, reads_engine
from .schema import (
    APPEND, APPEND_WHILE_HELD, ENTRIES, ENTRIES_AFTER, ENTRY_BY_HOST_KEY, ENTRY_BY_KEY,
    FINISHED_GAMES, GAME, MARKERS, POLL_MARKER, TABLE_WITH_SEATS, VERSION, create_schema, documents_t,
    entries_t, move_older_tables, games_t, handovers_t, new_code, new_pin, new_token, player_games_t, player_rows,
    retired_tokens_t, seats_t, tables_t,
)


# an entry's payload as it is logged: compact JSON (json.dumps with separators makes an encoder per call)
_payload_json = json.JSONEncoder(separators=(",", ":")).encode


# A table nobody wrote a single entry at for this long was never played (a mistake, a test, a script
# flooding the server): it goes, so that tables made and left do not pile up without end. Looked for
# at most once a minute per process, when a table is made, a batch at a time.
UNUSED_TABLE_KEPT = timedelta(days=1)
UNUSED_TABLES_LOOKED_FOR_EVERY = 60.0  # seconds
UNUSED_TABLES_PER_PRUNE = 500


class Store:
    def __init__(self, url: str, older_tables=()):
        """`older_tables`: (game, collection, table) for each collection an older release kept in a
        table of its own; their rows move into the collection when it is still empty (Game.older_tables)."""
        self.url = normalize_url(url)
        self.engine = make_engine(url)
        self.reads = reads_engine(self.engine)
        create_schema(self.engine)
        move_older_tables(self.engine, older_tables)
        # SQLite: the checkpointer's second pass holds the entries' commits back (checkpoints.py)
        checkpoints = getattr(self.engine, "checkpoints", None)
        self.entry_writes = checkpoints.writers if checkpoints is not None else nullcontext()
        # called with a table's code after a commit that changes its marker (live/updates.py listens)
        self.change_listeners: list = []
        self.dispose_listeners: list = []
        self._prune_unused_at = 0.0

    def _changed(self, code: str) -> None:
        for listener in self.change_listeners:
            listener(code)

    def dispose(self) -> None:
        for listener in self.dispose_listeners:
            listener()
        if getattr(self.engine, "checkpoints", None) is not None:
            self.engine.checkpoints.stop()
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
                break
            except IntegrityError:
                continue  # code already taken: draw another
        else:
            raise RuntimeError("could not find a free table code")
        if time.monotonic() >= self._prune_unused_at:
            self._prune_unused_at = time.monotonic() + UNUSED_TABLES_LOOKED_FOR_EVERY
            self.prune_unused_tables(UNUSED_TABLE_KEPT)
        return self.table(code)

    def prune_unused_tables(self, kept: timedelta, most: int = UNUSED_TABLES_PER_PRUNE) -> int:
        """Delete up to `most` tables made more than `kept` ago at which no entry was ever written;
        how many went. A table that gets its first entry meanwhile stays (each delete asks again)."""
        never_played = ~exists().where(entries_t.c.table_code == tables_t.c.code)
        try:
            with self.engine.begin() as conn:
                codes = conn.execute(select(tables_t.c.code).where(
                    tables_t.c.created_at < now() - kept, never_played).limit(most)).scalars().all()
                if not codes:
                    return 0
                unused = select(tables_t.c.code).where(tables_t.c.code.in_(codes), never_played)
                for part in (handovers_t, retired_tokens_t, player_games_t, seats_t, games_t):
                    conn.execute(delete(part).where(part.c.table_code.in_(unused)))
                return conn.execute(delete(tables_t).where(tables_t.c.code.in_(codes), never_played)).rowcount
        except (IntegrityError, OperationalError):
            return 0  # a writer got there first: the next look takes them

    def table(self, code: str) -> TableInfo | None:
        with self.reads.connect() as conn:
            rows = conn.execute(TABLE_WITH_SEATS, {"code": code}).mappings().all()
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
        return Handover(row["seat"], row["expires_at"], row["used_at"] is not None) if row else None

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

    def renew_invitation(self, code: str) -> None:
        """A new join link and PIN for the table (the old ones no longer invite anyone)."""
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.code == code).values(join_secret=new_token(), pin=new_pin()))

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

    def finished_games(self, limit: int = 50, codes=None) -> list[GameInfo]:
        """The latest finished games, newest first; `codes`: only those of these tables."""
        with self.reads.connect() as conn:
            if codes is None:
                rows = conn.execute(FINISHED_GAMES, {"limit": limit}).mappings().all()
            else:
                rows = conn.execute(FINISHED_GAMES.where(games_t.c.table_code.in_(list(codes))),
                                    {"limit": limit}).mappings().all()
        return [_game_info(r) for r in rows]

    def tables_held(self, host_tokens: dict[str, str], seat_tokens: dict[str, str]) -> set[str]:
        """Which of these tables the tokens (code -> token) are the host's or a seat's token of."""
        found = set()
        with self.reads.connect() as conn:
            for column, key, pairs in ((tables_t.c.host_token, tables_t.c.code, host_tokens),
                                       (seats_t.c.token, seats_t.c.table_code, seat_tokens)):
                if pairs:
                    found.update(conn.execute(select(key).where(
                        tuple_(key, column).in_(list(pairs.items())))).scalars())
        return found

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
        with self.reads.connect() as conn:
            row = conn.execute(POLL_MARKER, {"code": code}).first()
        return tuple(row) if row is not None else None

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
        with self.reads.connect() as conn:
            rows = conn.execute(ENTRIES_AFTER, {"code": code, "game_no": game_no, "after": seq}).mappings().all()
        return [_entry(r) for r in rows]

    def entry_by_key(self, code: str, seat: int | None, key: str) -> Entry | None:
        """The entry `seat` (None: the host) first sent under idempotency key `key`, in any game of the table."""
        with self.reads.connect() as conn:
            if seat is None:
                row = conn.execute(ENTRY_BY_HOST_KEY, {"code": code, "key": key})
            else:
                row = conn.execute(ENTRY_BY_KEY, {"code": code, "seat": seat, "key": key})
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
            with self.entry_writes, self.engine.begin() as conn:
                if not conn.execute(APPEND_WHILE_HELD if holder else APPEND, row).rowcount:
                    raise NoLongerHeld(code)
                if finished is not None:
                    _record_result(conn, code, game_no, stamp, finished)
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


def _record_result(conn, code: str, game_no: int, stamp: datetime, finished: dict) -> None:
    """Mark the game finished with its result, and who played it, within the entry's transaction."""
    done = conn.execute(update(games_t).where(
        games_t.c.table_code == code, games_t.c.game_no == game_no,
        games_t.c.finished_at.is_(None)).values(finished_at=stamp, result=finished)).rowcount
    if done:
        conn.execute(insert(player_games_t), player_rows(code, game_no, finished))


def _entry(r) -> Entry:
    return Entry(r["seq"], r["seat"], r["kind"], json.loads(r["payload"]), r["key"], r["created_at"], r["device"])


def _document(r) -> Document:
    return Document(r["name"], r["data"], r["owner"], r["updated_at"])


def _game_info(r) -> GameInfo:
    return GameInfo(r["table_code"], r["game_no"], r["game"], r["options"], r["started_at"], r["finished_at"],
                    r["result"])
