"""When the database fails (unreachable, full, busy past its timeout): a 503 that says so.

Every write is one transaction, so a request that fails here has saved nothing; the phone is told
to tap again. The engine reconnects by itself (a ping of PostgreSQL connections that sat idle, SQLite's file check in
engines.py), so the next tap after the database is back is saved without restarting the server.
Errors that are bugs rather than faults (an IntegrityError, a ProgrammingError) are not caught.
"""
from __future__ import annotations

from flask import Flask, current_app, jsonify, render_template, request
from sqlalchemy.exc import InterfaceError, OperationalError, TimeoutError as PoolTimeout
from ..core.contract import Text

DATABASE_FAULTS = (OperationalError, InterfaceError, PoolTimeout)
RETRY_AFTER_SECONDS = 5


FULL = ("SQLITE_FULL", "53100")  # SQLite's and PostgreSQL's (SQLSTATE disk_full) codes
BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED", "55P03")  # 55P03: lock_not_available


def what_failed(exc: Exception) -> str:
    # the driver's own error, not str(exc): that also holds the statement and the players' text
    orig = getattr(exc, "orig", None)
    code = getattr(orig, "sqlite_errorname", None) or getattr(orig, "sqlstate", None)
    said = str(orig or exc).lower()
    if code in FULL or "database or disk is full" in said or "no space left" in said:
        return Text("The database is full")
    if code in BUSY or "database is locked" in said:
        return Text("The database is busy")
    return Text("The database cannot be reached")


def _writes() -> bool:
    return request.method not in ("GET", "HEAD", "OPTIONS")


def first_line(exc) -> str:
    """What a database error said, on one line (its driver's own words where it has them)."""
    said = str(getattr(exc, "orig", None) or exc).strip()
    return said.splitlines()[0] if said else type(exc).__name__


def database_fault(exc: Exception):
    current_app.logger.error("database fault on %s %s: %s", request.method, request.path, first_line(exc))
    what = what_failed(exc)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if request.path.startswith("/api/"):
        said = (Text("{what} right now, so nothing was saved. Send it again in a moment.", what=what) if _writes()
                else Text("{what} right now. Try again in a moment.", what=what))
        return jsonify(error=said), 503, headers
    if _writes():
        return render_template("error.html", status=503, heading=Text("Not saved"),
                               message=Text("{what} right now, so your entry was not saved. Tap again in a moment.", what=what)
                               ), 503, headers
    return render_template("error.html", status=503,
                           message=Text("{what} right now. Reload this page in a moment.", what=what)), 503, headers


def register(app: Flask) -> None:
    for kind in DATABASE_FAULTS:
        app.register_error_handler(kind, database_fault)
