"""What an import checks before it writes anything: every row as the routes would have written it.

A backup is a file anybody could have edited, so nothing in it is taken on trust: each value has its
column's type and length and is text a database and a page can hold (no NUL, no broken character);
each table is complete (its seats numbered from the first, its games from 1 to the current one, each
game's entries from 1 with no gap); every game's log is replayed through the rules exactly as
`play.record` checks an entry, and what it records (finished or not, the result, the players index)
must be what that replay gives; names pass the checks a new table's names pass; hand-over links and
moved seats point at seats the table has, a hand-over link lives no longer than the host screen makes
one live, and none still works (whoever edited the file may have planted it); documents pass the
checks of the game's own pages. The first problem found refuses the whole file, named for the person
importing.
"""
from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from sqlalchemy import JSON, Boolean, Integer, String, Table

from ..core.contract import RuleError
from ..core.play import MAX_NAME_LENGTH, TableError, check_key, checked_log, name_refusal, result_of
from ..core.registry import GAMES
from .schema import CODE_ALPHABET, CODE_LENGTH, metadata, player_rows
from ..core.records import HANDOVER_MINUTES, Entry, GameInfo, Seat, TableInfo

BIGGEST_WHOLE_NUMBER = 2 ** 31 - 1  # what an INTEGER column holds in PostgreSQL


class BackupError(Exception):
    """A backup that cannot be read or imported; the message says why, for the person running it."""


# ---- values, column by column --------------------------------------------------------------------
def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "holds a NUL character"
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        return "holds a broken character (half of a surrogate pair)"
    return None


def _json_problem(value) -> str | None:
    """The first bad text anywhere in a JSON value (keys included)."""
    if isinstance(value, str):
        return _text_problem(value)
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list):
        return next(filter(None, map(_json_problem, value)), None)
    return None


def _whole_number(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= BIGGEST_WHOLE_NUMBER


def _value_problem(column, value) -> str | None:
    if value is None:
        return None if column.nullable else "is missing"
    kind = column.type
    if kind.python_type is datetime:  # the store's UTCDateTime wraps DateTime
        return None if isinstance(value, str) and _stamp(value) is not None else "is not a date and time"
    if isinstance(kind, Boolean):
        return None if isinstance(value, bool) else "is not true or false"
    if isinstance(kind, Integer):
        return None if _whole_number(value) else "is not a whole number"
    if isinstance(kind, JSON):
        return _json_problem(value)
    if isinstance(kind, String):
        if not isinstance(value, str):
            return "is not text"
        if kind.length and len(value) > kind.length:
            return f"is longer than {kind.length} characters"
        return _text_problem(value)
    return None


def check_values(table: Table, part: dict) -> None:
    """Every value of one table of the file has its column's type, length and plain text."""
    columns = [table.columns[name] for name in part["columns"]]
    lacking = [c.name for c in table.columns if c.name not in part["columns"] and not c.nullable and c.default is None
               and c.server_default is None]
    if lacking:
        raise BackupError(f"The backup's {table.name} lack the column {lacking[0]}. Nothing was imported.")
    for number, row in enumerate(part["rows"], 1):
        for column, value in zip(columns, row):
            problem = _value_problem(column, value)
            if problem:
                raise BackupError(f"The backup's {table.name} row {number}: {column.name} {problem}. "
                                  "Nothing was imported.")


def _stamp(value: str) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


# ---- the file as rows ------------------------------------------------------------------------------
class BackupRows:
    """The file's rows as dicts (a column the file lacks reads as None), grouped the way tables hold them."""

    def __init__(self, tables: dict):
        self.parts = tables
        self.rows = {t.name: self._dicts(t, tables.get(t.name)) for t in metadata.sorted_tables}
        self.by_table = {name: self._grouped(rows) for name, rows in self.rows.items()}
        self.tables = {r["code"]: r for r in self.rows["tables"]}

    @staticmethod
    def _dicts(table: Table, part: dict | None) -> list[dict]:
        if not part:
            return []
        absent = {c.name: c.default.arg if c.default is not None and c.default.is_scalar else None
                  for c in table.columns}
        return [absent | dict(zip(part["columns"], row)) for row in part["rows"]]

    @staticmethod
    def _grouped(rows: list[dict]) -> dict[str, list[dict]]:
        grouped = defaultdict(list)
        for row in rows:
            if "table_code" in row:
                grouped[row["table_code"]].append(row)
        return grouped


def _refuse(where: str, problem: str):
    raise BackupError(f"{where}: {problem} Nothing was imported.")


# ---- a table, its seats and its games --------------------------------------------------------------
def _check_table_row(row: dict) -> None:
    where = f"Table {row['code']}"
    code = row["code"]
    if len(code) != CODE_LENGTH or not set(code) <= set(CODE_ALPHABET):
        _refuse(f"Table {code!r}", "that is not a table code.")
    game = GAMES.get(row["game"])
    if game is None:
        _refuse(where, f"it plays {row['game']!r}, a game this server does not have.")
    # options are checked as the start page checks them, not compared with what it makes of them now:
    # a table keeps the options it was made with (an option added since is not in an older table's)
    if not isinstance(row["options"], dict):
        _refuse(where, "its options are not a JSON object.")
    try:
        game.normalize_options(row["options"])
    except RuleError as exc:
        _refuse(where, f"its options are refused: {exc.reason}")
    if not row["host_token"] or row["join_secret"] == "":  # None: a backup older than join links
        _refuse(where, "it has no host or join secret.")
    if row["pin"] is not None and not (len(row["pin"]) == 6 and row["pin"].isascii() and row["pin"].isdigit()):
        _refuse(where, "its PIN is not six digits.")


def _seats(row: dict, seat_rows: list[dict]) -> tuple[Seat, ...]:
    where = f"Table {row['code']}"
    game = GAMES[row["game"]]
    seat_rows = sorted(seat_rows, key=lambda s: s["seat"])
    if [s["seat"] for s in seat_rows] != list(range(len(seat_rows))):
        _refuse(where, "its seats are not numbered from the first one on.")
    if not game.min_players <= len(seat_rows) <= game.max_players:
        _refuse(where, f"{game.title} is for {game.min_players} to {game.max_players} players, "
                       f"and it has {len(seat_rows)}.")
    for s in seat_rows:
        refusal = name_refusal(s["name"], "A player name", MAX_NAME_LENGTH)
        if refusal or s["name"] != " ".join(s["name"].split()):
            _refuse(where, f"seat {s['seat'] + 1}'s name is not one the start page takes. "
                           f"{refusal or 'It has extra spaces.'}")
        if not s["token"]:
            _refuse(where, f"seat {s['seat'] + 1} has no token.")
    return tuple(Seat(s["seat"], s["name"], s["token"], s["claimed"], s["generation"] or 0) for s in seat_rows)


def _table_info(row: dict, seats: tuple[Seat, ...]) -> TableInfo:
    return TableInfo(row["code"], row["game"], row["options"], row["host_token"], row["pass_and_play"],
                     row["current_game"], _stamp(row["created_at"]), seats, row["join_secret"], row["pin"] or "")


def _entries(where: str, rows: list[dict]) -> list[Entry]:
    entries = []
    for r in sorted(rows, key=lambda e: e["seq"]):
        try:
            payload = json.loads(r["payload"])
            check_key(r["key"])
        except (json.JSONDecodeError, RecursionError):
            payload = None
        except TableError as exc:
            _refuse(where, f"entry {r['seq']}: {exc.reason}")
        if not isinstance(payload, dict):
            _refuse(where, f"entry {r['seq']} is not a JSON object.")
        entries.append(Entry(r["seq"], r["seat"], r["kind"], payload, r["key"], _stamp(r["created_at"]), r["device"]))
    return entries


ADDED_TO_RESULTS = ("records", "categories")  # figures a result kept since a later version


def _same_result(recorded, replayed: dict) -> bool:
    """Does the result the file records say what the replay says? (An older result may lack a
    figure added since: only what it holds is compared.)"""
    return isinstance(recorded, dict) and all(recorded.get(k) == v for k, v in replayed.items()
                                              if k in recorded or k not in ADDED_TO_RESULTS)


def _check_game(file: BackupRows, table: TableInfo, row: dict) -> None:
    where = f"Table {table.code}, game {row['game_no']}"
    if row["game"] != table.game or row["options"] != table.options:
        _refuse(where, "it plays another game, or with other options, than its table.")
    info = GameInfo(table.code, row["game_no"], row["game"], row["options"], _stamp(row["started_at"]),
                    _stamp(row["finished_at"]) if row["finished_at"] else None, row["result"])
    entries = _entries(where, [e for e in file.by_table["entries"][table.code] if e["game_no"] == row["game_no"]])
    try:
        rep = checked_log(table, info, entries)
    except TableError as exc:
        _refuse(where, exc.reason)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError):
        _refuse(where, "its entries cannot be replayed (one is not an entry of this game).")
    if rep.finished != (row["finished_at"] is not None):
        _refuse(where, "its log and its end time disagree about whether it is over.")
    if rep.finished and not _same_result(row["result"], result_of(rep.game, rep.state, table)):
        _refuse(where, "the result it records is not what its entries add up to.")
    if not rep.finished and row["result"] is not None:
        _refuse(where, "it records a result but is not over.")
    if row["game_no"] < table.current_game and not rep.finished:
        _refuse(where, "a later game was started before this one was over.")


def _check_table(file: BackupRows, row: dict) -> None:
    _check_table_row(row)
    table = _table_info(row, _seats(row, file.by_table["seats"][row["code"]]))
    games = sorted(file.by_table["games"][row["code"]], key=lambda g: g["game_no"])
    if [g["game_no"] for g in games] != list(range(1, table.current_game + 1)):
        _refuse(f"Table {table.code}", f"its games are not numbered 1 to {table.current_game}, its current one.")
    if any(not 1 <= e["game_no"] <= table.current_game for e in file.by_table["entries"][table.code]):
        _refuse(f"Table {table.code}", "it has entries of a game it does not have.")
    for game in games:
        _check_game(file, table, game)


# ---- rows that belong to a table ------------------------------------------------------------------
def _check_belongs(file: BackupRows) -> None:
    """Every row that names a table names one in the file, and a seat that table has."""
    for name, grouped in file.by_table.items():
        for code, rows in grouped.items():
            table = file.tables.get(code)
            if table is None:
                _refuse(f"The backup's {name}", f"a row names table {code!r}, which the backup does not hold.")
            seats = len(file.by_table["seats"][code])
            if name != "entries" and any("seat" in r and not 0 <= r["seat"] < seats for r in rows):
                _refuse(f"Table {code}", f"a row of {name} names a seat the table does not have.")


def _check_handovers(file: BackupRows) -> None:
    """A hand-over link as the host screen makes one (for a few minutes), and none still open: a link
    in a file could have been put there by whoever wants the seat, so no import brings one that works."""
    now = datetime.now(timezone.utc)
    for row in file.rows["handovers"]:
        made, ends = _stamp(row["created_at"]), _stamp(row["expires_at"])
        used = _stamp(row["used_at"]) if row["used_at"] else None
        where = f"Table {row['table_code']}"
        if not timedelta(0) < ends - made <= timedelta(minutes=HANDOVER_MINUTES):
            _refuse(where, f"a hand-over link lives from {made:%Y-%m-%d %H:%M} to {ends:%Y-%m-%d %H:%M}; "
                           f"the host screen makes them for {HANDOVER_MINUTES} minutes.")
        if used is not None and not made <= used <= ends:
            _refuse(where, "a hand-over link was used outside the minutes it lived.")
        if used is None and ends > now:
            _refuse(where, f"a hand-over link in it still works until {ends:%H:%M} UTC; an import brings none "
                           "that does. Export again after that time.")


def _check_player_index(file: BackupRows) -> None:
    """The players index holds exactly the finished games' players (when the file has one)."""
    if "player_games" not in file.parts:
        return
    wanted = {tuple(r.values()) for g in file.rows["games"] if g["finished_at"] is not None
              for r in player_rows(g["table_code"], g["game_no"], g["result"])}
    found = {(r["name_key"], r["table_code"], r["game_no"], r["seat"]) for r in file.rows["player_games"]}
    if found != wanted:
        odd = sorted(found ^ wanted, key=str)[0]
        _refuse("The backup's player_games", f"its row for table {odd[1]}, game {odd[2]} does not match "
                                             "that game's result.")


def _check_documents(file: BackupRows) -> None:
    for row in file.rows["documents"]:
        game = GAMES.get(row["game"])
        where = f"The backup's document {row['name']!r}"
        if game is None or row["collection"] not in game.collections:
            _refuse(where, f"{row['game']!r} keeps no documents called {row['collection']!r} on this server.")
        refusal = game.document_refusal(row["collection"], row["name"], row["data"])
        if refusal:
            _refuse(where, refusal)


def check_backup(tables: dict) -> None:
    """Refuse (BackupError) the first row of the file the routes would not have written."""
    for table in metadata.sorted_tables:
        if tables.get(table.name):
            check_values(table, tables[table.name])
    file = BackupRows(tables)
    _check_belongs(file)
    for row in file.rows["tables"]:
        _check_table(file, row)
    _check_handovers(file)
    _check_player_index(file)
    _check_documents(file)
