"""The WSGI server `python -m companion` runs: gevent's, with Nagle's algorithm off per connection.

gevent's pywsgi writes a small answer in two sends (the headers, then the body). On a kept-alive
connection with Nagle's algorithm on, the kernel holds the body back until the client acknowledges
the headers, and clients delay that acknowledgement by up to 40 ms: every small answer after a
connection's first (a fragment, an entry's reply, a poll) then took about 44 ms instead of under one.
gunicorn sets TCP_NODELAY on its listening socket for the same reason; set here on each accepted
socket, it holds on every system (not all of them copy the option from the listener).

Idle and slow connections are dropped, so that silent or dripping clients cannot hold the
process's open files and greenlets: a request's line, headers and body must all arrive within
`read_seconds` (10 s) of its first line being asked for, a kept-alive connection waits
`idle_seconds` (75 s, as gunicorn.conf.py's keepalive) for its next request, and one client address
holds at most `connections_per_client` (64) open connections: the ones beyond are closed at once.
A request's body is read whole (up to `max_body` bytes) before the app sees it, so no route ever
waits on a slow client; a longer body is left unread for the app to refuse (413) and its connection
closed after the answer.

Every open page holds a connection, so the process lifts its own limit on open files first
(`raise_open_file_limit`; gunicorn.conf.py does the same for its workers).
"""
from __future__ import annotations

import gc
import io
import os
import socket
from collections import Counter

from gevent import Timeout
from gevent.pywsgi import Input, WSGIHandler, WSGIServer


READ_SECONDS = 10.0  # a request's line, headers and body arrive within this
IDLE_SECONDS = 75.0  # a kept-alive connection waits this long for its next request
CONNECTIONS_PER_CLIENT = 64  # a browser opens at most 6 to one server; a phone's page holds 1-2
MAX_BODY = 256 * 1024  # the app's own MAX_CONTENT_LENGTH (factory.py)


class IdleTooLong(OSError):
    """No request came within the connection's wait: gevent closes a connection on an OSError here."""


class ReadTooSlow(ValueError):
    """A request's headers or body came slower than READ_SECONDS: gevent answers 400 and closes."""


def _deadline(seconds: float | None, error: Exception) -> Timeout:
    return Timeout(seconds or None, error)  # 0 or None: no deadline


class Handler(WSGIHandler):
    requests_read = 0
    body: bytes | None = None  # the request's body, read whole by read_request

    def read_requestline(self):
        """The next request's first line, within READ_SECONDS on a new connection or IDLE_SECONDS
        on a kept-alive one (a slowloris dripping it is cut there too)."""
        wait = self.server.idle_seconds if self.requests_read else self.server.read_seconds
        with _deadline(wait, IdleTooLong("no request came in time")):
            line = super().read_requestline()
        self.requests_read += 1
        return line

    def read_request(self, raw_requestline):
        """The headers, and the body whole, within READ_SECONDS."""
        with _deadline(self.server.read_seconds, ReadTooSlow("the request came too slowly")):
            if not super().read_request(raw_requestline):
                return False
            self.body = self._read_body()
        return True

    def _read_body(self) -> bytes | None:
        chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        if not chunked and not self.content_length:
            return None
        if (self.content_length or 0) > self.server.max_body:
            self.close_connection = True  # the app refuses it unread (413); its bytes are not waited for
            return b""
        expects = self.headers.get("expect", "").lower() == "100-continue"
        body = Input(self.rfile, self.content_length, socket=self.socket if expects else None,
                     chunked_input=chunked).read(self.server.max_body + 1)
        if len(body) > self.server.max_body:
            raise ValueError("the request's body is too large")
        return body

    def get_environ(self):
        env = super().get_environ()
        if self.body is not None:
            self.wsgi_input = Input(io.BytesIO(self.body), len(self.body))
            env["wsgi.input"] = self.wsgi_input
            if self.body or "CONTENT_LENGTH" not in env:
                env["CONTENT_LENGTH"] = str(len(self.body))
            env.pop("HTTP_TRANSFER_ENCODING", None)
            self.body = None
        return env


class Server(WSGIServer):
    handler_class = Handler

    def __init__(self, listener, application=None, log="default", read_seconds: float = READ_SECONDS,
                 idle_seconds: float = IDLE_SECONDS, connections_per_client: int = CONNECTIONS_PER_CLIENT,
                 max_body: int = MAX_BODY, **kwargs):
        super().__init__(listener, application, log=log, **kwargs)
        self.read_seconds, self.idle_seconds, self.max_body = read_seconds, idle_seconds, max_body
        self.connections_per_client = connections_per_client  # 0: no bound
        self.open_by_client: Counter = Counter()

    def handle(self, sock, address):
        client = address[0] if isinstance(address, tuple) else address
        if self.connections_per_client and self.open_by_client[client] >= self.connections_per_client:
            sock.close()  # this address holds its share already: the others' phones still get in
            return
        self.open_by_client[client] += 1
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            super().handle(sock, address)
        finally:
            self.open_by_client[client] -= 1
            if self.open_by_client[client] <= 0:
                del self.open_by_client[client]


# A full collection (generation 2) walks every tracked object of the process and holds every
# request meanwhile. Under load (200 tables, 900 open streams) CPython ran one every 2 to 3 s, each
# 85 to 130 ms of CPU, collecting nothing: the largest part of the entries' p99 (bench/load.py).
FULL_COLLECTION_EVERY = 1000  # collections of generation 1 (CPython's default: 10)


def shorten_collector_pauses() -> None:
    """Freeze what the process holds from its start (modules, templates, rules tables: they live
    as long as the process, and the collector no longer walks them) and make full collections
    rare. Cycles still get collected; the young generations run as often as before."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


# Soft limits to ask for when the hard limit cannot be taken as it is: Linux's usual cap on a
# process's open files (fs.nr_open), then smaller ones down to macOS's OPEN_MAX. macOS reports an
# unlimited hard limit, refuses it and anything above kern.maxfilesperproc, and its setrlimit(2) page
# says to use min(OPEN_MAX, hard) instead.
FALLBACK_OPEN_FILES = (1_048_576, 65_536, 10_240)


def open_file_limits_to_try(soft: int, hard: int, unlimited: int) -> list[int]:
    """Soft limits above `soft` to ask for, largest first: the hard limit, then the fallbacks under it."""
    wanted = [] if hard == unlimited else [hard]
    wanted += [n for n in FALLBACK_OPEN_FILES if hard == unlimited or n < hard]
    return [n for n in wanted if n > soft]


def raise_open_file_limit(limits=None) -> int | None:
    """Every open page holds a connection: lift this process's soft limit on open files (often 1,024,
    256 on macOS) as far as the system lets one process go. `limits`: the `resource` module. Returns
    the soft limit now in force, or None where there is no such limit (Windows)."""
    if limits is None:
        try:
            import resource as limits
        except ImportError:  # Windows: no such limit
            return None
    soft, hard = limits.getrlimit(limits.RLIMIT_NOFILE)
    for wanted in open_file_limits_to_try(soft, hard, limits.RLIM_INFINITY):
        try:
            limits.setrlimit(limits.RLIMIT_NOFILE, (wanted, hard))
            return wanted
        except (ValueError, OSError):
            continue  # more than this system allows one process: ask for less
    return soft


def connection_limits(app, environ=None) -> dict:
    """The server's deadlines and per-client bound (`Server`), from the environment:
    REQUEST_READ_SECONDS, KEEPALIVE_SECONDS, MAX_CONNECTIONS_PER_CLIENT (0: none). Behind a
    reverse proxy (TRUST_PROXY) every connection comes from the proxy: the bound is its to keep."""
    environ = os.environ if environ is None else environ

    def number(name: str, default: float) -> float:
        raw = environ.get(name) or ""
        try:
            return default if raw == "" else max(float(raw), 0.0)
        except ValueError:
            raise SystemExit(f"{name} must be a number (0: none); got {raw!r}.") from None

    per_client = 0 if app.config.get("TRUST_PROXY") else int(number("MAX_CONNECTIONS_PER_CLIENT",
                                                                    CONNECTIONS_PER_CLIENT))
    return {"read_seconds": number("REQUEST_READ_SECONDS", READ_SECONDS),
            "idle_seconds": number("KEEPALIVE_SECONDS", IDLE_SECONDS),
            "connections_per_client": per_client,
            "max_body": app.config.get("MAX_CONTENT_LENGTH") or MAX_BODY}


def serve(app, host: str, port: int) -> None:
    """gevent's WSGI server: one greenlet per connection, keep-alive, no descriptor ceiling (README)."""
    raise_open_file_limit()
    shorten_collector_pauses()
    # no access log: thousands of phones
    server = Server((host, port), app, log=None, **connection_limits(app))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stop(timeout=1)
