"""Every table, game, entry and document of a database as one JSON file, and back.

Generic over the schema (`metadata.sorted_tables`): a table or column added to schema.py is
in the next backup with no change here. The file says which columns it holds, so a backup made
before a column was added still imports (the column takes its default).

Importing is one transaction: a row already in the database and identical to the file's is
skipped (importing the same file twice changes nothing); a row whose key is there with other
contents refuses the whole import, and nothing is written.
"""
from __future__ import annotations

import json
import os
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, IO

from sqlalchemy import JSON, Table, func, null, select, text, tuple_
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .backup_checks import BackupError, check_backup
from .schema import metadata, new_pin, new_token

FORMAT = "companion-backup"
VERSION = 1
CHUNK = 500


# ---- values ------------------------------------------------------------------------------------
def _out(column, value) -> Any:
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:  # SQLite keeps no zone; storage writes UTC
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _in(column, value) -> Any:
    if value is None:
        return null() if isinstance(column.type, JSON) else None
    if column.type.python_type is datetime:
        try:
            stamp = datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise BackupError(f"{column.table.name}.{column.name}: {value!r} is not a date and time") from None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=timezone.utc)
        return stamp.astimezone(timezone.utc)
    return value


# ---- export ------------------------------------------------------------------------------------
def _snapshot(conn: Connection) -> None:
    """Read every table from one moment, even while a server writes."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN")
    elif conn.dialect.name == "postgresql":
        conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))


# What lets a device act at a table: a backup to share holds fresh random values nobody knows instead
# (every seat free, so the players join again; the host's screen is nobody's), and no hand-over links
# or moved seats' marks.
SECRET_VALUES = {("tables", "host_token"): new_token, ("tables", "join_secret"): new_token,
                 ("tables", "pin"): new_pin, ("seats", "token"): new_token, ("seats", "claimed"): lambda: False}
SECRET_TABLES = ("handovers", "retired_tokens")


def _without_secrets(name: str, columns: list[str], rows: list[list]) -> list[list]:
    if name in SECRET_TABLES:
        return []
    fresh = {i: SECRET_VALUES[(name, c)] for i, c in enumerate(columns) if (name, c) in SECRET_VALUES}
    return [[fresh[i]() if i in fresh else v for i, v in enumerate(row)] for row in rows] if fresh else rows


def dump(engine: Engine, without_secrets: bool = False) -> dict:
    """The whole database as a JSON-ready dict; `without_secrets`: safe to share (SECRET_VALUES)."""
    out = {"format": FORMAT, "version": VERSION, "exported_at": datetime.now(timezone.utc).isoformat(),
           "tables": {}}
    if without_secrets:
        out["without_secrets"] = True
    with engine.connect() as conn:
        _snapshot(conn)
        for table in metadata.sorted_tables:
            columns = list(table.columns)
            rows = conn.execute(select(table).order_by(*table.primary_key.columns)).all()
            names = [c.name for c in columns]
            encoded = [[_out(c, v) for c, v in zip(columns, row)] for row in rows]
            out["tables"][table.name] = {
                "columns": names,
                "rows": _without_secrets(table.name, names, encoded) if without_secrets else encoded,
            }
        conn.rollback()
    return out


def export_all(engine: Engine, path: str, without_secrets: bool = False) -> dict[str, int]:
    """Write the backup to `path` ('-': standard output), whole or not at all; rows per table."""
    data = dump(engine, without_secrets)
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if path == "-":
        print(body)
    else:
        tmp = Path(f"{path}.{os.getpid()}.tmp")
        try:
            tmp.write_text(body, encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise BackupError(f"Cannot write {path}: {exc.strerror}.") from None
    return {name: len(t["rows"]) for name, t in data["tables"].items()}


# ---- import ------------------------------------------------------------------------------------
def read_backup(source: IO[str] | str) -> dict:
    try:
        if isinstance(source, str):
            with open(source, encoding="utf-8") as f:
                data = json.load(f)
        else:
            data = json.load(source)
    except FileNotFoundError:
        raise BackupError(f"There is no file {source}.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BackupError(f"That is not a backup file (not readable JSON: {exc}).") from None
    except RecursionError:
        raise BackupError("That is not a backup file (its JSON is nested deeper than any backup's).") from None
    _check_shape(data)
    return data


def _check_shape(data) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError("That is not a companion backup (made by `python -m companion export-all`).")
    if data.get("version") != VERSION:
        raise BackupError(f"This backup has format version {data.get('version')!r}; this version of the "
                          f"companion reads version {VERSION}.")
    tables = data.get("tables")
    if not isinstance(tables, dict):
        raise BackupError("The backup holds no tables.")
    known = {t.name: t for t in metadata.sorted_tables}
    for name, part in tables.items():
        if name not in known:
            raise BackupError(f"The backup has a table {name!r} this version of the companion does not know.")
        if not isinstance(part, dict) or not isinstance(part.get("columns"), list) or not isinstance(
                part.get("rows"), list):
            raise BackupError(f"The backup's table {name!r} is damaged.")
        unknown = [c for c in part["columns"] if c not in known[name].columns]
        if unknown:
            raise BackupError(f"The backup's table {name!r} has columns this version does not know: "
                              f"{', '.join(map(str, unknown))}.")
        if any(not isinstance(r, list) or len(r) != len(part["columns"]) for r in part["rows"]):
            raise BackupError(f"The backup's table {name!r} has a damaged row.")


def _rows(table: Table, part: dict) -> list[dict]:
    columns = [table.columns[name] for name in part["columns"]]
    return [{c.name: _in(c, v) for c, v in zip(columns, row)} for row in part["rows"]]


def _key(table: Table, row: dict) -> tuple:
    return tuple(row.get(c.name) for c in table.primary_key.columns)


def _existing(conn: Connection, table: Table, keys: list[tuple]) -> dict[tuple, dict]:
    """The rows already in `table` with these primary keys, in the backup's encoding."""
    pk = list(table.primary_key.columns)
    found = {}
    for i in range(0, len(keys), CHUNK):
        chunk = keys[i:i + CHUNK]
        where = pk[0].in_([k[0] for k in chunk]) if len(pk) == 1 else tuple_(*pk).in_(chunk)
        for row in conn.execute(select(table).where(where)).mappings():
            found[tuple(row[c.name] for c in pk)] = {c.name: _out(c, row[c.name]) for c in table.columns}
    return found


def _same(table: Table, encoded: list, columns: list[str], there: dict) -> bool:
    """Does the row already there hold what the file says (compared in the file's encoding)?"""
    for name, value in zip(columns, encoded):
        column = table.columns[name]
        if value is not None and column.type.python_type is datetime:
            value = _out(column, _in(column, value))
        if there.get(name) != value:
            return False
    return True


def _import_table(conn: Connection, table: Table, part: dict) -> tuple[int, int]:
    """(rows added, identical rows skipped) for one table."""
    rows = _rows(table, part)
    if not rows:
        return 0, 0
    there = _existing(conn, table, [_key(table, r) for r in rows])
    new = []
    for row, encoded in zip(rows, part["rows"]):
        key = _key(table, row)
        if key not in there:
            new.append(row)
        elif not _same(table, encoded, part["columns"], there[key]):
            shown = ", ".join(f"{c.name}={k}" for c, k in zip(table.primary_key.columns, key))
            raise BackupError(f"The database already has a different row in {table.name} ({shown}); "
                              "nothing was imported. Import into an empty database, or remove that row first.")
    if new:
        conn.execute(table.insert(), new)
    return len(new), len(rows) - len(new)


def _catch_up_sequences(conn: Connection) -> None:
    """PostgreSQL: counters of auto-numbered keys must start after the imported numbers."""
    if conn.dialect.name != "postgresql":
        return
    for table in metadata.sorted_tables:
        column = table.autoincrement_column
        if column is not None:
            conn.execute(select(func.setval(func.pg_get_serial_sequence(table.name, column.name),
                                            select(func.coalesce(func.max(column), 0) + 1).scalar_subquery(),
                                            False)))


def load(engine: Engine, data: dict) -> dict[str, tuple[int, int]]:
    """Import a backup read by `read_backup`; per table (rows added, identical rows skipped)."""
    _check_shape(data)
    check_backup(data["tables"])  # every row as the routes would have written it (backup_checks.py)
    done = {}
    try:
        with engine.begin() as conn:
            for table in metadata.sorted_tables:
                part = data["tables"].get(table.name)
                if part is not None:
                    done[table.name] = _import_table(conn, table, part)
            _catch_up_sequences(conn)
    except IntegrityError as exc:
        raise BackupError("The backup does not fit this database (a row clashes with one already there "
                          f"or lacks one it needs): {str(exc.orig).splitlines()[0]}. Nothing was imported.") from None
    return done


def import_all(engine: Engine, path: str) -> dict[str, tuple[int, int]]:
    """Import the backup at `path` ('-': standard input)."""
    return load(engine, read_backup(sys.stdin if path == "-" else path))
