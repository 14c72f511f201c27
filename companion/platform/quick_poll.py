"""The unchanged change check, answered before Flask sees the request.

A page whose live stream cannot be held polls `/t/<code>/poll?v=<marker>`, and nearly every answer is
204: nothing changed. Flask's request handling (its context, the hooks every other route needs: the
session, the CSRF check, the table's replay, compression) was most of that answer's cost, so a poll
that is plainly unchanged is answered here, from the same one-query marker, with the headers Flask's
204 carries. Anything else (a change, a version that is not one, a table that does not exist, a client
whose not-found allowance is spent, a database that does not answer) goes on to the `pages.poll` route,
which answers it with its reason, counts it and logs it as every other route does.
"""
from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from .context import valid_code
from .hardening import HEADERS
from .limits import NotFoundAllowance
from .live import parse_marker
from .storage import Store

PREFIX, SUFFIX = "/t/", "/poll"
# what Flask's empty 204 carries: its default type, Flask-Compress's Vary, the security headers
UNCHANGED_HEADERS = [("Content-Type", "text/html; charset=utf-8"), ("Vary", "Accept-Encoding"),
                     *HEADERS.items()]


class QuickPoll:
    """WSGI middleware in front of the Flask app (inside ProxyFix, so REMOTE_ADDR is the client's)."""

    def __init__(self, wsgi_app, store: Store, allowance: NotFoundAllowance):
        self.wsgi_app, self.store, self.allowance = wsgi_app, store, allowance

    def __call__(self, environ, start_response):
        if self.unchanged(environ):
            start_response("204 NO CONTENT", UNCHANGED_HEADERS)
            return []
        return self.wsgi_app(environ, start_response)

    def unchanged(self, environ) -> bool:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") != "GET" or not (path.startswith(PREFIX) and path.endswith(SUFFIX)):
            return False
        code = valid_code(path[len(PREFIX):-len(SUFFIX)])
        query = environ.get("QUERY_STRING", "")
        seen = parse_marker(query[2:]) if query.startswith("v=") and "&" not in query else None
        if code is None or seen is None or self.allowance.spent_by(environ):
            return False
        try:
            return self.store.poll_marker(code) == seen
        except SQLAlchemyError:
            return False  # the route meets the fault again and answers it as every route does
