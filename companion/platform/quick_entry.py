"""A seat's plain entry through the JSON API, recorded before Flask sees the request.

`POST /api/tables/<code>/entries` with a seat token is what a client at play sends most, after the
change check. Flask's request handling (its contexts, the hooks every other route needs, the JSON
response) cost more than the entry's own work, so the plain case is taken here: the same token check,
the same `play.record` (the rules' check, the append, the live notice) and the answer the route gives.
Anything else goes on to the `api.add_entry` route, which answers it with its reason as it always has:
a host token, a "seat" field, an undo, a body that is not a small JSON object or holds text or numbers
`hardening` refuses, a client whose not-found allowance is spent, an unknown table or token, an entry
the rules refuse, a database fault. Every one of those writes nothing here
(record's contract), so the route judges it afresh against the same log.
"""
from __future__ import annotations

import io
import json

from sqlalchemy.exc import SQLAlchemyError

from .auth import seat_for_token
from .context import valid_code
from .contract import RuleError
from .hardening import HEADERS, value_problem
from .limits import NotFoundAllowance
from .play import TableError, load_replay, record
from .storage import Entry, NoLongerHeld, Store, TableInfo, fingerprint

PREFIX, SUFFIX = "/api/tables/", "/entries"
ROUTE_ONLY = ("seat", "undo")  # fields and kinds the route's own checks are for
# what the route's 201 carries: jsonify's type, Flask-Compress's Vary, the security headers
CREATED_HEADERS = [("Content-Type", "application/json"), ("Vary", "Accept-Encoding"), *HEADERS.items()]


KNOWN_TABLES = 10_000  # tables whose last read is kept (a few hundred bytes each)


class QuickEntry:
    """WSGI middleware in front of the Flask app (inside ProxyFix, so REMOTE_ADDR is the client's).

    It keeps each table as it last read it (the replay cache keeps its newest replay), so an entry
    costs one statement: the append, which itself checks that the token is still the seat's and the
    game still the table's current one (`holder`), and whose sequence number is taken only once. When
    another process wrote meanwhile, the number is taken and `record` judges the entry again against
    the log as it now is. When a seat moved or a rematch began, the check fails and nothing is
    written: the copy is dropped and the route takes the request."""

    def __init__(self, wsgi_app, store: Store, allowance: NotFoundAllowance, max_body: int):
        self.wsgi_app, self.store, self.allowance, self.max_body = wsgi_app, store, allowance, max_body
        self.known: dict[str, TableInfo] = {}  # code -> the table as last read here

    def __call__(self, environ, start_response):
        answer = self.recorded(environ)
        if answer is None:
            return self.wsgi_app(environ, start_response)
        start_response("201 CREATED", [*CREATED_HEADERS, ("Content-Length", str(len(answer)))])
        return [answer]

    def recorded(self, environ) -> bytes | None:
        """The route's answer to an entry recorded here, or None: the route takes the request."""
        code, token, body = self._plain_request(environ)
        if body is None:
            return None
        try:
            saved = self._record(code, token, body)
        except (RuleError, TableError, NoLongerHeld, SQLAlchemyError):
            saved = None  # nothing was written: the route meets it again and answers with the reason
        if saved is None:
            self.known.pop(code, None)
            return None
        return b'{"seq":%d,"version":%d}\n' % (saved.seq, saved.seq)  # jsonify's bytes for the route's answer

    def _record(self, code: str, token: str, body: dict) -> Entry | None:
        table = self.known.get(code)
        seat = seat_for_token(table, token) if table is not None else None
        if seat is None:  # not known here, or a token this copy of the table has not seen yet
            table = self.store.table(code)
            seat = seat_for_token(table, token) if table is not None else None
            if seat is None:
                return None
        # at least the version read with the table: the newest replay this process has, if it has one
        replay = load_replay(self.store, table, version=table.version_when_read)
        entry = {k: v for k, v in body.items() if k != "key"}
        saved, _, created = record(self.store, table, seat, entry, body.get("key"), replay=replay,
                                       device=fingerprint(token), holder=token)
        if not created:
            return None  # an idempotency key seen before: the route marks its answer as a replay
        if len(self.known) >= KNOWN_TABLES:
            self.known.clear()
        self.known[code] = table
        return saved

    def _plain_request(self, environ) -> tuple[str | None, str | None, dict | None]:
        """(table code, seat token, body) of a plain entry, else a None body."""
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") != "POST" or not (path.startswith(PREFIX) and path.endswith(SUFFIX)):
            return None, None, None
        code = valid_code(path[len(PREFIX):-len(SUFFIX)])
        header = environ.get("HTTP_AUTHORIZATION", "")
        token = header[len("Bearer "):].strip() if header.startswith("Bearer ") else ""
        if (code is None or not token or environ.get("CONTENT_TYPE") != "application/json"
                or environ.get("QUERY_STRING") or self.allowance.spent_by(environ)):
            return None, None, None
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None, None, None
        if not 0 < length <= self.max_body:
            return None, None, None
        raw = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(raw)  # the route reads the same body if it takes the request
        return code, token, _plain_body(raw)


_decode = json.JSONDecoder().raw_decode


def _plain_body(raw: bytes) -> dict | None:
    """A JSON object the route would take as it is, or None. Only UTF-8 without anything before
    or after the object: anything else (which json.loads may still take) goes to the route."""
    if b"\\u0000" in raw:
        return None
    try:
        text = raw.decode()
        body, end = _decode(text)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if end != len(text) and text[end:].strip(" \t\n\r"):  # JSON's own whitespace only
        return None
    if not isinstance(body, dict) or any(k in body for k in ROUTE_ONLY) or body.get("kind") in ROUTE_ONLY:
        return None
    if not isinstance(body.get("kind"), str) or value_problem(body):
        return None
    return body
