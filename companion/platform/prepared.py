"""The few statements every request runs, compiled once and run on the driver's own cursor.

SQLAlchemy's Core spends 40 to 60 microseconds around each statement it runs (an execution context,
parameter and result objects), more than SQLite itself takes to answer a table's read. For the
statements of the hot paths (a table's read, a poll's marker, an entry's append) that was most of
the database's share of a request (bench/bench_hot_paths.py, docs/benchmarks.md). A `Prepared`
statement is SQLAlchemy's own compiled text for the engine's dialect, with the column types' own
bind and result conversions, run on a connection of the engine's own pool (so its checkout checks,
pings and invalidation still apply). What the driver raises is raised as SQLAlchemy's error for it,
so every caller, and the 503 of a database fault, sees what it saw before.

On SQLite the statements share one connection of the pool, kept out of it (`KeptConnection`): checking
a connection out of SQLAlchemy's pool and back in took 40 µs a statement in process, about 70 in the
server, more than SQLite's own insert and commit of an entry.
"""
from __future__ import annotations

import operator
import os
import threading
import weakref
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError


# what a forked child inherited from its parent and must neither use nor close (closing a copy of an
# SQLite connection in the child would drop the child's own locks on the file): kept for its lifetime
_parents: list = []


def in_forked_child(owner, set_aside: Callable[[object], None]) -> None:
    """`set_aside(owner)` in each process forked after this (a worker of a server that loads the app
    first), right after the fork, while `owner` is still alive."""
    if not hasattr(os, "register_at_fork"):  # no fork on Windows, nor this hook
        return
    owner_of = weakref.ref(owner)

    def hook() -> None:
        alive = owner_of()
        if alive is not None:
            set_aside(alive)
    os.register_at_fork(after_in_child=hook)


def own_pool_after_fork(engine: Engine) -> None:
    """A forked child starts a pool of its own instead of using its parent's connections: SQLAlchemy's
    way, a dispose that closes nothing, with the parent's pool set aside."""
    in_forked_child(engine, _set_pool_aside)


def _set_pool_aside(engine: Engine) -> None:
    _parents.append(engine.pool)
    engine.dispose(close=False)


class KeptConnection:
    """One connection of an SQLite engine's pool, kept out of it for the prepared statements.

    A statement on SQLite never waits on a socket, so under gevent no other request runs while one
    is on the connection; with threads, the lock takes them in turn. Before each statement the
    connection must still pass `usable` (engines.py: it still writes to the file at the path, the
    check the pool makes at checkout); if not, or if it was invalidated, it goes back to the pool,
    which discards it, and the next one is checked out as usual. A failed write is rolled back, as the
    pool does when a connection comes back."""

    def __init__(self, engine: Engine, usable: Callable[[object], bool]):
        self.engine, self.usable = engine, usable
        self.lock = threading.Lock()
        self.fairy = None
        self.disposed = False  # the engine's pool was replaced: so is the kept connection
        event.listen(engine, "engine_disposed", lambda _engine: setattr(self, "disposed", True))
        in_forked_child(self, KeptConnection._set_aside)  # a forked worker never shares its parent's

    def _set_aside(self) -> None:
        _parents.append(self.fairy)
        self.fairy = None

    def acquire(self):
        self.lock.acquire()
        try:
            if self.fairy is not None and (self.disposed or not (self.fairy.is_valid and self.usable(self.fairy))):
                self._give_back()
            self.disposed = False
            if self.fairy is None:
                self.fairy = self.engine.raw_connection()
            return self.fairy
        except BaseException:
            self.lock.release()
            raise

    def release(self, failed: bool) -> None:
        try:
            if failed and self.fairy is not None:
                if self.fairy.is_valid:
                    self.fairy.rollback()
                else:
                    self._give_back()
        finally:
            self.lock.release()

    def close(self) -> None:
        with self.lock:
            if self.fairy is not None:
                self._give_back()

    def _give_back(self) -> None:
        fairy, self.fairy = self.fairy, None
        try:
            fairy.close()
        except Exception:  # noqa: BLE001 - a connection that cannot even close is dropped all the same
            pass


def _taker(order: tuple[str, ...]) -> Callable[[dict], tuple]:
    """The values of the parameters named in `order`, as a tuple in that order (itemgetter gives a
    single value, not a tuple, for one name)."""
    if len(order) > 1:
        return operator.itemgetter(*order)
    if order:
        name = order[0]
        return lambda params: (params[name],)
    return lambda params: ()


class Prepared:
    """One statement, for one engine: `rows(params)` for a select, `write(params)` for a change."""

    def __init__(self, engine: Engine, statement, column_keys=None, kept: KeptConnection | None = None):
        self.engine, self.kept = engine, kept
        self.dialect = dialect = engine.dialect
        compiled = statement.compile(dialect=dialect, column_keys=column_keys)
        self.sql = compiled.string
        order = tuple(compiled.positiontup) if compiled.positional else None
        # values written into the statement itself (a coalesce's 0): SQLAlchemy binds those too
        self.fixed = {name: bind.value for name, bind in compiled.binds.items() if not bind.required}
        self.to_driver = {name: proc for name, bind in compiled.binds.items()
                          if (proc := bind.type.dialect_impl(dialect).bind_processor(dialect))}
        # SQLite's question marks: their parameters in order, taken in one step, and where in that order
        # a value is converted (the rest go as they are)
        self.take = _taker(order) if order is not None else None  # None: PostgreSQL's driver takes names
        self.converted = tuple((at, self.to_driver[name]) for at, name in enumerate(order or ())
                               if name in self.to_driver)
        columns = statement.selected_columns if hasattr(statement, "selected_columns") else ()
        self.keys = tuple(columns.keys()) if columns else ()
        processors = [c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns]
        self.from_driver = [(i, key, proc) for i, (key, proc) in enumerate(zip(self.keys, processors)) if proc]
        # PostgreSQL: one statement in a transaction of its own is three round trips (BEGIN, it, and
        # COMMIT or ROLLBACK; see engines.reads_engine). Each statement here is whole by itself (an
        # append is one INSERT ... SELECT), so it runs in autocommit: one round trip.
        self.autocommit = dialect.name == "postgresql"

    def _params(self, params: dict):
        merged = {**self.fixed, **params} if self.fixed else params
        if self.take is None:
            return {k: (self.to_driver[k](v) if k in self.to_driver else v) for k, v in merged.items()}
        values = self.take(merged)
        if not self.converted:
            return values
        values = list(values)
        for at, convert in self.converted:
            values[at] = convert(values[at])
        return tuple(values)

    def rows(self, params: dict) -> list[dict]:
        """The rows a select answers, as {column key: value}. A value the driver gives again in a later
        row (a table's columns beside each of its seats) is converted once, and the rows share it."""
        out, converted = [], {}
        for row in self._run(params, write=False):
            item = dict(zip(self.keys, row))
            for i, key, proc in self.from_driver:
                seen = (i, row[i])
                if seen not in converted:
                    converted[seen] = proc(row[i])
                item[key] = converted[seen]
            out.append(item)
        return out

    def write(self, params: dict) -> int:
        """Run the statement as a transaction of its own and commit it; the rows it changed."""
        return self._run(params, write=True)

    def _checkout(self):
        """A connection of the engine's pool (its checkout checks and pings run here), or the kept one."""
        try:
            return self.kept.acquire() if self.kept is not None else self.engine.raw_connection()
        except self.dialect.loaded_dbapi.Error as exc:  # no connection could be made
            lost = self.dialect.is_disconnect(exc, None, None)
            raise DBAPIError.instance(None, None, exc, self.dialect.loaded_dbapi.Error,
                                      connection_invalidated=lost, dialect=self.dialect) from exc

    def _run(self, params: dict, write: bool):
        if self.kept is not None:
            return self._run_kept(params, write)
        fairy = self._checkout()
        cursor = None
        try:
            if self.autocommit:
                self.dialect.set_isolation_level(fairy.dbapi_connection, "AUTOCOMMIT")
            cursor = fairy.cursor()
            cursor.execute(self.sql, self._params(params))
            if not write:
                return cursor.fetchall()
            if not self.autocommit:
                fairy.commit()
            return cursor.rowcount
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._failed(exc, fairy, cursor, params) from exc
        finally:
            try:
                if cursor is not None:
                    cursor.close()
                if self.autocommit and fairy.is_valid:
                    self.dialect.reset_isolation_level(fairy.dbapi_connection)
            finally:
                fairy.close()  # back to the pool, which rolls back whatever a failed write left open

    def _run_kept(self, params: dict, write: bool):
        """`_run` on the kept SQLite connection: the driver's own execute (its cursor goes with it)."""
        fairy = self._checkout()
        failed = True
        try:
            connection = fairy.dbapi_connection
            cursor = connection.execute(self.sql, self._params(params))
            if write:
                connection.commit()
                answer = cursor.rowcount
            else:
                answer = cursor.fetchall()
            failed = False
            return answer
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._failed(exc, fairy, None, params) from exc
        finally:
            self.kept.release(failed)  # a failed write is rolled back

    def _failed(self, exc, fairy, cursor, params) -> DBAPIError:
        """The driver's error as SQLAlchemy raises it; a lost connection leaves the pool."""
        lost = self.dialect.is_disconnect(exc, fairy.dbapi_connection, cursor)
        if lost:
            # as SQLAlchemy's own Connection does on a disconnect: every connection the pool made before
            # this one is replaced at its next checkout (after a database restart none of them works)
            self.engine.pool._invalidate(fairy, exc)
        return DBAPIError.instance(self.sql, params, exc, self.dialect.loaded_dbapi.Error,
                                   connection_invalidated=lost, dialect=self.dialect)
