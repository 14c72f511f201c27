"""What a table is, as the whole platform reads it: its seats, its games and their entries (plain
frozen records the store hands out), the errors an append can end in, and `TableLog`, what the play
service needs of a store. The store (store/storage.py) makes these; nothing here reads a database.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Protocol

HANDOVER_MINUTES = 10  # long enough to find the other phone, short enough that a lost link goes stale


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

    @property
    def invitation_mark(self) -> str:
        """Changes with the join link and PIN (a new one gets a new QR picture), and tells nothing of them."""
        return fingerprint(self.join_secret)[:12]


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


def now() -> datetime:
    return datetime.now(timezone.utc)


@lru_cache(maxsize=8192)  # each entry marks its device by it: the same few tokens, over and over
def fingerprint(token: str) -> str:
    """What the database keeps of a secret it only needs to recognise (and what marks a device)."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class TableLog(Protocol):
    """The store as the play service uses it (store.storage.Store is one): read a game's log, append
    to it, start a table. `url` names the database, so that replays kept in memory never mix two."""
    url: str

    def version(self, code: str, game_no: int) -> int: ...

    def game(self, code: str, game_no: int) -> GameInfo | None: ...

    def entries(self, code: str, game_no: int) -> list[Entry]: ...

    def entries_after(self, code: str, game_no: int, seq: int) -> list[Entry]: ...

    def entry_by_key(self, code: str, seat: int | None, key: str) -> Entry | None: ...

    def append(self, code: str, game_no: int, expected_seq: int, seat: int | None, kind: str,
               payload: dict, key: str | None, device: str | None = None,
               finished: dict | None = None, holder: str | None = None) -> Entry: ...

    def create_table(self, game: str, options: dict, names: list[str], pass_and_play: bool,
                     seats_taken: bool = False) -> TableInfo: ...
