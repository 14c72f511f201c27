"""Work a request starts that its own answer need not wait for: run once that answer has been sent.

Telling a table's open streams and the other processes that the table changed (live.py) is such
work. It reads the table's marker when this process has streams open on the table, and on
PostgreSQL or with Redis it sends a NOTIFY or a PUBLISH over the network. Under gevent, waiting for
that network lets every woken stream and every other request run first, so an entry's answer waited
behind the whole table's fan-out. The phone that made the change needs only to hear that it was saved;
the others are told a moment later, as before.

`AfterAnswer` wraps the WSGI app (all of it but the unchanged change check, which changes nothing).
While a request is in the app, `later(fn, arg)` keeps `fn(arg)` (once per pair); the answer's body
iterable then runs them when the server has sent it (it asks for the next part and there is none) or
closes it, whichever comes first (PEP 3333: a server always closes it; a caller that only drops it,
such as a test client, gets them when it does).
Outside a request (the command line, a test calling storage) `later` runs `fn(arg)` at once.
"""
from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Callable

log = logging.getLogger(__name__)

# this request's waiting work, by (function, argument); one per greenlet or thread (contextvars)
_waiting: ContextVar[dict | None] = ContextVar("companion_after_answer", default=None)


def later(fn: Callable[[object], None], arg) -> None:
    """`fn(arg)` once this request's answer is sent; at once outside a request."""
    waiting = _waiting.get()
    if waiting is None:
        fn(arg)
    else:
        waiting.setdefault((fn, arg), None)


def run_all(waiting: dict) -> None:
    pending = list(waiting)
    waiting.clear()  # taken once: a close() or a finalizer coming after finds nothing left
    for fn, arg in pending:
        try:
            fn(arg)
        except Exception:  # one failing notice must not stop the others; the change itself is saved
            log.exception("work after the answer failed: %r(%r)", fn, arg)


class AfterAnswer:
    """WSGI middleware around QuickEntry and Flask: the work `later` kept during a request runs after its answer."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        waiting: dict = {}
        token = _waiting.set(waiting)
        try:
            body = self.wsgi_app(environ, start_response)
        except BaseException:
            _waiting.reset(token)
            run_all(waiting)  # a change committed before the failure is still told
            raise
        _waiting.reset(token)
        return _ThenRun(body, waiting) if waiting else body


class _ThenRun:
    """The app's body, passed on part by part; the waiting work runs when it is used up or closed."""

    def __init__(self, body, waiting: dict):
        self.body, self.waiting = body, waiting
        self.parts = iter(body)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self.parts)
        except StopIteration:
            run_all(self.waiting)  # every part has been handed to the server, which has sent it
            raise

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            run_all(self.waiting)

    def __del__(self) -> None:
        # a caller that drops the body without closing it (a test client; a PEP 3333 server always closes)
        run_all(self.waiting)
